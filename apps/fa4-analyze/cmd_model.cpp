// fa4-analyze model: the per-tile table, the bottleneck and the prediction for one shape.
#include <filesystem>
#include <memory>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "ceilings_option.hpp"
#include "context.hpp"
#include "hw/loader.hpp"
#include "model/describe.hpp"
#include "model/profiles.hpp"
#include "orchestration/kernel_models.hpp"
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
  // --profile: an implementation as the report models it (model/profiles.hpp).
  std::string profile;
  int release = 0;
  std::string run_date;
  bool list_profiles = false;
  const CLI::Option* kernel_given = nullptr;
};

void print_profiles() {
  for (const model::Profile& row : model::profiles())
    fmt::print("{}: {}\n", row.name, row.summary);
}

// The options of --profile, the flags given beside it on top; the rows it paid. A kernel that
// masks the window over the whole causal triangle walks the shape without it, as the report
// models it.
model::Options profile_options(const ModelOptions& o, const hw::Spec& gpu, AttnShape& shape,
                               std::vector<std::string_view>& paid) {
  model::Implementation implementation = model::parse_implementation(o.profile);
  implementation.release = o.release;
  implementation.date = o.run_date;
  if (o.kernel_given->count() > 0)
    implementation.algorithm = take(model::parse_algorithm(o.kernel));
  model::Configured c =
      orchestration::profile_options(implementation, gpu, shape, take(parse_pass(o.pass)));
  if (!c.options)
    throw UserError(fmt::format("--profile {}: {} (fa4-analyze model --profiles lists the rows)",
                                o.profile, c.not_modeled));
  if (c.masks_window_without_skipping) shape.window = 0;
  paid = std::move(c.paid);
  if (o.two_cta) c.options->two_cta = true;
  return *c.options;
}

void run_model(const Context& ctx, const ModelOptions& o) {
  const auto specs = take(hw::load_all_specs(ctx.models_dir));
  const hw::Spec gpu =
      apply_ceilings(ctx, specs, *take(hw::find_spec(specs, o.gpu)), o.ceilings);
  model::Options options;
  std::vector<std::string_view> paid;
  AttnShape shape = o.shape.shape();
  if (!o.profile.empty()) {
    options = profile_options(o, gpu, shape, paid);
  } else {
    options.algorithm = take(model::parse_algorithm(o.kernel));
    options.pass = take(parse_pass(o.pass));
    options.two_cta = o.two_cta;
  }
  if (!o.tile.empty()) options.tile = take(model::parse_tile(o.tile));
  if (o.exp_emulation) options.exp_emulation = o.exp_emulation;
  if (o.no_conditional_rescale) options.conditional_rescale = false;
  if (o.software_row_max) options.row_max_on_load = false;
  const model::Prediction p = take(model::predict(gpu, shape, options));
  if (o.json) {
    nlohmann::json out = model::prediction_json(p);
    if (!o.profile.empty()) out["profile"] = {{"name", o.profile}, {"paid", paid}};
    fmt::print("{}\n", out.dump(2));
  } else {
    if (!o.profile.empty())
      fmt::print("profile {}: {}\n", o.profile,
                 paid.empty() ? std::string("its algorithm's terms alone")
                              : fmt::format("{}", fmt::join(paid, "; ")));
    fmt::print("{}", model::prediction_text(gpu, p));
  }
}

void setup(CLI::App& app, Context& ctx) {
  auto o = std::make_shared<ModelOptions>();
  CLI::App* c = app.add_subcommand("model", "Per-tile unit cycles, bottleneck and predicted time "
                                            "of one attention kernel on one GPU model");
  c->add_option("--gpu", o->gpu, "Hardware model (fa4-analyze gpus lists them)");
  o->kernel_given = c->add_option("--kernel", o->kernel, "Algorithm: naive, fa2, fa3 or fa4");
  c->add_option("--profile", o->profile,
                "An implementation as the report models it: a published kernel (cudnn, "
                "cudnn-deterministic, fa4-1cta, sdpa-flash...) or 'our KERNEL' (fa4-analyze "
                "kernels); --kernel then overrides its algorithm");
  c->add_option("--release", o->release,
                "With --profile: the cuDNN backend version of the run (92600; default: none)");
  c->add_option("--run-date", o->run_date,
                "With --profile: the run's date, YYYY-MM-DD (default: none)");
  c->add_flag("--profiles", o->list_profiles, "List the profile table's rows and exit");
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
  c->callback([&ctx, o] { o->list_profiles ? print_profiles() : run_model(ctx, *o); });
}

const SubcommandRegistration registration{20, setup};

}  // namespace
}  // namespace fa4::app
