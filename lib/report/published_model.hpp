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

// The time the figure's benchmark saw for the model's prediction under `options`: the prediction,
// less its launches' host-to-start latency where the benchmark summed the kernels' device
// durations of a decode launch (they start the clock at the kernel, not at the launch), plus
// call_seconds.
double timed_seconds(const PublishedFigure& figure, const model::Options& options,
                     const model::Prediction& prediction);

// The options of a figure's implementation (model::configure) with what its benchmark did around
// the kernels: a flushed L2 (its origin's "l2_flushed": the dirty lines written back during the
// launch, model::Options::after_l2_flush).
model::Options as_measured(const PublishedFigure& figure, model::Options options);

}  // namespace fa4::report
