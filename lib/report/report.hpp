// The markdown report: a pure function of its inputs (hardware models, the digest of the store's
// latest predictions, its measurements, published figures, and the words of the header), so a
// golden test can pin it. The CSV files that list every prediction read them through the digest
// as they are written.
#pragma once

#include <string>
#include <vector>

#include "hw/spec.hpp"
#include "report/prediction_digest.hpp"
#include "report/published.hpp"
#include "report/report_charts.hpp"
#include "store/store.hpp"

namespace fa4::report {

struct ReportInputs {
  std::string title = "fa4-analyze report";
  std::string generated_at;                         // UTC, ISO-8601
  std::string revision;                             // of the source tree that produced the report
  std::string command;                              // the command line that produced it
  std::vector<hw::Spec> gpus;                       // in the order the tables show them
  PredictionDigest predictions;                     // of Store::for_each_report_row
  std::vector<store::MeasurementRow> measurements;  // Store::measurements_for_report()
  std::vector<store::CeilingRow> ceilings;          // Store::latest_ceilings()
  std::vector<PublishedFigure> published;
  // One line per device of each results database the measurements come from (the user's and the
  // reference records in data/runs/): "NVIDIA H200: 770 measurements in 17 runs of 2026-11-23 to
  // 2026-11-28, revisions ..., from `data/runs/h200.db`"; folded at the report's end.
  std::vector<std::string> measured_origins;
  std::string chart_folder = "charts";  // the charts' folder, relative to the markdown file
  std::string charts_skipped_because;   // empty when gnuplot renders the charts; else why not
};

// The markdown, and the charts and CSV files it links, for the caller to write beside it.
struct RenderedReport {
  std::string markdown;
  ReportCharts charts;
};

// The sections, in the order of the one list in report.cpp that numbers them: the header, the
// summary (the findings on one page), the rooflines and per-unit charts of every GPU, the hardware
// at a glance, per-tile cycles (FA4 Table 1 and backward reproduced, one tile across every GPU, and
// why each GPU is bound where it is), predicted TFLOP/s against sequence length (a chart per GPU,
// every figure in CSV), measured: our kernels against the peers (a chart per device, the tables
// with ratios folded, the kernel ladder), serving (decode's KV-read bandwidth against the measured
// HBM ceilings, paged and ragged caches), asymmetric scaling (which FA4 technique pays on which
// GPU, predicted and measured), the model against published figures, the model's non-hardware
// factors.
RenderedReport render_report(const ReportInputs& inputs);

}  // namespace fa4::report
