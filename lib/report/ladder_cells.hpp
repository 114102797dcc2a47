// What the ladder tables (report_ladder.cpp) and the training step (report_training_step.cpp)
// read from the measurements: one problem's ok measurements by kernel, each with the model's
// prediction linked to it, and the model's prediction for cuDNN (the closest algorithm of the
// model on the device's hardware model, by the rule of published_model.cpp).
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "hw/spec.hpp"
#include "store/store.hpp"

namespace fa4::report {

// One problem's ok measurements, by kernel.
class LadderCells {
 public:
  void add(const store::MeasurementRow& m) { rows_[m.kernel] = &m; }
  // The kernel's measurement, or nullptr.
  const store::MeasurementRow* at(std::string_view kernel) const;
  std::optional<double> tflops(std::string_view kernel) const;
  // An ablation's TFLOP/s over the kernel it ablates, when both were measured from the same
  // source revision: a kernel changed between two runs would make the ratio say nothing about
  // the feature the ablation takes away.
  std::optional<double> ablation_ratio(std::string_view ablation, std::string_view base) const;
  // The prediction linked to the kernel's measurement (bench records it), if any.
  std::optional<double> predicted(const std::string& kernel) const;
  // "run 2 of 2026-11-23T17:11:25Z (ours, rev 80025f9)": the run of the kernel's measurement.
  std::string run(const std::string& kernel) const;
  // Whether one of the measurements comes from the run that started at `started_at`.
  bool started(const std::string& started_at) const;
  auto begin() const { return rows_.begin(); }
  auto end() const { return rows_.end(); }

 private:
  std::map<std::string, const store::MeasurementRow*, std::less<>> rows_;
};

// "run 2 of 2026-11-23T17:11:25Z (ours, rev 80025f9)".
std::string run_label(const store::MeasurementRow& m);

// The model's TFLOP/s for cuDNN's kernel on one device: the algorithm that stands for cuDNN on the
// device's hardware model (fa3 on Hopper, fa4 on Blackwell), the kernel's time alone. The
// hardware model is the one our kernels' predictions on that device name.
class CudnnModel {
 public:
  CudnnModel(const std::vector<hw::Spec>& gpus, const std::vector<store::MeasurementRow>& rows,
             const std::string& device);
  explicit operator bool() const { return gpu_ != nullptr; }
  // For cuDNN's measurement `m` (its shape and pass); nothing when the model refuses it.
  std::optional<double> operator()(const store::MeasurementRow& m) const;
  const std::string& gpu_id() const;

 private:
  const hw::Spec* gpu_ = nullptr;
};

}  // namespace fa4::report
