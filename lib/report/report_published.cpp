// The published section: the model against published and measured figures. Figures with a
// modeled_as algorithm get the model's prediction for their GPU and shape (default options) and the
// error; the others (peers the model does not cover) are listed as context.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <optional>

#include "hw/loader.hpp"
#include "report/markdown.hpp"
#include "report/numbers.hpp"
#include "report/sections.hpp"

namespace fa4::report {
namespace {

struct Compared {
  const PublishedFigure* figure;
  std::optional<double> model_tflops;  // nothing when the model refuses
  std::string refusal;
  double error_percent() const { return 100 * (*model_tflops - figure->tflops) / figure->tflops; }
};

Compared compare(const std::vector<hw::Spec>& gpus, const PublishedFigure& f) {
  auto gpu = hw::find_spec(gpus, f.gpu);
  if (!gpu) return {&f, std::nullopt, gpu.error().message};
  model::Options options;
  options.algorithm = *f.modeled_as;
  options.pass = f.pass;
  auto p = model::predict(**gpu, f.shape, options);
  if (!p) return {&f, std::nullopt, p.error().message};
  return {&f, p->tflops, ""};
}

std::string role_text(const std::string& role) { return role.empty() ? "held out" : role; }

std::string figure_text(const PublishedFigure& f) {
  return fmt::format("{} {} {} {}", f.gpu, f.kernel, to_string(f.pass), describe(f.shape));
}

std::string compared_table(const std::vector<Compared>& rows) {
  const auto right = Align::right;
  Table table{{{"source"},
               {"GPU"},
               {"kernel"},
               {"modeled as"},
               {"pass"},
               {"shape"},
               {"published TFLOP/s", right},
               {"model TFLOP/s", right},
               {"error", right},
               {"role"}},
              {}};
  for (const Compared& c : rows) {
    const PublishedFigure& f = *c.figure;
    table.rows.push_back({f.source, f.gpu, f.kernel, std::string(model::to_string(*f.modeled_as)),
                          std::string(to_string(f.pass)), describe(f.shape), integer(f.tflops),
                          c.model_tflops ? integer(*c.model_tflops) : "—",
                          c.model_tflops ? signed_percent(c.error_percent()) : c.refusal,
                          role_text(f.role)});
  }
  return md::render(table) + "\n";
}

// "- held out (n = 60): mean absolute error 12.3%; largest -35.1% (h200 sdpa-flash bwd ...)."
// over the figures of one role, or of every role when `role` is nothing.
std::string error_summary(const std::vector<Compared>& rows, std::optional<std::string> role) {
  double sum = 0;
  int n = 0;
  const Compared* worst = nullptr;
  for (const Compared& c : rows) {
    if (!c.model_tflops || (role && c.figure->role != *role)) continue;
    sum += std::abs(c.error_percent());
    ++n;
    if (!worst || std::abs(c.error_percent()) > std::abs(worst->error_percent())) worst = &c;
  }
  if (n == 0) return "";
  return fmt::format("- {} (n = {}): mean absolute error {}; largest {} ({}).\n",
                     role ? role_text(*role) : "all", n, percent(sum / n),
                     signed_percent(worst->error_percent()), figure_text(*worst->figure));
}

// One pivot table per source: a row per (GPU, pass, shape), a column per kernel.
std::string context_tables(const std::vector<const PublishedFigure*>& figures) {
  std::vector<std::string> sources;
  for (const auto* f : figures)
    if (std::find(sources.begin(), sources.end(), f->source) == sources.end())
      sources.push_back(f->source);
  std::string out;
  for (const auto& source : sources) {
    std::vector<std::string> kernels;
    std::vector<const PublishedFigure*> keys;  // first figure of each (gpu, pass, shape)
    const auto same_row = [](const PublishedFigure* a, const PublishedFigure* b) {
      return a->gpu == b->gpu && a->pass == b->pass && a->shape == b->shape;
    };
    std::string citation;
    for (const auto* f : figures) {
      if (f->source != source) continue;
      citation = f->citation;
      if (std::find(kernels.begin(), kernels.end(), f->kernel) == kernels.end())
        kernels.push_back(f->kernel);
      if (std::none_of(keys.begin(), keys.end(), [&](auto* k) { return same_row(k, f); }))
        keys.push_back(f);
    }
    Table table{{{"GPU"}, {"pass"}, {"shape"}}, {}};
    for (const auto& k : kernels) table.columns.push_back({k, Align::right});
    for (const auto* key : keys) {
      std::vector<Cell> line = {key->gpu, std::string(to_string(key->pass)), describe(key->shape)};
      for (const auto& k : kernels) {
        const auto it = std::find_if(figures.begin(), figures.end(), [&](auto* f) {
          return f->source == source && f->kernel == k && same_row(f, key);
        });
        line.push_back(it == figures.end() ? "" : integer((*it)->tflops));
      }
      table.rows.push_back(std::move(line));
    }
    out += fmt::format("`{}`: {}\n\n", source, citation) + md::render(table) + "\n";
  }
  return out;
}

}  // namespace

std::string published_section(const std::vector<hw::Spec>& gpus,
                              const std::vector<PublishedFigure>& figures) {
  std::string out =
      heading(Section::published) +
      "For each published or measured figure the model covers (`modeled_as` in "
      "`data/published/*.json`), the model's prediction for the same GPU and shape with default "
      "options. Error = (model - published) / published. Role: *fitted* (a model factor was "
      "fitted to it), *target* (a figure the model is designed to reach), *held out* (neither: "
      "the honest test).\n\n";
  std::vector<Compared> compared;
  std::vector<const PublishedFigure*> context;
  for (const auto& f : figures) {
    if (f.modeled_as)
      compared.push_back(compare(gpus, f));
    else
      context.push_back(&f);
  }
  if (compared.empty()) return out + "No figure names the algorithm that models it.\n\n";
  out += compared_table(compared);
  out += "Summary by role:\n\n";
  for (const char* role : {"", "target", "fitted"}) out += error_summary(compared, role);
  out += error_summary(compared, std::nullopt);
  const auto refused = std::count_if(compared.begin(), compared.end(),
                                     [](const Compared& c) { return !c.model_tflops; });
  if (refused) out += fmt::format("- the model refuses {} figure(s); see their rows.\n", refused);
  out += "\n";
  if (!context.empty())
    out +=
        "### Context: figures the model does not cover\n\nPeers and ablations, in TFLOP/s, "
        "for comparison only (no error is computed).\n\n" +
        context_tables(context);
  return out;
}

}  // namespace fa4::report
