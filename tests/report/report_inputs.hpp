// Fixed inputs for the report tests: the real hardware models and published figures of the
// source tree, a handful of hand-made prediction and measurement rows, and a fixed header.
#pragma once

#include <string>
#include <vector>

#include "report/report.hpp"

namespace fa4::report::testing {

std::vector<hw::Spec> real_specs();
std::vector<PublishedFigure> real_published();
std::vector<store::ReportRow> sample_rows();
// A forward hd128 non-causal bf16 measurement with 16 heads and batch 32768 / seqlen: ok with
// `tflops`, or `status` with `reason` when tflops is 0.
store::MeasurementRow measurement(std::string device, std::string kernel, std::string source,
                                  std::int64_t seqlen, double tflops, std::string status = "ok",
                                  std::string reason = "");
std::vector<store::MeasurementRow> sample_measurements();
ReportInputs golden_inputs();

}  // namespace fa4::report::testing
