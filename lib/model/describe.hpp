// A prediction as people and programs read it: the per-tile table with the bottleneck and the
// kernel-level figures as text, and the same as one JSON object.
#pragma once

#include <string>

#include <nlohmann/json_fwd.hpp>

#include "hw/spec.hpp"
#include "model/model.hpp"

namespace fa4::model {

// The tiles, the bottleneck, the prediction and the terms paid; the factors in one line.
std::string prediction_text(const hw::Spec& gpu, const Prediction& p);
// The factors that are not hardware rates, one line each with what it was fitted to.
std::string factors_text(const Prediction& p);

// At least tile.cycles.{mma,exp_mufu,exp_fma,fma,smem,tmem,hbm}, tile.bottleneck,
// predicted.{time_ms,tflops,fraction_of_peak}, plus the shape, the options and the factors.
nlohmann::json prediction_json(const Prediction& p);

}  // namespace fa4::model
