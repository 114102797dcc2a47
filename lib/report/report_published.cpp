// The published section: the model against published and measured figures. Each figure the model
// covers (its profile: lib/model/profiles.cpp) gets the prediction for its GPU and shape (default options) and
// the error; the published record is summarized per GPU family and pass (held out) and per source,
// GPU, pass and head dim; the others (peers the model does not cover) are listed as context.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <string>
#include <tuple>

#include "hw/loader.hpp"
#include "report/findings.hpp"
#include "report/markdown.hpp"
#include "report/numbers.hpp"
#include "report/record_chart.hpp"
#include "report/report_charts.hpp"
#include "report/sections.hpp"

namespace fa4::report {
namespace {

using Compared = FigureVsModel;

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
    table.rows.push_back(
        {f.source, f.gpu, f.kernel,
         std::string(model::to_string(c.options ? c.options->algorithm : *f.modeled_as)),
         std::string(to_string(f.pass)), describe(f.shape), integer(f.tflops),
         c.predicted_tflops ? integer(*c.predicted_tflops) : "—",
         c.predicted_tflops ? signed_percent(c.error_percent()) : c.not_modeled,
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
    if (!c.predicted_tflops || (role && c.figure->role != *role)) continue;
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

// The held-out error per GPU family and pass, bf16/fp16 and fp8 apart, decode apart: the
// record's targets.
std::string held_out_table(const std::vector<const Compared*>& record) {
  std::map<std::tuple<std::string, Pass, bool, bool>, std::vector<const Compared*>> groups;
  for (const Compared* c : record)
    if (c->predicted_tflops && held_out(*c->figure) && within_bounds(*c->figure))
      groups[{gpu_family(*c->gpu_model), c->figure->pass, is_decode(*c->figure),
              c->figure->shape.dtype == Dtype::fp8}]
          .push_back(c);
  const auto right = Align::right;
  Table table{{{"family"},
               {"pass"},
               {"dtype"},
               {"held out", right},
               {"median |error|", right},
               {"worst", right},
               {"worst figure"}},
              {}};
  for (const auto& [key, rows] : groups) {
    const auto& [family, pass, decode, fp8] = key;
    const ErrorSummary e = summarize_errors(rows);
    table.rows.push_back({family, std::string(to_string(pass)) + (decode ? " (decode)" : ""),
                          fp8 ? "fp8" : "bf16/fp16", std::int64_t(e.count),
                          percent(e.median_abs_percent), signed_percent(e.worst_percent),
                          figure_text(*e.worst->figure)});
  }
  return md::render(table) + "\n";
}

// The error per source, GPU, pass, head dim and dtype, the fit figures and the held-out ones apart.
std::string record_error_table(const std::vector<const Compared*>& record) {
  using Key = std::tuple<std::string, std::string, Pass, std::string, Dtype, bool>;
  std::map<Key, std::vector<const Compared*>> groups;
  for (const Compared* c : record) {
    if (!c->predicted_tflops) continue;
    const PublishedFigure& f = *c->figure;
    const std::string head_dim = f.shape.headdim == f.shape.headdim_v
                                     ? std::to_string(f.shape.headdim)
                                     : fmt::format("{}/{}", f.shape.headdim, f.shape.headdim_v);
    groups[{f.source, f.gpu, f.pass, head_dim, f.shape.dtype, held_out(f)}].push_back(c);
  }
  const auto right = Align::right;
  Table table{{{"source"},
               {"GPU"},
               {"pass"},
               {"head dim"},
               {"dtype"},
               {"role"},
               {"count", right},
               {"median |error|", right},
               {"worst", right}},
              {}};
  for (const auto& [key, rows] : groups) {
    const auto& [source, gpu, pass, head_dim, dtype, is_held_out] = key;
    const ErrorSummary e = summarize_errors(rows);
    table.rows.push_back({source, gpu, std::string(to_string(pass)), head_dim,
                          std::string(to_string(dtype)), is_held_out ? "held out" : "fit",
                          std::int64_t(e.count), percent(e.median_abs_percent),
                          signed_percent(e.worst_percent)});
  }
  return md::render(table) + "\n";
}

// Why the model has no prediction for some record figures, with how many each.
std::string not_modeled_list(const std::vector<const Compared*>& record) {
  std::map<std::string, int> reasons;
  for (const Compared* c : record)
    if (!c->predicted_tflops) ++reasons[c->not_modeled];
  std::string out;
  for (const auto& [reason, count] : reasons)
    out += fmt::format("- {} figure(s): {}.\n", count, reason);
  return out.empty() ? "" : "Not modeled:\n\n" + out + "\n";
}

// The figures left out of the held-out bounds, with how many each reason covers.
std::string outside_bounds_list(const std::vector<const Compared*>& record) {
  std::map<std::string, int> reasons;
  for (const Compared* c : record)
    if (c->predicted_tflops && !within_bounds(*c->figure)) ++reasons[c->figure->outside_bounds];
  std::string out;
  for (const auto& [reason, count] : reasons)
    out += fmt::format("- {} figure(s): {}\n", count, reason);
  return out.empty() ? ""
                     : "Modeled, shown above, and left out of the held-out bounds (the data "
                       "files say why):\n\n" +
                           out + "\n";
}

// The published record (data/published/record): figures copied as published, each with its
// origin and a role fixed before any fitting; its chart of model against published per GPU.
std::string record_section(const std::vector<const Compared*>& record, ReportCharts& charts) {
  return fmt::format(
             "### The published record\n\n{} figures read from public repositories and "
             "threads (data/published/record), each modeled as the closest algorithm on the GPU "
             "model of its machine, with the terms its profile pays (lib/model/profiles.cpp). "
             "Held-out figures within the "
             "bounds (those left out are listed below with the reason), per GPU family and "
             "pass, decode steps apart:\n\n",
             record.size()) +
         held_out_table(record) + charts.embed(record_chart(record)) +
         md::details(
             "Per source, GPU, pass, head dim and dtype, the fit and held-out figures "
             "apart",
             record_error_table(record)) +
         outside_bounds_list(record) + not_modeled_list(record);
}

}  // namespace

std::string published_section(const std::vector<FigureVsModel>& all, ReportCharts& charts) {
  std::string out =
      heading(Section::published) +
      "For each published or measured figure the model covers, the model's prediction for the "
      "same GPU and shape with default options, in TFLOP/s under the figure's own FLOP "
      "convention (the model predicts a time). Error = (model - published) / published. Role: "
      "*fitted* or *fit* (a model factor was or may be fitted to it), *target* (a figure the "
      "model is designed to reach), *held out* (neither: the honest test). `fa4-analyze "
      "published` lists every figure with its prediction.\n\n";
  std::vector<Compared> compared;
  std::vector<const Compared*> record;
  std::vector<const PublishedFigure*> context;
  for (const Compared& c : all) {
    if (c.figure->provenance)
      record.push_back(&c);
    else if (c.options || c.figure->modeled_as)
      compared.push_back(c);
    else
      context.push_back(c.figure);
  }
  if (!compared.empty()) {
    out += "Summary by role:\n\n";
    for (const char* role : {"", "target", "fitted"}) out += error_summary(compared, role);
    out += error_summary(compared, std::nullopt);
    const auto refused = std::count_if(compared.begin(), compared.end(),
                                       [](const Compared& c) { return !c.predicted_tflops; });
    if (refused) out += fmt::format("- the model refuses {} figure(s); see their rows.\n", refused);
    out += '\n';  // appended apart: GCC 12 warns falsely (-Wrestrict) on "\n" + std::string
    out += md::details(fmt::format("The {} figures, one row each", compared.size()),
                       compared_table(compared));
  }
  if (!record.empty()) out += record_section(record, charts);
  if (!context.empty())
    out += "### Context: figures the model does not cover\n\n" +
           md::details(fmt::format("Peers and ablations, {} figures in TFLOP/s, for comparison "
                                   "only (no error is computed)",
                                   context.size()),
                       context_tables(context));
  return out;
}

std::optional<HeldOutError> held_out_error(const std::vector<FigureVsModel>& compared) {
  std::vector<const Compared*> kept;
  int outside = 0;
  for (const Compared& c : compared) {
    if (!c.predicted_tflops || !held_out(*c.figure)) continue;
    if (within_bounds(*c.figure))
      kept.push_back(&c);
    else
      ++outside;
  }
  if (kept.empty()) return std::nullopt;
  const ErrorSummary summary = summarize_errors(kept);
  return HeldOutError{summary.count, outside, summary.median_abs_percent, summary.worst_percent,
                      figure_text(*summary.worst->figure)};
}

}  // namespace fa4::report
