// Fixed inputs for the report tests: the real hardware models and published figures of the
// source tree, a handful of hand-made prediction rows, and a fixed header.
#pragma once

#include <vector>

#include "report/report.hpp"

namespace fa4::report::testing {

std::vector<hw::Spec> real_specs();
std::vector<PublishedFigure> real_published();
std::vector<store::ReportRow> sample_rows();
ReportInputs golden_inputs();

}  // namespace fa4::report::testing
