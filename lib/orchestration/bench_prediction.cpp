#include "orchestration/bench_prediction.hpp"

#include "hw/loader.hpp"
#include "model/model.hpp"
#include "orchestration/kernel_models.hpp"

namespace fa4::orchestration {

Result<model::Prediction> predict_kernel(const hw::Spec& gpu, std::string_view kernel,
                                         const AttnShape& shape) {
  const Result<const KernelModel*> entry = find_kernel_model(kernel);
  if (!entry) return entry.error();
  return model::predict(gpu, shape, model_options(**entry, shape));
}

Status link_prediction(store::Store& db, std::int64_t run_id, const hw::Spec* gpu,
                       std::string_view kernel, const AttnShape& shape, store::Measurement& m) {
  if (const Result<const KernelModel*> entry = find_kernel_model(kernel); !entry)
    return entry.error();
  if (m.status != store::MeasurementStatus::ok || !gpu) return Ok{};
  const Result<model::Prediction> p = predict_kernel(*gpu, kernel, shape);
  if (!p) return Ok{};
  const auto ids = db.record_predictions(run_id, {*p});
  if (!ids) return ids.error();
  m.prediction_id = ids->at(0);
  return Ok{};
}

void predict_again(std::vector<store::MeasurementRow>& measurements,
                   const std::vector<hw::Spec>& specs) {
  for (store::MeasurementRow& m : measurements) {
    if (!m.ours() || !m.ok() || m.predicted_gpu.empty()) continue;
    const Result<const hw::Spec*> gpu = hw::find_spec(specs, m.predicted_gpu);
    const Result<model::Prediction> p =
        gpu ? predict_kernel(**gpu, m.kernel, m.shape) : Result<model::Prediction>(gpu.error());
    m.predicted_tflops = p ? p->tflops : 0;
  }
}

}  // namespace fa4::orchestration
