// predict's loop: every (GPU, algorithm, pass, shape) of a plan modelled and recorded as one run,
// a bounded batch at a time inside one transaction, so that a sweep of any size runs in bounded
// memory and a failure (or a kill) records nothing.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/shape.hpp"
#include "hw/spec.hpp"
#include "model/model.hpp"
#include "store/store.hpp"

namespace fa4::orchestration {

struct PredictPlan {
  std::vector<hw::Spec> gpus;
  std::vector<model::Algorithm> algorithms;
  std::vector<Pass> passes;
  std::vector<AttnShape> shapes;  // each once
};

struct PredictOutcome {
  std::int64_t run_id = 0;
  std::size_t recorded = 0;
  std::vector<std::string> cannot_run;  // "fa4 on a100-sxm: why", one per pair that cannot run
  std::size_t refused = 0;              // (shape, pass) combinations the model refused
  std::string first_refusal;            // the model's reason for the first of them
};

// Predictions held in memory at once: large enough that SQLite's per-batch cost vanishes, small
// enough (a few MB with their factors) that memory does not grow with the sweep.
inline constexpr std::size_t kPredictionBatch = 4096;

// The most predictions a plan may hold (for the progress line's total).
std::size_t planned_predictions(const PredictPlan& plan);

// Models the plan and records it as run `info`. The database is opened by `open` only at the
// first prediction: a plan that models nothing is an Error naming each pair that cannot run and
// the model's first refusal, and touches no database. `progress(done)` is called after each batch
// with the combinations done so far (of planned_predictions).
Result<PredictOutcome> predict_and_record(const PredictPlan& plan, const store::RunInfo& info,
                                          const std::function<Result<store::Store>()>& open,
                                          const std::function<void(std::size_t)>& progress);

}  // namespace fa4::orchestration
