// fa4-analyze predict: model whole sweeps on GPU models and record every prediction.
#include <filesystem>
#include <memory>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "open_store.hpp"
#include "ceilings_option.hpp"
#include "context.hpp"
#include "core/count_noun.hpp"
#include "core/sweep.hpp"
#include "hw/loader.hpp"
#include "model/algorithm_traits.hpp"
#include "run_info.hpp"
#include "store/store.hpp"
#include "user_error.hpp"

namespace fa4::app {
namespace {

struct PredictOptions {
  std::vector<std::string> sweeps;
  std::vector<std::string> gpus{"all"};
  std::vector<std::string> kernels{"all"};
  std::vector<std::string> passes{"fwd", "bwd"};
  std::string ceilings = "datasheet";
};

std::vector<hw::Spec> pick_gpus(const Context& ctx, const std::vector<hw::Spec>& specs,
                                const PredictOptions& o) {
  std::vector<hw::Spec> out;
  if (o.gpus.size() == 1 && o.gpus[0] == "all") {
    for (const auto& s : specs) out.push_back(apply_ceilings(ctx, specs, s, o.ceilings));
    return out;
  }
  for (const auto& name : o.gpus)
    out.push_back(apply_ceilings(ctx, specs, *take(hw::find_spec(specs, name)), o.ceilings));
  return out;
}

std::vector<model::Algorithm> pick_kernels(const std::vector<std::string>& names) {
  if (names.size() == 1 && names[0] == "all")
    return {model::kAllAlgorithms.begin(), model::kAllAlgorithms.end()};
  std::vector<model::Algorithm> out;
  for (const auto& name : names) out.push_back(take(model::parse_algorithm(name)));
  return out;
}

void run_predict(const Context& ctx, const PredictOptions& o) {
  const auto specs = take(hw::load_all_specs(ctx.models_dir));
  const auto gpus = pick_gpus(ctx, specs, o);
  const auto kernels = pick_kernels(o.kernels);
  std::vector<Pass> passes;
  for (const auto& p : o.passes) passes.push_back(take(parse_pass(p)));
  std::vector<AttnShape> shapes;
  std::set<AttnShape> seen;
  std::size_t repeated = 0;  // a shape given again, in the same sweep or another
  for (const auto& file : o.sweeps)
    for (const AttnShape& shape : take(load_sweep(file)).shapes) {
      if (seen.insert(shape).second)
        shapes.push_back(shape);
      else
        ++repeated;
    }

  // Model everything first, then record it in one transaction: a failure records nothing.
  std::vector<model::Prediction> predictions;
  std::size_t skipped = 0;
  std::string first_skip;
  std::vector<std::string> cannot_run;  // "fa4 on a100-sxm: why"
  for (const hw::Spec& gpu : gpus)
    for (model::Algorithm algorithm : kernels) {
      if (auto reason = model::unsupported_reason(gpu, algorithm)) {
        cannot_run.push_back(
            fmt::format("{} on {}: {}", model::to_string(algorithm), gpu.id, *reason));
        continue;
      }
      for (Pass pass : passes)
        for (const AttnShape& shape : shapes) {
          model::Options options;
          options.algorithm = algorithm;
          options.pass = pass;
          auto p = model::predict(gpu, shape, options);
          if (!p) {
            if (first_skip.empty()) first_skip = p.error().message;
            ++skipped;
            continue;
          }
          predictions.push_back(std::move(p).value());
        }
    }
  if (predictions.empty())
    throw UserError(fmt::format(
        "nothing to model: {}{}; choose kernels and GPUs that run together (fa4-analyze kernels "
        "lists them)",
        fmt::join(cannot_run, "; "),
        first_skip.empty() ? "" : (cannot_run.empty() ? "" : "; ") + first_skip));
  std::string devices;
  for (const hw::Spec& gpu : gpus) devices += (devices.empty() ? "" : ",") + gpu.id;
  auto db = open_store(ctx);
  store::RunInfo info = current_run_info(store::RunKind::predict, ctx, devices);
  if (o.ceilings == "measured") info.notes = "unit ceilings measured on the GPU (--ceilings measured)";
  const auto run_id = take(db.record_prediction_run(info, predictions));
  fmt::print("run {}: recorded {} ({}, {}) in {}\n", run_id,
             count_noun(predictions.size(), "prediction"), count_noun(gpus.size(), "GPU model"),
             count_noun(o.sweeps.size(), "sweep"), ctx.db_path);
  if (repeated)
    fmt::print(
        "{} modelled once: a shape is predicted once per command however often the "
        "sweeps give it\n",
        count_noun(repeated, "repeated shape"));
  for (const std::string& pair : cannot_run) fmt::print("skipped {}\n", pair);
  if (skipped)
    fmt::print("skipped {} the model refuses, e.g.: {}\n",
               count_noun(skipped, "(shape, kernel, GPU, pass) combination"), first_skip);
}

void setup(CLI::App& app, Context& ctx) {
  auto o = std::make_shared<PredictOptions>();
  CLI::App* c = app.add_subcommand("predict", "Model whole sweeps on GPU models and record every "
                                              "prediction in the results database");
  c->add_option("--sweep", o->sweeps, "Sweep file(s), e.g. data/sweeps/fa3-paper.json")
      ->required();
  c->add_option("--gpu", o->gpus, "Hardware models, or all")->delimiter(',');
  c->add_option("--kernel", o->kernels, "Algorithms (naive, fa2, fa3, fa4), or all")->delimiter(',');
  c->add_option("--pass", o->passes, "fwd, bwd or both")->delimiter(',');
  add_ceilings_option(*c, o->ceilings);
  c->callback([&ctx, o] { run_predict(ctx, *o); });
}

const SubcommandRegistration registration{30, setup};

}  // namespace
}  // namespace fa4::app
