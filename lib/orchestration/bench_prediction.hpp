// The model's prediction beside a measurement of one of our kernels: the prediction of the
// kernel's model configuration (kernel_models.hpp) for the same shape on the device's hardware
// model, recorded in the bench run with the measurement linked to it, and made again by the
// current model where a report shows the measurement.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "core/error.hpp"
#include "core/shape.hpp"
#include "hw/spec.hpp"
#include "model/model.hpp"
#include "store/store.hpp"

namespace fa4::orchestration {

// The model's prediction for registered `kernel` (its model configuration) on `shape` on `gpu`:
// an Error for a kernel without a model configuration, or the model's refusal.
Result<model::Prediction> predict_kernel(const hw::Spec& gpu, std::string_view kernel,
                                         const AttnShape& shape);

// For an ok measurement `m` of `kernel` on `shape`: records the prediction in run `run_id` and
// sets m.prediction_id. Leaves `m` unlinked when it is not ok, when `gpu` (the device's hardware
// model) is null, or when the model refuses the shape. An Error for a kernel without a model
// configuration or a database error.
Status link_prediction(store::Store& db, std::int64_t run_id, const hw::Spec* gpu,
                       std::string_view kernel, const AttnShape& shape, store::Measurement& m);

// Replaces the prediction stored beside each of our ok measurements (the model of the day it was
// measured) by the current model's, on the hardware model bench matched to the device
// (predicted_gpu), so that a report shows the model as it is now: 0 (no prediction) where the
// kernel has no model configuration any more, the hardware model is gone or the model refuses the
// shape. Peers' measurements are left as they are.
void predict_again(std::vector<store::MeasurementRow>& measurements,
                   const std::vector<hw::Spec>& specs);

}  // namespace fa4::orchestration
