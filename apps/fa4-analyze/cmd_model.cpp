// fa4-analyze model: the per-tile table, the bottleneck and the prediction for one shape.
#include <filesystem>
#include <memory>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "ceilings_option.hpp"
#include "context.hpp"
#include "hw/loader.hpp"
#include "model/describe.hpp"
#include "shape_options.hpp"
#include "user_error.hpp"

namespace fa4::app {
namespace {

struct ModelOptions {
  std::string gpu = "h100-sxm";
  std::string kernel = "fa4";
  std::string pass = "fwd";
  std::string tile;
  std::optional<double> exp_emulation;
  bool no_conditional_rescale = false;
  bool software_row_max = false;
  bool two_cta = false;
  bool json = false;
  std::string ceilings = "datasheet";
  ShapeOptions shape;
};

void run_model(const Context& ctx, const ModelOptions& o) {
  const auto specs = take(hw::load_all_specs(ctx.models_dir));
  const hw::Spec gpu =
      apply_ceilings(ctx, specs, *take(hw::find_spec(specs, o.gpu)), o.ceilings);
  model::Options options;
  options.algorithm = take(model::parse_algorithm(o.kernel));
  options.pass = take(parse_pass(o.pass));
  if (!o.tile.empty()) options.tile = take(model::parse_tile(o.tile));
  options.exp_emulation = o.exp_emulation;
  if (o.no_conditional_rescale) options.conditional_rescale = false;
  if (o.software_row_max) options.row_max_on_load = false;
  options.two_cta = o.two_cta;
  const model::Prediction p = take(model::predict(gpu, o.shape.shape(), options));
  if (o.json)
    fmt::print("{}\n", model::prediction_json(p).dump(2));
  else
    fmt::print("{}", model::prediction_text(gpu, p));
}

void setup(CLI::App& app, Context& ctx) {
  auto o = std::make_shared<ModelOptions>();
  CLI::App* c = app.add_subcommand("model", "Per-tile unit cycles, bottleneck and predicted time "
                                            "of one attention kernel on one GPU model");
  c->add_option("--gpu", o->gpu, "Hardware model (fa4-analyze gpus lists them)");
  c->add_option("--kernel", o->kernel, "Algorithm: naive, fa2, fa3 or fa4");
  c->add_option("--pass", o->pass, "fwd or bwd");
  c->add_option("--tile", o->tile, "Tile MxN (default: the algorithm's own choice)");
  c->add_option("--exp-emulation", o->exp_emulation,
                "Share of exp2 emulated on the FMA pipe, 0..1 (fa4; default 0.125, 0 on B300)");
  c->add_flag("--no-conditional-rescale", o->no_conditional_rescale,
              "Rescale O on every tile (fa4; default: conditional, threshold 8)");
  c->add_flag("--software-row-max", o->software_row_max,
              "Take each row's max in software, not from the tensor-memory load (fa4 forward; "
              "default: from the load on B300 and GB300)");
  c->add_flag("--two-cta", o->two_cta, "FA4 backward in 2-CTA mode (Blackwell)");
  c->add_flag("--json", o->json, "Print one JSON object");
  add_ceilings_option(*c, o->ceilings);
  o->shape.add_to(*c);
  c->callback([&ctx, o] { run_model(ctx, *o); });
}

const SubcommandRegistration registration{20, setup};

}  // namespace
}  // namespace fa4::app
