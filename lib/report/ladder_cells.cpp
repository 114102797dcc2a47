#include "report/ladder_cells.hpp"

#include <fmt/format.h>

#include "hw/loader.hpp"
#include "report/published.hpp"
#include "report/rungs.hpp"

namespace fa4::report {

const store::MeasurementRow* LadderCells::at(std::string_view kernel) const {
  const auto it = rows_.find(kernel);
  return it == rows_.end() ? nullptr : it->second;
}

std::optional<double> LadderCells::tflops(std::string_view kernel) const {
  const store::MeasurementRow* m = at(kernel);
  if (!m || !m->ok() || m->tflops <= 0) return std::nullopt;
  return m->tflops;
}

std::optional<double> LadderCells::ablation_ratio(std::string_view ablation,
                                                  std::string_view base) const {
  const auto t = tflops(ablation), b = tflops(base);
  if (!t || !b || at(ablation)->revision != at(base)->revision) return std::nullopt;
  return *t / *b;
}

std::optional<double> LadderCells::predicted(const std::string& kernel) const {
  const store::MeasurementRow* m = at(kernel);
  if (!m || m->predicted_tflops <= 0) return std::nullopt;
  return m->predicted_tflops;
}

std::string LadderCells::run(const std::string& kernel) const {
  const store::MeasurementRow* m = at(kernel);
  return m ? run_label(*m) : "";
}

bool LadderCells::started(const std::string& started_at) const {
  for (const auto& [kernel, m] : rows_)
    if (m->started_at == started_at) return true;
  return false;
}

std::string run_label(const store::MeasurementRow& m) {
  return fmt::format("run {} of {} ({}, rev {})", m.run_id, m.started_at, m.source, m.revision);
}

CudnnModel::CudnnModel(const std::vector<hw::Spec>& gpus,
                       const std::vector<store::MeasurementRow>& rows, const std::string& device) {
  for (const store::MeasurementRow& m : rows)
    if (m.device == device && !m.predicted_gpu.empty())
      if (auto spec = hw::find_spec(gpus, m.predicted_gpu)) {
        gpu_ = *spec;
        return;
      }
}

const std::string& CudnnModel::gpu_id() const {
  static const std::string none;
  return gpu_ ? gpu_->id : none;
}

std::optional<double> CudnnModel::operator()(const store::MeasurementRow& m) const {
  if (!gpu_) return std::nullopt;
  PublishedFigure figure;  // cuDNN's figure as the published record would hold it
  figure.kernel = "sdpa-cudnn";
  figure.gpu = gpu_->id;
  figure.pass = m.pass;
  figure.shape = m.shape;
  const ModeledAs as = modeled_as(figure, *gpu_);
  if (!as.options) return std::nullopt;
  const auto p = model::predict(*gpu_, m.shape, *as.options);
  if (!p) return std::nullopt;
  return attention_flops(m.shape, m.pass) / p->time_s / 1e12;
}

}  // namespace fa4::report
