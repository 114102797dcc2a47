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

// Sections: 1 header, 2 hardware at a glance, 3 per-tile cycles (FA4 Table 1 and backward
// reproduced, one tile across every GPU, and why each GPU is bound where it is), 4 predicted
// TFLOP/s against sequence length with Mermaid charts, 5 measured: our kernels against the peers
// (ratios, the model's prediction, Mermaid charts), 6 asymmetric scaling (which FA4 technique
// pays on which GPU, predicted and measured), 7 model against published figures, 8 the model's
// non-hardware factors.
std::string render_report(const ReportInputs& inputs);

}  // namespace fa4::report
