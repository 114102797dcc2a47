// The markdown report: a pure function of its inputs (hardware models, the store's latest
// predictions and measurements, published figures, and the words of the header), so a golden
// test can pin it.
#pragma once

#include <string>
#include <vector>

#include "hw/spec.hpp"
#include "report/published.hpp"
#include "store/store.hpp"

namespace fa4::report {

struct ReportInputs {
  std::string title = "fa4-analyze report";
  std::string generated_at;                   // UTC, ISO-8601
  std::string revision;                       // of the source tree that produced the report
  std::string command;                        // the command line that produced it
  std::vector<hw::Spec> gpus;                 // in the order the tables show them
  std::vector<store::ReportRow> predictions;  // Store::predictions_for_report()
  std::vector<store::MeasurementRow> measurements;  // Store::measurements_for_report()
  std::vector<store::CeilingRow> ceilings;          // Store::latest_ceilings()
  std::vector<PublishedFigure> published;
};

// The sections, in the order of the one list in report.cpp that numbers them: the header, the
// hardware at a glance, per-tile cycles (FA4 Table 1 and backward reproduced, one tile across
// every GPU, and why each GPU is bound where it is), predicted TFLOP/s against sequence length
// with Mermaid charts, measured: our kernels against the peers (ratios, the model's prediction,
// Mermaid charts, the kernel ladder), asymmetric scaling (which FA4 technique pays on which GPU,
// predicted and measured), the model against published figures, the model's non-hardware
// factors.
std::string render_report(const ReportInputs& inputs);

}  // namespace fa4::report
