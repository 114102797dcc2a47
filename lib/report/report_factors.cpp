// The factors section: every number in the model that is not a hardware rate. First the factors
// that model::predict reports with its predictions (the digest's representative prediction per
// kernel and pass), then every constant of lib/model/factors.def, then the figures they were
// fitted to.
#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "model/factors.hpp"
#include "report/markdown.hpp"
#include "report/numbers.hpp"
#include "report/sections.hpp"

namespace fa4::report {
namespace {

// A factor and the predictions that report it, in kernel order: "fa3 on h100-sxm" when both
// passes do, "fa2 fwd on a100-sxm" when one does.
struct Reported {
  model::Factor factor;
  std::vector<std::pair<std::string, std::set<Pass>>> users;  // "fa3 on h100-sxm" -> passes

  void add(const std::string& user, Pass pass) {
    auto it =
        std::find_if(users.begin(), users.end(), [&](const auto& u) { return u.first == user; });
    if (it == users.end()) it = users.insert(users.end(), {user, {}});
    it->second.insert(pass);
  }
  std::string users_text() const {
    std::string out;
    for (const auto& [user, passes] : users) {
      const std::string text =
          passes.size() == 2 ? user : fmt::format("{} ({})", user, to_string(*passes.begin()));
      out += (out.empty() ? "" : ", ") + text;
    }
    return out;
  }
};

std::string reported_table(const std::vector<RepresentativePrediction>& predictions,
                           std::string& notes) {
  std::vector<Reported> reported;
  for (const RepresentativePrediction& r : predictions) {
    const auto& p = r.prediction;
    if (!p) {
      notes += fmt::format("- {} {} on {}: {}\n", model::to_string(r.algorithm),
                           to_string(r.pass), r.gpu->id, p.error().message);
      continue;
    }
    const std::string user = fmt::format("{} on {}", model::to_string(r.algorithm), r.gpu->id);
    for (const model::Factor& f : p->factors) {
      auto it = std::find_if(reported.begin(), reported.end(), [&](const Reported& known) {
        return known.factor.name == f.name && known.factor.value == f.value &&
               known.factor.fitted_to == f.fitted_to;
      });
      if (it == reported.end()) it = reported.insert(reported.end(), {f, {}});
      it->add(user, r.pass);
    }
  }
  Table table{{{"factor"}, {"value", Align::right}, {"reported by"}, {"meaning"}, {"fitted to"}},
              {}};
  for (const Reported& r : reported)
    table.rows.push_back({"`" + r.factor.name + "`", compact(r.factor.value), r.users_text(),
                          r.factor.meaning,
                          r.factor.fitted_to.empty() ? "not fitted" : r.factor.fitted_to});
  return md::render(table) + "\n";
}

std::string constants_table() {
  Table table{{{"constant"}, {"value", Align::right}, {"kind"}, {"reported as"}, {"what it is"}},
              {}};
  for (const model::factors::Entry& c : model::factors::table())
    table.rows.push_back({fmt::format("`{}`", c.constant), compact(c.value),
                          std::string(model::factors::to_string(c.kind)),
                          c.reported.name.empty() ? "—" : fmt::format("`{}`", c.reported.name),
                          std::string(c.what)});
  return md::render(table) + "\n";
}

std::string efficiencies(const std::vector<hw::Spec>& gpus) {
  std::string out;
  for (const auto& g : gpus)
    out += fmt::format("{}`{}` {} / {} / {}", out.empty() ? "" : ", ", g.id,
                       compact(g.gemm_efficiency), compact(g.copy_efficiency),
                       compact(g.sustained_clock_share));
  return out;
}

std::string fitted_figures(const std::vector<PublishedFigure>& figures, const std::string& role) {
  std::string out;
  for (const auto& f : figures)
    if (f.role == role)
      out += fmt::format("- {} {} {} on {}, {}: {} TFLOP/s{}\n", f.kernel, to_string(f.pass),
                         describe(f.shape), f.gpu, f.source, integer(f.tflops),
                         f.note.empty() ? "" : " (" + f.note + ")");
  return out.empty() ? "- none\n" : out;
}

}  // namespace

std::string factors_section(const std::vector<hw::Spec>& gpus,
                            const std::vector<RepresentativePrediction>& predictions,
                            const std::vector<PublishedFigure>& figures) {
  const AttnShape shape = representative_shape();
  std::string notes;
  std::string out = fmt::format(
      "{}Every number in the model that is not a hardware rate. As `model::predict` reports them "
      "for {} on each kernel's own GPU:\n\n",
      heading(Section::factors), describe(shape));
  out += reported_table(predictions, notes);
  if (!notes.empty()) out += "Predictions the model refused:\n\n" + notes + "\n";
  out +=
      "`gemm_efficiency` / `copy_efficiency` / `sustained_clock_share` come from each hardware "
      "model (1 where no measurement or fit exists): " +
      efficiencies(gpus) + ".\n\n";
  out += md::details("Every constant of `lib/model/factors.hpp`", constants_table());
  out += md::details(
      "The figures the fitted factors were fitted to (role *fitted* in "
      "`data/published`)",
      fitted_figures(figures, "fitted") + "\n");
  out += "Figures the model is designed to reach (role *target*):\n\n" +
         fitted_figures(figures, "target") + "\n";
  return out;
}

}  // namespace fa4::report
