// fa4-analyze published: the published figures (data/published and its record) with the model's
// prediction and error beside each, in TFLOP/s under each figure's own FLOP convention; --gpu and
// --source keep some of them, --json prints a JSON array.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "context.hpp"
#include "hw/loader.hpp"
#include "report/numbers.hpp"
#include "report/published.hpp"
#include "report/table_format.hpp"
#include "user_error.hpp"

namespace fa4::app {
namespace {

struct PublishedOptions {
  std::vector<std::string> gpus;     // figure GPUs as published ("gb200", "sm100"); empty: all
  std::vector<std::string> sources;  // "published:cudnn-frontend-gb200"; empty: all
  std::string published;             // default: data/published beside the models folder
  bool json = false;
};

bool kept(const std::vector<std::string>& wanted, const std::string& value) {
  return wanted.empty() || std::find(wanted.begin(), wanted.end(), value) != wanted.end();
}

// "fa4 2-CTA single-tile grid deterministic": the model's configuration for the figure (the
// model::Options a published kernel sets, report/published_model.cpp; the group reduction where
// the shape has groups, the fixed tile order where a causal mask makes the tiles unequal; cuDNN's
// fixed time per tile step, its deterministic configuration's).
std::string options_text(const model::Options& o, const AttnShape& s) {
  std::string text{model::to_string(o.algorithm)};
  for (auto [set, name] :
       {std::pair{o.two_cta, " 2-CTA"}, std::pair{o.split_dq_backward, " split dQ"},
        std::pair{o.shared_tmem_columns_backward, " shared TMEM columns"},
        std::pair{o.single_tile_grid, " single-tile grid"},
        std::pair{o.fixed_order_tiles && s.causal, " fixed tile order"},
        std::pair{o.group_reduced_key_grads && s.heads_q != s.heads_kv, " group-reduced dK dV"},
        std::pair{o.deterministic, " deterministic"},
        std::pair{o.fixed_step_cost, " fixed step cost"},
        std::pair{o.dq_adds_spill_l2, " dQ adds in HBM"},
        std::pair{o.serial_smem_mma, " shared memory after the MMA"},
        std::pair{o.layout_copies, " layout copies"},
        std::pair{o.row_max_on_load.value_or(false), " row max from the load"}})
    if (set) text += name;
  return text;
}

report::Table comparison_table(const std::vector<report::FigureVsModel>& rows) {
  using report::Align;
  report::Table table{{{"source"},
                       {"GPU"},
                       {"modeled on"},
                       {"kernel"},
                       {"pass"},
                       {"shape"},
                       {"role"},
                       {"modeled as"},
                       {"published TFLOP/s", Align::right},
                       {"model TFLOP/s", Align::right},
                       {"error %", Align::right},
                       {"not modeled because"},
                       {"outside the bounds because"}},
                      {}};
  for (const report::FigureVsModel& r : rows) {
    const report::PublishedFigure& f = *r.figure;
    std::vector<report::Cell> line = {f.source,
                                      f.gpu,
                                      f.model_gpu(),
                                      f.kernel,
                                      std::string(to_string(f.pass)),
                                      describe(f.shape),
                                      f.role,
                                      r.options ? options_text(*r.options, f.shape) : "",
                                      f.tflops};
    if (r.predicted_tflops) {
      line.push_back(std::round(*r.predicted_tflops * 10) / 10);
      line.push_back(std::round(r.error_percent() * 10) / 10);
      line.push_back("");
    } else {
      line.push_back(std::monostate{});
      line.push_back(std::monostate{});
      line.push_back(r.not_modeled);
    }
    line.push_back(f.outside_bounds);
    table.rows.push_back(std::move(line));
  }
  return table;
}

void run_published(const Context& ctx, const PublishedOptions& o) {
  const std::vector<hw::Spec> specs = take(hw::load_all_specs(ctx.models_dir));
  const std::string dir =
      !o.published.empty() ? o.published
                           : (std::filesystem::path(ctx.models_dir) / ".." / "data" / "published")
                                 .lexically_normal()
                                 .string();
  const std::vector<report::PublishedFigure> all = take(report::load_published_tree(dir));
  take(report::check_against_models(all, specs));
  std::vector<report::PublishedFigure> figures;
  for (const auto& f : all)
    if (kept(o.gpus, f.gpu) && kept(o.sources, f.source)) figures.push_back(f);
  if (figures.empty())
    throw UserError(fmt::format(
        "no published figure in {} matches --gpu {} --source {}: `fa4-analyze published` lists "
        "them all",
        dir, o.gpus.empty() ? "(any)" : fmt::format("{}", fmt::join(o.gpus, ",")),
        o.sources.empty() ? "(any)" : fmt::format("{}", fmt::join(o.sources, ","))));
  const report::Table table = comparison_table(report::compare_with_model(specs, figures));
  fmt::print("{}", o.json ? report::format_json(table) : report::format_text(table));
}

void setup(CLI::App& app, Context& ctx) {
  auto o = std::make_shared<PublishedOptions>();
  CLI::App* c = app.add_subcommand(
      "published",
      "The published figures with the model's prediction and error beside each (TFLOP/s under "
      "each figure's own FLOP convention)");
  c->add_option("--gpu", o->gpus, "Keep the figures of these GPUs, as published (gb200, sm100)")
      ->delimiter(',');
  c->add_option("--source", o->sources,
                "Keep the figures of these sources (published:cudnn-frontend-gb200, ...)")
      ->delimiter(',');
  c->add_option("--published", o->published,
                "The published-figures folder, its record/ subfolder included (default: "
                "data/published beside the models folder)");
  c->add_flag("--json", o->json, "Print a JSON array, one object per figure");
  c->callback([&ctx, o] { run_published(ctx, *o); });
}

const SubcommandRegistration registration{58, setup};

}  // namespace
}  // namespace fa4::app
