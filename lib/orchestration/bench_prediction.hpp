// The model's prediction beside a bench measurement: the prediction of the measured kernel's
// model configuration (kernel_models.hpp) for the same shape on the device's hardware model,
// recorded in the bench run, with the measurement linked to it.
#pragma once

#include <cstdint>
#include <string_view>

#include "core/error.hpp"
#include "core/shape.hpp"
#include "hw/spec.hpp"
#include "store/store.hpp"

namespace fa4::orchestration {

// For an ok measurement `m` of `kernel` on `shape`: records the prediction in run `run_id` and
// sets m.prediction_id. Leaves `m` unlinked when it is not ok, when `gpu` (the device's hardware
// model) is null, or when the model refuses the shape. An Error for a kernel without a model
// configuration or a database error.
Status link_prediction(store::Store& db, std::int64_t run_id, const hw::Spec* gpu,
                       std::string_view kernel, const AttnShape& shape, store::Measurement& m);

}  // namespace fa4::orchestration
