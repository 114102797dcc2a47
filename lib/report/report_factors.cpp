// The factors section: every number in the model that is not a hardware rate. First the factors
// that model::predict reports with its predictions (one representative prediction per kernel and
// pass), then every constant of lib/model/factors.hpp, then the figures they were fitted to.
#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "model/algorithm_traits.hpp"
#include "model/factors.hpp"
#include "report/markdown.hpp"
#include "report/numbers.hpp"
#include "report/sections.hpp"
#include "report/tile_cases.hpp"

namespace fa4::report {
namespace {

// FA4's hd128 setting at seqlen 8k (32k tokens, hidden 2048).
AttnShape representative_shape() {
  AttnShape s;
  s.batch = 4;
  s.heads_q = s.heads_kv = 16;
  s.seqlen_q = s.seqlen_k = 8192;
  s.headdim = s.headdim_v = 128;
  return s;
}

// The first GPU built for the algorithm, else the first that runs it.
const hw::Spec* representative_gpu(const std::vector<hw::Spec>& gpus, model::Algorithm a) {
  for (const auto& g : gpus)
    if (native_algorithm(g) == a) return &g;
  for (const auto& g : gpus)
    if (!model::unsupported_reason(g, a)) return &g;
  return nullptr;
}

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

std::string reported_table(const std::vector<hw::Spec>& gpus, std::string& notes) {
  std::vector<Reported> reported;
  for (model::Algorithm a : model::kAllAlgorithms) {
    const hw::Spec* gpu = representative_gpu(gpus, a);
    if (!gpu) continue;
    for (Pass pass : {Pass::fwd, Pass::bwd}) {
      model::Options options;
      options.algorithm = a;
      options.pass = pass;
      auto p = model::predict(*gpu, representative_shape(), options);
      if (!p) {
        notes += fmt::format("- {} {} on {}: {}\n", model::to_string(a), to_string(pass), gpu->id,
                             p.error().message);
        continue;
      }
      const std::string user = fmt::format("{} on {}", model::to_string(a), gpu->id);
      for (const model::Factor& f : p->factors) {
        auto it = std::find_if(reported.begin(), reported.end(), [&](const Reported& r) {
          return r.factor.name == f.name && r.factor.value == f.value &&
                 r.factor.fitted_to == f.fitted_to;
        });
        if (it == reported.end()) it = reported.insert(reported.end(), {f, {}});
        it->add(user, pass);
      }
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
                            const std::vector<PublishedFigure>& figures) {
  const AttnShape shape = representative_shape();
  std::string notes;
  std::string out = fmt::format(
      "{}Every number in the model that is not a hardware rate. As `model::predict` reports them "
      "for {} on each kernel's own GPU:\n\n",
      heading(Section::factors), describe(shape));
  out += reported_table(gpus, notes);
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
