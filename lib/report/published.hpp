// The published figures (store/published_figures.hpp) beside the model: how each is modeled, its
// prediction and error, and the error over groups of them.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/shape.hpp"
#include "hw/spec.hpp"
#include "model/model.hpp"
#include "store/published_figures.hpp"

namespace fa4::report {

using published::check_against_models;
using published::FlopCount;
using published::load_published;
using published::load_published_dir;
using published::load_published_tree;
using published::Provenance;
using published::published_flops;
using published::PublishedFigure;

// --- The model beside each figure ---------------------------------------------------------

// The model's configuration for a figure: the algorithm closest to the published kernel on the
// GPU model of its machine (published_model.cpp has the rule), or why the model has none.
struct ModeledAs {
  std::optional<model::Options> options;
  std::string not_modeled;  // the reason, when options is empty
  // The kernel walks every block of the causal triangle and masks the sliding window there,
  // skipping none (cuDNN's fp8 backward on Blackwell): modeled as the shape without its window,
  // over the figure's own FLOPs.
  bool masks_window_without_skipping = false;
};
ModeledAs modeled_as(const PublishedFigure& figure, const hw::Spec& gpu);

// One figure with the model's prediction, in TFLOP/s under the figure's own FLOP convention (the
// model predicts a time; published_flops / time). What the report's tables and charts use.
struct FigureVsModel {
  const PublishedFigure* figure = nullptr;
  const hw::Spec* gpu_model = nullptr;     // the hardware model of its machine, if any
  std::optional<model::Options> options;   // how it was modeled
  std::optional<double> predicted_tflops;  // nothing when not modeled or the model refused
  std::string not_modeled;                 // why, when predicted_tflops is empty
  double published_tflops() const { return figure->tflops; }
  // (predicted - published) / published, in percent; only with a prediction.
  double error_percent() const;
  const std::string& gpu() const { return figure->gpu; }
  Pass pass() const { return figure->pass; }
  const std::string& role() const { return figure->role; }
};
std::vector<FigureVsModel> compare_with_model(const std::vector<hw::Spec>& gpus,
                                              const std::vector<PublishedFigure>& figures);
// The rows point into `figures`: a temporary would leave them dangling.
std::vector<FigureVsModel> compare_with_model(const std::vector<hw::Spec>& gpus,
                                              std::vector<PublishedFigure>&& figures) = delete;

// The model's error over some compared figures (those with a prediction): how many, the median
// of |error| and the worst error (signed), in percent, and the figure of the worst.
struct ErrorSummary {
  int count = 0;
  double median_abs_percent = 0;
  double worst_percent = 0;
  const FigureVsModel* worst = nullptr;
};
ErrorSummary summarize_errors(const std::vector<const FigureVsModel*>& rows);

// "Hopper", "Blackwell" (Blackwell Ultra included) or the architecture's own name.
std::string gpu_family(const hw::Spec& gpu);

// Whether the figure is a decode step (one query row per sequence, forward): its error is held
// apart from the training shapes' (the record's held-out bounds, the report's table).
bool is_decode(const PublishedFigure& figure);

// Whether no model factor may be fitted to the figure: role "held_out", or none given.
bool held_out(const PublishedFigure& figure);
// Whether the figure counts toward the error bounds: it names no outside_bounds reason.
bool within_bounds(const PublishedFigure& figure);

}  // namespace fa4::report
