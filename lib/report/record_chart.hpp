// The chart of the published record against the model: per GPU model, each record figure the
// model predicts as one point (published TFLOP/s across, model TFLOP/s up; logarithmic where they
// span a decade), the held-out, fit and out-of-bounds figures apart, with the y = x line and the
// +-10% band.
#pragma once

#include <vector>

#include "report/chart.hpp"
#include "report/published.hpp"

namespace fa4::report {

// A figure named "record-vs-model", one panel per GPU model with a predicted record figure.
Figure record_chart(const std::vector<const FigureVsModel*>& record);

}  // namespace fa4::report
