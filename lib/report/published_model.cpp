// The model beside each published figure: the implementation the figure names (its kernel, the
// cuDNN release its source records, the date of its run) looked up in the model's profile table
// (lib/model/profiles.cpp, which holds every rule and its reason), and the prediction in TFLOP/s
// under the figure's own FLOP convention (the model predicts a time; the source's FLOPs divide it).
#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <string_view>

#include "core/stats.hpp"
#include "hw/loader.hpp"
#include "model/algorithm_traits.hpp"
#include "model/factors.hpp"
#include "model/profiles.hpp"
#include "report/published_model.hpp"

namespace fa4::report {
namespace {

// The cuDNN backend version the figure's source records ("cudnn_backend_version 92600" in its
// software line), or 0.
int cudnn_backend_version(const PublishedFigure& f) {
  constexpr std::string_view kKey = "cudnn_backend_version ";
  if (!f.provenance) return 0;
  const std::string& text = f.provenance->software;
  const std::size_t at = text.find(kKey);
  if (at == std::string::npos) return 0;
  int version = 0;
  const char* first = text.data() + at + kKey.size();
  std::from_chars(first, text.data() + text.size(), version);
  return version;
}

}  // namespace

double call_seconds(const PublishedFigure& f) {
  return f.provenance && !f.provenance->times_kernels ? model::factors::kFrameworkCallSeconds
                                                      : 0.0;
}

double timed_seconds(const PublishedFigure& f, const model::Options& o,
                     const model::Prediction& p) {
  // Only on the decode path: the terms of the other paths were fitted to these same kernel-timed
  // figures with the latency in their time (lib/model/NOTES.md, section 8).
  const bool kernels_only = f.provenance && f.provenance->times_kernels && o.decode;
  return p.time_s - (kernels_only ? p.launch_overhead_s : 0.0) + call_seconds(f);
}

model::Options as_measured(const PublishedFigure& f, model::Options options) {
  if (f.provenance && f.provenance->flushes_l2) options.after_l2_flush = true;
  return options;
}

model::Implementation implementation_of(const PublishedFigure& f) {
  model::Implementation out = model::parse_implementation(f.kernel);
  out.release = cudnn_backend_version(f);
  if (f.provenance) out.date = f.provenance->date;
  out.algorithm = f.modeled_as;
  return out;
}

ModeledAs modeled_as(const PublishedFigure& f, const hw::Spec& gpu) {
  model::Configured c = model::configure(implementation_of(f), gpu, f.shape, f.pass);
  if (c.options) c.options = as_measured(f, *c.options);
  return {c.options, c.not_modeled, c.masks_window_without_skipping};
}

double FigureVsModel::error_percent() const {
  return 100 * (*predicted_tflops - figure->tflops) / figure->tflops;
}

std::vector<FigureVsModel> compare_with_model(const std::vector<hw::Spec>& gpus,
                                              const std::vector<PublishedFigure>& figures) {
  std::vector<FigureVsModel> out;
  out.reserve(figures.size());
  for (const PublishedFigure& f : figures) {
    FigureVsModel row;
    row.figure = &f;
    auto gpu = hw::find_spec(gpus, f.model_gpu());
    if (!gpu) {
      row.not_modeled = fmt::format("no hardware model for {}", f.model_gpu());
      out.push_back(std::move(row));
      continue;
    }
    row.gpu_model = *gpu;
    ModeledAs as = modeled_as(f, **gpu);
    row.options = as.options;
    row.not_modeled = as.not_modeled;
    if (as.options) {
      AttnShape walked = f.shape;
      if (as.masks_window_without_skipping) walked.window = 0;
      auto p = model::predict(**gpu, walked, *as.options);
      if (p)
        row.predicted_tflops = published_flops(f) / timed_seconds(f, *as.options, *p) / 1e12;
      else
        row.not_modeled = p.error().message;
    }
    out.push_back(std::move(row));
  }
  return out;
}

ErrorSummary summarize_errors(const std::vector<const FigureVsModel*>& rows) {
  ErrorSummary out;
  std::vector<double> errors;
  for (const FigureVsModel* r : rows) {
    if (!r->predicted_tflops) continue;
    errors.push_back(std::abs(r->error_percent()));
    if (!out.worst || errors.back() > std::abs(out.worst_percent)) {
      out.worst = r;
      out.worst_percent = r->error_percent();
    }
  }
  out.count = int(errors.size());
  // The timing statistics' median (lib/core/stats.hpp) serves any list of numbers.
  if (!errors.empty()) out.median_abs_percent = summarize(std::move(errors)).median_s;
  return out;
}

std::string gpu_family(const hw::Spec& gpu) {
  if (model::is_hopper(gpu)) return "Hopper";
  if (model::is_blackwell(gpu)) return "Blackwell";
  return std::string(hw::to_string(gpu.architecture));
}

bool is_decode(const PublishedFigure& f) { return f.pass == Pass::fwd && f.shape.seqlen_q == 1; }

bool held_out(const PublishedFigure& f) { return f.role == "held_out" || f.role.empty(); }

bool within_bounds(const PublishedFigure& f) { return f.outside_bounds.empty(); }

}  // namespace fa4::report
