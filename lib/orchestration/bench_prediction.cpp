#include "orchestration/bench_prediction.hpp"

#include "model/model.hpp"
#include "orchestration/kernel_models.hpp"

namespace fa4::orchestration {

Status link_prediction(store::Store& db, std::int64_t run_id, const hw::Spec* gpu,
                       std::string_view kernel, const AttnShape& shape, store::Measurement& m) {
  const Result<const KernelModel*> entry = find_kernel_model(kernel);
  if (!entry) return entry.error();
  if (m.status != store::MeasurementStatus::ok || !gpu) return Ok{};
  const Result<model::Prediction> p = model::predict(*gpu, shape, model_options(**entry, shape));
  if (!p) return Ok{};
  const auto ids = db.record_predictions(run_id, {*p});
  if (!ids) return ids.error();
  m.prediction_id = ids->at(0);
  return Ok{};
}

}  // namespace fa4::orchestration
