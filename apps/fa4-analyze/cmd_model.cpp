// fa4-analyze model: the per-tile table, the bottleneck and the prediction for one shape; with
// several GPUs (--gpu h100,h200,b200 or all) the predictions side by side with why each differs.
#include <filesystem>
#include <memory>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "ceilings_option.hpp"
#include "context.hpp"
#include "gpu_list.hpp"
#include "gpu_predictions.hpp"
#include "hw/loader.hpp"
#include "model/describe.hpp"
#include "model/profiles.hpp"
#include "orchestration/kernel_models.hpp"
#include "report/table_format.hpp"
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
  bool json = false, csv = false;
  bool factors = false;
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

// The prediction on `gpu` (`model`'s figures, or its measured ceilings) with its profile's rows;
// throws UserError when the model refuses.
GpuPrediction predict_on(const ModelOptions& o, const hw::Spec& model, const hw::Spec& gpu) {
  GpuPrediction out;
  out.gpu = &model;
  out.profile = o.profile;
  model::Options options;
  AttnShape shape = o.shape.shape();
  if (!o.profile.empty()) {
    options = profile_options(o, gpu, shape, out.paid);
  } else {
    options.algorithm = take(model::parse_algorithm(o.kernel));
    options.pass = take(parse_pass(o.pass));
    options.two_cta = o.two_cta;
  }
  if (!o.tile.empty()) options.tile = take(model::parse_tile(o.tile));
  if (o.exp_emulation) options.exp_emulation = o.exp_emulation;
  if (o.no_conditional_rescale) options.conditional_rescale = false;
  if (o.software_row_max) options.row_max_on_load = false;
  out.prediction = take(model::predict(gpu, shape, options));
  return out;
}

void print_one(const Context& ctx, const ModelOptions& o, const std::vector<hw::Spec>& specs,
               const hw::Spec& model) {
  const hw::Spec gpu = apply_ceilings(ctx, specs, model, o.ceilings);
  const GpuPrediction p = predict_on(o, model, gpu);
  if (o.csv) {
    fmt::print("{}", report::format_csv(by_gpu_rows({{p}, {}})));
  } else if (o.json) {
    nlohmann::json out = model::prediction_json(p.prediction);
    if (!o.profile.empty()) out["profile"] = {{"name", o.profile}, {"paid", p.paid}};
    fmt::print("{}\n", out.dump(2));
  } else {
    if (o.profile.empty())
      fmt::print(
          "profile: none, {}'s analytic core (--profile NAME models an implementation, "
          "--profiles lists them)\n",
          model::to_string(p.prediction.algorithm));
    else
      fmt::print("{}\n", profile_line(p));
    fmt::print("{}", model::prediction_text(gpu, p.prediction));
    if (o.factors) fmt::print("\n{}", model::factors_text(p.prediction));
  }
}

// Several GPUs side by side: those the model refuses are listed with why (on standard error
// beside CSV), the rest predicted; every GPU refused is an error.
void print_several(const Context& ctx, const ModelOptions& o, const std::vector<hw::Spec>& specs,
                   const std::vector<const hw::Spec*>& gpus) {
  ByGpu by_gpu;
  for (const hw::Spec* gpu : gpus) {
    try {
      by_gpu.predictions.push_back(
          predict_on(o, *gpu, apply_ceilings(ctx, specs, *gpu, o.ceilings)));
    } catch (const UserError& e) {
      by_gpu.refused.push_back({gpu->id, e.what()});
    }
  }
  if (by_gpu.predictions.empty())
    throw UserError(fmt::format("the model refused every GPU of --gpu {}: {}: {}", o.gpu,
                                by_gpu.refused.front().gpu, by_gpu.refused.front().reason));
  if (o.csv) {
    fmt::print("{}", report::format_csv(by_gpu_rows(by_gpu)));
    for (const GpuRefusal& r : by_gpu.refused)
      fmt::print(stderr, "model: {} refused: {}\n", r.gpu, r.reason);
  } else if (o.json) {
    fmt::print("{}\n", by_gpu_json(by_gpu).dump(2));
  } else {
    fmt::print("{}", by_gpu_text(by_gpu));
  }
}

void run_model(const Context& ctx, const ModelOptions& o) {
  if (o.json && o.csv) throw UserError("choose one of --json and --csv");
  const auto specs = take(hw::load_all_specs(ctx.models_dir));
  const auto gpus = find_gpus(specs, o.gpu);
  if (gpus.size() == 1 && o.gpu != "all")
    print_one(ctx, o, specs, *gpus.front());
  else
    print_several(ctx, o, specs, gpus);
}

void setup(CLI::App& app, Context& ctx) {
  auto o = std::make_shared<ModelOptions>();
  CLI::App* c = app.add_subcommand("model", "Per-tile unit cycles, bottleneck and predicted time "
                                            "of one attention kernel on one GPU model");
  c->add_option("--gpu", o->gpu,
                fmt::format("Hardware model (fa4-analyze gpus lists them), or {}", kGpuListHelp));
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
  c->add_flag("--factors", o->factors,
              "List the factors that are not hardware rates, each with what it was fitted to");
  c->add_flag("--json", o->json, "Print one JSON object");
  c->add_flag("--csv", o->csv, "Print a CSV row per GPU (with why each differs from the first)");
  add_ceilings_option(*c, o->ceilings);
  o->shape.add_to(*c);
  c->callback([&ctx, o] { o->list_profiles ? print_profiles() : run_model(ctx, *o); });
}

const SubcommandRegistration registration{20, setup};

}  // namespace
}  // namespace fa4::app
