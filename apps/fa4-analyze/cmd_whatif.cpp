// fa4-analyze whatif: the prediction on a GPU with some units scaled (--scale mufu=2), beside
// the real GPU's, with the bottleneck shift; --sensitivity ranks the units by how much a 10%
// improvement of each alone would speed the workload up.
#include <memory>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "context.hpp"
#include "hw/loader.hpp"
#include "model/whatif.hpp"
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
  bool json = false;
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

void run_whatif(const Context& ctx, const WhatifOptions& o) {
  if (o.scales.empty() && !o.sensitivity)
    throw UserError("whatif needs --scale UNIT=FACTOR (e.g. --scale mufu=2) or --sensitivity");
  const auto specs = take(hw::load_all_specs(ctx.models_dir));
  const hw::Spec& gpu = *take(hw::find_spec(specs, o.gpu));
  const std::vector<model::UnitScale> scales = take(model::parse_unit_scales(o.scales));
  const hw::Spec changed = model::scaled_spec(gpu, scales);
  model::Options options;
  options.algorithm = take(model::parse_algorithm(o.kernel));
  options.pass = take(parse_pass(o.pass));
  options.exp_emulation = o.exp_emulation;
  const AttnShape shape = o.shape.shape();

  const model::Prediction base = take(model::predict(gpu, shape, options));
  const model::Prediction after = take(model::predict(changed, shape, options));
  const auto best_base = best_share(gpu, shape, options);
  const auto best_after = best_share(changed, shape, options);
  std::vector<model::SensitivityRow> ranks;
  if (o.sensitivity) ranks = take(model::sensitivity(changed, shape, options, kSensitivityStep));

  if (o.json) {
    nlohmann::json out = {{"shape", describe(shape)},
                          {"kernel", o.kernel},
                          {"pass", o.pass},
                          {"gpu", gpu.id},
                          {"changed", changed.id},
                          {"base", prediction_summary(base)},
                          {"what_if", prediction_summary(after)},
                          {"speedup", base.time_s / after.time_s}};
    if (best_base && best_after)
      out["best_exp_emulation"] = {{"base", best_base->share}, {"what_if", best_after->share}};
    if (o.sensitivity) {
      out["sensitivity"] = nlohmann::json::array();
      for (const auto& r : ranks)
        out["sensitivity"].push_back({{"unit", model::to_string(r.unit)},
                                      {"speedup", r.speedup},
                                      {"bottleneck_after", model::to_string(r.bottleneck_after)}});
    }
    fmt::print("{}\n", out.dump(2));
    return;
  }
  fmt::print("{} {} {} on {}\n\n", o.kernel, o.pass, describe(shape), changed.name);
  if (!scales.empty()) fmt::print("{}", side_by_side(base, after, best_base, best_after));
  if (o.sensitivity) fmt::print("{}", sensitivity_text(ranks));
}

void setup(CLI::App& app, Context& ctx) {
  auto o = std::make_shared<WhatifOptions>();
  CLI::App* c = app.add_subcommand(
      "whatif", "Predict on a GPU with scaled units (--scale mufu=2) and rank the units by how "
                "much a 10% improvement would pay (--sensitivity)");
  c->add_option("--gpu", o->gpu, "Hardware model to start from (fa4-analyze gpus lists them)");
  c->add_option("--kernel", o->kernel, "Algorithm: naive, fa2, fa3 or fa4");
  c->add_option("--pass", o->pass, "fwd or bwd");
  c->add_option("--scale", o->scales,
                "UNIT=FACTOR, repeatable; units: mma, mufu, fma, smem, hbm, clock, sms");
  c->add_option("--exp-emulation", o->exp_emulation,
                "Share of exp2 emulated on the FMA pipe, 0..1 (fa4; default the GPU's)");
  c->add_flag("--sensitivity", o->sensitivity,
              "Rank the units by the speedup a 10% improvement of each alone would give");
  c->add_flag("--json", o->json, "Print one JSON object");
  o->shape.add_to(*c);
  c->callback([&ctx, o] { run_whatif(ctx, *o); });
}

const SubcommandRegistration registration{25, setup};

}  // namespace
}  // namespace fa4::app
