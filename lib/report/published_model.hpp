// Who ran a published figure's kernel, as the model's profile table takes it (model/profiles.hpp):
// the kernel as published with its suffixes, the cuDNN release its source records, the date of
// its run and the figure's own choice of algorithm.
#pragma once

#include "model/profiles.hpp"
#include "report/published.hpp"

namespace fa4::report {

model::Implementation implementation_of(const PublishedFigure& figure);

// Host time of one framework call that the figure's benchmark timed beside the kernels, which
// the report adds to the model's time: a figure read from a public benchmark (it has an origin)
// timed single PyTorch-level calls unless its origin says it summed the kernels' device durations.
double call_seconds(const PublishedFigure& figure);

}  // namespace fa4::report
