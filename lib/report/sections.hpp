// One function per report section, each in its own file (report_<section>.cpp); render_report
// joins them in the order of one list (report.cpp), which also numbers them. Each returns markdown
// starting with its heading and ending in a blank line.
#pragma once

#include <string>
#include <vector>

#include "hw/spec.hpp"
#include "report/ladder_cells.hpp"
#include "report/model_digest.hpp"
#include "report/published.hpp"
#include "report/report.hpp"
#include "store/store.hpp"

namespace fa4::report {

// The report's sections; their order, titles and numbers come from the one list in report.cpp.
enum class Section {
  header,
  summary,
  roofline,
  hardware,
  tiles,
  sweep,
  measured,
  serving,
  scaling,
  published,
  factors
};

// The section's place in the report, from 1 (the header).
int number(Section section);
// "## 3. Per-tile cycles\n\n": the section's heading, numbered.
std::string heading(Section section);
// "2. hardware at a glance; 3. per-tile cycles (FA4's Table 1 reproduced, ...); ...": the
// sections after the header, as the header lists them.
std::string section_list();
// "3-rooflines-and-where-the-tiles-time-goes": the heading's anchor on GitHub, for links.
std::string anchor(Section section);

std::string header_section(const ReportInputs& inputs);
// The measurements' sources, folded, one line per device: the report's last lines.
std::string sources_section(const ReportInputs& inputs);
// The findings on one page, each with its number and a link to its section (findings.hpp).
std::string summary_section(const ReportInputs& inputs, const ModelDigest& model);
// Per GPU model: its roofline at hd128 (roofline.hpp) and the speed of light per unit
// (unit_breakdown.hpp).
std::string roofline_section(const ReportInputs& inputs, ReportCharts& charts);
std::string hardware_section(const std::vector<hw::Spec>& gpus);
// The tiles section joins the three below: FA4's Table 1 and backward figures against the model on
// B200, one tile on every GPU, and the unit-by-unit explanation ("### " headings).
std::string tiles_section(const std::vector<hw::Spec>& gpus);
std::string table1_subsection(const std::vector<hw::Spec>& gpus);
std::string tile_across_gpus_subsection(const std::vector<hw::Spec>& gpus);
std::string why_subsection(const std::vector<hw::Spec>& gpus);
// Per GPU a chart of the stored predictions against seqlen, and every prediction in a CSV beside.
std::string sweep_section(const ReportInputs& inputs, ReportCharts& charts);
// The measured section: our kernels' measurements against the peers'
// (Store::measurements_for_report()): a chart per device, the tables folded.
std::string measured_section(const ReportInputs& inputs, ReportCharts& charts);
// The end of the measured section, per device: our forward ladder (when two rungs are measured)
// and backward ladder (when one is): each rung and ablation with the model beside it, the peers,
// the speedups, the best rung over cuDNN and its share of the device's measured GEMM ceiling (a
// chart for the backward one, the tables folded); then the training step's attention (forward +
// backward, ours against cuDNN). "" when no device has a ladder.
std::string ladder_subsection(const ReportInputs& inputs, ReportCharts& charts);
// Per problem of `device` measured in both passes: our best forward + backward rung against
// cuDNN's, with the model beside each; "" when no problem has all four.
std::string training_step_subsection(const std::vector<store::MeasurementRow>& rows,
                                     const CudnnModel& cudnn_model, const std::string& device);
// The serving section (report_serving.cpp): per device with measured decode runs, the KV-read
// bandwidth against seqlen_k per batch size of our decode kernels, the peers and the model, the
// measured HBM read and copy ceilings as lines; paged against contiguous; ragged against padded.
// One line saying so when no decode run is in the results.
std::string serving_section(const ReportInputs& inputs, ReportCharts& charts);
// The scaling section: per GPU and head dim, the units' cycles, the best exp-emulation share and
// the predicted gain of each FA4 technique, beside our measured fa4 / fa3 on Hopper.
std::string scaling_section(const std::vector<hw::Spec>& gpus,
                            const std::vector<store::MeasurementRow>& rows);
// The published section, from the figures beside the model (ModelDigest::published); the record's
// chart of model against published goes to `charts`.
std::string published_section(const std::vector<FigureVsModel>& compared, ReportCharts& charts);
// The factors the representative predictions report (ModelDigest::representatives), every
// constant, and the figures they were fitted to.
std::string factors_section(const std::vector<hw::Spec>& gpus,
                            const std::vector<RepresentativePrediction>& predictions,
                            const std::vector<PublishedFigure>& figures);

}  // namespace fa4::report
