// fa4-analyze whatif: the prediction on a GPU with some units scaled (--scale mufu=2), beside
// the real GPU's, with the bottleneck shift; --sensitivity ranks the units by how much a 10%
// improvement of each alone would speed the workload up; several GPUs (--gpu h100,b200 or all)
// side by side.
#include <memory>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "context.hpp"
#include "gpu_list.hpp"
#include "hw/loader.hpp"
#include "model/whatif.hpp"
#include "report/table_format.hpp"
#include "shape_options.hpp"
#include "user_error.hpp"

namespace fa4::app {
namespace {

constexpr double kSensitivityStep = 1.1;

struct WhatifOptions {
  std::string gpu = "b200";
  std::string kernel = "fa4";
  std::string pass = "fwd";
  std::vector<std::string> scales;
  std::optional<double> exp_emulation;
  bool sensitivity = false;
  bool json = false, csv = false;
  ShapeOptions shape;
};

// The exp-emulation share the model finds best (fa4 forward only), or nullopt.
std::optional<model::BestShare> best_share(const hw::Spec& gpu, const AttnShape& shape,
                                           const model::Options& options) {
  if (options.algorithm != model::Algorithm::fa4 || options.pass != Pass::fwd) return std::nullopt;
  return take(model::best_exp_emulation(gpu, shape, options));
}

std::string side_by_side(const model::Prediction& a, const model::Prediction& b,
                         const std::optional<model::BestShare>& best_a,
                         const std::optional<model::BestShare>& best_b) {
  const model::TileCycles &x = a.tile_cycles, &y = b.tile_cycles;
  std::string out = fmt::format("{:<26} {:>14} {:>14}\n", "", a.gpu, "what-if");
  const auto row = [&](const char* name, double u, double v) {
    out += fmt::format("{:<26} {:>14.0f} {:>14.0f}\n", name, u, v);
  };
  row("mma cycles/tile", x.mma, y.mma);
  row("exp_mufu cycles/tile", x.exp_mufu, y.exp_mufu);
  row("fma (issue) cycles/tile", x.fma, y.fma);
  row("smem cycles/tile", x.smem, y.smem);
  out += fmt::format("{:<26} {:>14} {:>14}\n", "tile bottleneck", model::to_string(x.bottleneck),
                     model::to_string(y.bottleneck));
  row("tile time (cycles)", a.tile_time_cycles, b.tile_time_cycles);
  out += fmt::format("{:<26} {:>14.3f} {:>14.3f}\n", "time (ms)", a.time_s * 1e3, b.time_s * 1e3);
  row("TFLOP/s", a.tflops, b.tflops);
  out += fmt::format("{:<26} {:>14} {:>14}\n", "kernel bottleneck", model::to_string(a.bottleneck),
                     model::to_string(b.bottleneck));
  if (best_a && best_b)
    out += fmt::format("{:<26} {:>13.1f}% {:>13.1f}%\n", "best exp emulation share",
                       100 * best_a->share, 100 * best_b->share);
  out += fmt::format("\nspeedup {:.3f}x", a.time_s / b.time_s);
  out += a.bottleneck == b.bottleneck && x.bottleneck == y.bottleneck
             ? fmt::format("; still bound by {}\n", model::to_string(b.bottleneck))
             : fmt::format("; the bottleneck moves from {} to {} (tile: {} to {})\n",
                           model::to_string(a.bottleneck), model::to_string(b.bottleneck),
                           model::to_string(x.bottleneck), model::to_string(y.bottleneck));
  return out;
}

std::string sensitivity_text(const std::vector<model::SensitivityRow>& rows) {
  std::string out = fmt::format("\nsensitivity: each unit {:.0f}% faster alone\n",
                                100 * (kSensitivityStep - 1));
  out += fmt::format("{:<6} {:>9} {:>16}\n", "unit", "speedup", "then bound by");
  for (const auto& r : rows)
    out += fmt::format("{:<6} {:>8.3f}x {:>16}\n", model::to_string(r.unit), r.speedup,
                       model::to_string(r.bottleneck_after));
  return out;
}

nlohmann::json prediction_summary(const model::Prediction& p) {
  const model::TileCycles& c = p.tile_cycles;
  return {{"gpu", p.gpu},
          {"tile_cycles",
           {{"mma", c.mma}, {"exp_mufu", c.exp_mufu}, {"fma", c.fma}, {"smem", c.smem}}},
          {"tile_bottleneck", model::to_string(c.bottleneck)},
          {"tile_time_cycles", p.tile_time_cycles},
          {"time_s", p.time_s},
          {"tflops", p.tflops},
          {"bottleneck", model::to_string(p.bottleneck)}};
}

// One GPU's what-if: the prediction before and after the scaling, the best exp-emulation shares,
// the sensitivity ranking.
struct WhatIf {
  const hw::Spec* gpu = nullptr;
  hw::Spec changed;
  model::Prediction base, after;
  std::optional<model::BestShare> best_base, best_after;
  std::vector<model::SensitivityRow> ranks;
};

WhatIf what_if(const WhatifOptions& o, const hw::Spec& gpu,
               const std::vector<model::UnitScale>& scales) {
  WhatIf w;
  w.gpu = &gpu;
  w.changed = model::scaled_spec(gpu, scales);
  model::Options options;
  options.algorithm = take(model::parse_algorithm(o.kernel));
  options.pass = take(parse_pass(o.pass));
  options.exp_emulation = o.exp_emulation;
  const AttnShape shape = o.shape.shape();
  w.base = take(model::predict(gpu, shape, options));
  w.after = take(model::predict(w.changed, shape, options));
  w.best_base = best_share(gpu, shape, options);
  w.best_after = best_share(w.changed, shape, options);
  if (o.sensitivity)
    w.ranks = take(model::sensitivity(w.changed, shape, options, kSensitivityStep));
  return w;
}

nlohmann::json what_if_json(const WhatifOptions& o, const WhatIf& w) {
  nlohmann::json out = {{"shape", describe(o.shape.shape())},
                        {"kernel", o.kernel},
                        {"pass", o.pass},
                        {"gpu", w.gpu->id},
                        {"changed", w.changed.id},
                        {"base", prediction_summary(w.base)},
                        {"what_if", prediction_summary(w.after)},
                        {"speedup", w.base.time_s / w.after.time_s}};
  if (w.best_base && w.best_after)
    out["best_exp_emulation"] = {{"base", w.best_base->share}, {"what_if", w.best_after->share}};
  if (o.sensitivity) {
    out["sensitivity"] = nlohmann::json::array();
    for (const auto& r : w.ranks)
      out["sensitivity"].push_back({{"unit", model::to_string(r.unit)},
                                    {"speedup", r.speedup},
                                    {"bottleneck_after", model::to_string(r.bottleneck_after)}});
  }
  return out;
}

// A row per GPU and case: the base, the what-if, and with --sensitivity each unit 10% faster.
report::Table what_if_rows(const std::vector<WhatIf>& all) {
  using report::Align;
  report::Table t{{"gpu",
                   "case",
                   {"time_ms", Align::right},
                   {"tflops", Align::right},
                   "tile_bottleneck",
                   "bottleneck",
                   {"speedup", Align::right}},
                  {}};
  const auto prediction_row = [&](const WhatIf& w, std::string which, const model::Prediction& p) {
    t.rows.push_back({w.gpu->id, std::move(which), p.time_s * 1e3, p.tflops,
                      std::string(model::to_string(p.tile_cycles.bottleneck)),
                      std::string(model::to_string(p.bottleneck)), w.base.time_s / p.time_s});
  };
  for (const WhatIf& w : all) {
    prediction_row(w, "base", w.base);
    prediction_row(w, "what-if", w.after);
    for (const auto& r : w.ranks)
      t.rows.push_back({w.gpu->id,
                        fmt::format("what-if, {} {:.0f}% faster", model::to_string(r.unit),
                                    100 * (kSensitivityStep - 1)),
                        std::monostate{}, std::monostate{}, std::monostate{},
                        std::string(model::to_string(r.bottleneck_after)), r.speedup});
  }
  return t;
}

// Several GPUs side by side: a column per GPU, the sensitivity ranked as on the first.
std::string several_text(const WhatifOptions& o, const std::vector<WhatIf>& all) {
  std::string scales;
  for (const std::string& s : o.scales) scales += (scales.empty() ? "" : ", ") + s;
  std::string out = fmt::format("{} {} {}{} on {} GPUs\n\n", o.kernel, o.pass,
                                describe(o.shape.shape()),
                                scales.empty() ? "" : " with " + scales, all.size());
  report::Table t{{{""}}, {}};
  for (const WhatIf& w : all) t.columns.push_back({w.gpu->id, report::Align::right});
  const auto add = [&](std::string label, auto cell) {
    std::vector<report::Cell> row{std::move(label)};
    for (const WhatIf& w : all) row.push_back(cell(w));
    t.rows.push_back(std::move(row));
  };
  if (!o.scales.empty()) {
    add("time (ms)", [](const WhatIf& w) -> report::Cell {
      return fmt::format("{:.3f}", w.base.time_s * 1e3);
    });
    add("what-if time (ms)", [](const WhatIf& w) -> report::Cell {
      return fmt::format("{:.3f}", w.after.time_s * 1e3);
    });
    add("speedup", [](const WhatIf& w) -> report::Cell {
      return fmt::format("{:.3f}x", w.base.time_s / w.after.time_s);
    });
    add("TFLOP/s", [](const WhatIf& w) -> report::Cell {
      return fmt::format("{:.0f} -> {:.0f}", w.base.tflops, w.after.tflops);
    });
    add("share of peak", [](const WhatIf& w) -> report::Cell {
      return fmt::format("{:.1f}%", 100 * w.base.fraction_of_peak);
    });
    add("bound by", [](const WhatIf& w) -> report::Cell {
      return w.base.bottleneck == w.after.bottleneck
                 ? std::string(model::to_string(w.base.bottleneck))
                 : fmt::format("{} -> {}", model::to_string(w.base.bottleneck),
                               model::to_string(w.after.bottleneck));
    });
    add("tile bound by", [](const WhatIf& w) -> report::Cell {
      const model::Unit a = w.base.tile_cycles.bottleneck, b = w.after.tile_cycles.bottleneck;
      return a == b ? std::string(model::to_string(a))
                    : fmt::format("{} -> {}", model::to_string(a), model::to_string(b));
    });
  }
  if (o.sensitivity)
    for (const model::SensitivityRow& first : all.front().ranks)
      add(fmt::format("{} {:.0f}% faster", model::to_string(first.unit),
                      100 * (kSensitivityStep - 1)),
          [&](const WhatIf& w) -> report::Cell {
            for (const auto& r : w.ranks)
              if (r.unit == first.unit)
                return fmt::format("{:.3f}x {}", r.speedup, model::to_string(r.bottleneck_after));
            return std::monostate{};
          });
  return out + report::format_text(t, {.rule = false, .row_count = false});
}

void run_whatif(const Context& ctx, const WhatifOptions& o) {
  if (o.scales.empty() && !o.sensitivity)
    throw UserError("whatif needs --scale UNIT=FACTOR (e.g. --scale mufu=2) or --sensitivity");
  if (o.json && o.csv) throw UserError("choose one of --json and --csv");
  const auto specs = take(hw::load_all_specs(ctx.models_dir));
  const auto gpus = find_gpus(specs, o.gpu);
  const std::vector<model::UnitScale> scales = take(model::parse_unit_scales(o.scales));
  const bool several = gpus.size() > 1 || o.gpu == "all";
  std::vector<WhatIf> all;
  std::vector<std::string> refused;
  for (const hw::Spec* gpu : gpus) {
    try {
      all.push_back(what_if(o, *gpu, scales));
    } catch (const UserError& e) {
      if (!several) throw;
      refused.push_back(fmt::format("{} refused: {}", gpu->id, e.what()));
    }
  }
  if (all.empty())
    throw UserError(fmt::format("the model refused every GPU of --gpu {}: {}", o.gpu,
                                refused.front()));
  for (const std::string& line : refused) fmt::print(stderr, "whatif: {}\n", line);
  if (o.csv) {
    fmt::print("{}", report::format_csv(what_if_rows(all)));
  } else if (o.json) {
    nlohmann::json out = nlohmann::json::array();
    for (const WhatIf& w : all) out.push_back(what_if_json(o, w));
    fmt::print("{}\n", (several ? out : out.front()).dump(2));
  } else if (several) {
    fmt::print("{}", several_text(o, all));
  } else {
    const WhatIf& w = all.front();
    fmt::print("{} {} {} on {}\n\n", o.kernel, o.pass, describe(o.shape.shape()), w.changed.name);
    if (!scales.empty()) fmt::print("{}", side_by_side(w.base, w.after, w.best_base, w.best_after));
    if (o.sensitivity) fmt::print("{}", sensitivity_text(w.ranks));
  }
}

void setup(CLI::App& app, Context& ctx) {
  auto o = std::make_shared<WhatifOptions>();
  CLI::App* c = app.add_subcommand(
      "whatif", "Predict on a GPU with scaled units (--scale mufu=2) and rank the units by how "
                "much a 10% improvement would pay (--sensitivity)");
  c->add_option("--gpu", o->gpu,
                fmt::format("Hardware model to start from (fa4-analyze gpus lists them), or {}",
                            kGpuListHelp));
  c->add_option("--kernel", o->kernel, "Algorithm: naive, fa2, fa3 or fa4");
  c->add_option("--pass", o->pass, "fwd or bwd");
  c->add_option("--scale", o->scales,
                "UNIT=FACTOR, repeatable; units: mma, mufu, fma, smem, hbm, clock, sms");
  c->add_option("--exp-emulation", o->exp_emulation,
                "Share of exp2 emulated on the FMA pipe, 0..1 (fa4; default the GPU's)");
  c->add_flag("--sensitivity", o->sensitivity,
              "Rank the units by the speedup a 10% improvement of each alone would give");
  c->add_flag("--json", o->json,
              "Print one JSON object (with several GPUs, an array of one per GPU)");
  c->add_flag("--csv", o->csv,
              "Print a CSV row per GPU and case (base, what-if, each unit 10% faster)");
  o->shape.add_to(*c);
  c->callback([&ctx, o] { run_whatif(ctx, *o); });
}

const SubcommandRegistration registration{25, setup};

}  // namespace
}  // namespace fa4::app
