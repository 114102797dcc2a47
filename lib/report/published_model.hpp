// Who ran a published figure's kernel, as the model's profile table takes it (model/profiles.hpp):
// the kernel as published with its suffixes, the cuDNN release its source records, the date of
// its run and the figure's own choice of algorithm.
#pragma once

#include "model/profiles.hpp"
#include "report/published.hpp"

namespace fa4::report {

model::Implementation implementation_of(const PublishedFigure& figure);

}  // namespace fa4::report
