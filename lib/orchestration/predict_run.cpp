#include "orchestration/predict_run.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <optional>

#include "model/algorithm_traits.hpp"

namespace fa4::orchestration {

std::size_t planned_predictions(const PredictPlan& plan) {
  return plan.gpus.size() * plan.algorithms.size() * plan.passes.size() * plan.shapes.size();
}

Result<PredictOutcome> predict_and_record(const PredictPlan& plan, const store::RunInfo& info,
                                          const std::function<Result<store::Store>()>& open,
                                          const std::function<void(std::size_t)>& progress) {
  PredictOutcome out;
  std::optional<store::Store> db;  // opened at the first batch; outlives the writer
  std::optional<store::PredictionRunWriter> writer;
  std::vector<model::Prediction> batch;
  batch.reserve(kPredictionBatch);
  std::size_t done = 0;
  const auto flush = [&]() -> Status {
    if (batch.empty()) return Ok{};
    if (!writer) {
      auto opened = open();
      if (!opened) return opened.error();
      db.emplace(std::move(opened).value());
      auto begun = db->begin_prediction_run(info);
      if (!begun) return begun.error();
      writer.emplace(std::move(begun).value());
    }
    if (auto added = writer->add(batch); !added) return added;
    batch.clear();
    progress(done);
    return Ok{};
  };
  for (const hw::Spec& gpu : plan.gpus)
    for (model::Algorithm algorithm : plan.algorithms) {
      if (auto reason = model::unsupported_reason(gpu, algorithm)) {
        out.cannot_run.push_back(
            fmt::format("{} on {}: {}", model::to_string(algorithm), gpu.id, *reason));
        done += plan.passes.size() * plan.shapes.size();
        continue;
      }
      for (Pass pass : plan.passes)
        for (const AttnShape& shape : plan.shapes) {
          ++done;
          model::Options options;
          options.algorithm = algorithm;
          options.pass = pass;
          auto p = model::predict(gpu, shape, options);
          if (!p) {
            if (out.first_refusal.empty()) out.first_refusal = p.error().message;
            ++out.refused;
            continue;
          }
          batch.push_back(std::move(p).value());
          if (batch.size() == kPredictionBatch)
            if (auto flushed = flush(); !flushed) return flushed.error();
        }
    }
  if (auto flushed = flush(); !flushed) return flushed.error();
  if (!writer) {
    std::vector<std::string> reasons = out.cannot_run;
    if (!out.first_refusal.empty()) reasons.push_back(out.first_refusal);
    return Error{
        fmt::format("nothing to model: {}; choose kernels and GPUs that run together "
                    "(fa4-analyze kernels lists them)",
                    fmt::join(reasons, "; "))};
  }
  out.recorded = writer->recorded();
  auto run_id = writer->commit();
  if (!run_id) return run_id.error();
  out.run_id = *run_id;
  return out;
}

}  // namespace fa4::orchestration
