// fa4-analyze predict: model whole sweeps on GPU models and record every prediction.
#include <filesystem>
#include <memory>
#include <set>

#include <fmt/format.h>

#include "open_store.hpp"
#include "ceilings_option.hpp"
#include "context.hpp"
#include "core/count_noun.hpp"
#include "core/sweep.hpp"
#include "hw/loader.hpp"
#include "orchestration/predict_run.hpp"
#include "progress.hpp"
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
  orchestration::PredictPlan plan;
  plan.gpus = pick_gpus(ctx, specs, o);
  plan.algorithms = pick_kernels(o.kernels);
  for (const auto& p : o.passes) plan.passes.push_back(take(parse_pass(p)));
  std::set<AttnShape> seen;
  std::size_t repeated = 0;            // a shape given again, in the same sweep or another
  std::vector<std::string> roundings;  // the grids whose batch was rounded
  for (const auto& file : o.sweeps) {
    const Sweep sweep = take(load_sweep(file));
    if (sweep.rounding_note) roundings.push_back(*sweep.rounding_note);
    for (const AttnShape& shape : sweep.shapes) {
      if (seen.insert(shape).second)
        plan.shapes.push_back(shape);
      else
        ++repeated;
    }
  }

  std::string devices;
  for (const hw::Spec& gpu : plan.gpus) devices += (devices.empty() ? "" : ",") + gpu.id;
  store::RunInfo info = current_run_info(store::RunKind::predict, ctx, devices);
  if (o.ceilings == "measured") info.notes = "unit ceilings measured on the GPU (--ceilings measured)";
  const auto out = [&] {
    Progress progress("(shape, kernel, GPU, pass) combinations",
                      orchestration::planned_predictions(plan));  // erased before the summary
    return take(orchestration::predict_and_record(
        plan, info, [&ctx]() -> Result<store::Store> { return open_store(ctx); },
        [&progress](std::size_t done) { progress.update(done); }));
  }();
  fmt::print("run {}: recorded {} ({}, {}) in {}\n", out.run_id,
             count_noun(out.recorded, "prediction"), count_noun(plan.gpus.size(), "GPU model"),
             count_noun(o.sweeps.size(), "sweep"), ctx.db_path);
  if (repeated)
    fmt::print(
        "{} modelled once: a shape is predicted once per command however often the "
        "sweeps give it\n",
        count_noun(repeated, "repeated shape"));
  for (const std::string& note : roundings) fmt::print("note: {}\n", note);
  for (const std::string& pair : out.cannot_run) fmt::print("skipped {}\n", pair);
  if (out.refused)
    fmt::print("skipped {} the model refuses, e.g.: {}\n",
               count_noun(out.refused, "(shape, kernel, GPU, pass) combination"),
               out.first_refusal);
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
