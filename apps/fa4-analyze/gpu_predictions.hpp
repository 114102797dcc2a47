// One kernel on one problem predicted on several GPUs, side by side: a text table with a column
// per GPU (the per-tile cycles, the bounds, time, TFLOP/s, share of peak) and a line per GPU on why
// it differs from the first; a CSV row per GPU; one JSON object. What model --gpu A,B,C prints.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "hw/spec.hpp"
#include "model/model.hpp"
#include "report/table.hpp"

namespace fa4::app {

struct GpuPrediction {
  const hw::Spec* gpu = nullptr;
  model::Prediction prediction;
  std::string profile;                // --profile's name, or empty
  std::vector<std::string_view> paid;  // the profile rows it paid
};
struct GpuRefusal {
  std::string gpu;
  std::string reason;
};
struct ByGpu {
  std::vector<GpuPrediction> predictions;  // in --gpu's order; the first is the others' baseline
  std::vector<GpuRefusal> refused;         // the GPUs the model refused, with why
};

// "profile cudnn: the rows it paid" (or "its algorithm's terms alone").
std::string profile_line(const GpuPrediction& prediction);

// The title line, the notes, the table, the refusals and the difference lines.
std::string by_gpu_text(const ByGpu& by_gpu);
// A row per GPU: gpu, kernel, pass, problem, tile, the tile cycles, the bounds, time_ms, tflops,
// fraction_of_peak and why (the difference from the first GPU; empty on the first).
report::Table by_gpu_rows(const ByGpu& by_gpu);
// {"gpus": [prediction_json...], "refused": [{gpu, reason}], "differences": [{gpu, against, why}]}
nlohmann::json by_gpu_json(const ByGpu& by_gpu);

}  // namespace fa4::app
