// The header: the report's title, what it is, where it came from and how to make it again.
#include <fmt/format.h>

#include <set>

#include "report/sections.hpp"

namespace fa4::report {
namespace {

std::string gpu_ids(const std::vector<hw::Spec>& gpus) {
  std::string out;
  for (const auto& g : gpus) out += (out.empty() ? "`" : ", `") + g.id + "`";
  return out.empty() ? "none" : out;
}

// "runs 3 (abc123), 4 (def456)": the runs the stored predictions come from.
std::string runs_text(const std::set<std::pair<std::int64_t, std::string>>& runs) {
  std::string out;
  for (const auto& [id, revision] : runs)
    out += fmt::format("{}{} (`{}`)", out.empty() ? "" : ", ", id,
                       revision.empty() ? "unknown revision" : revision);
  return out;
}

}  // namespace

std::string header_section(const ReportInputs& in) {
  std::string out = fmt::format("# {}\n\n", in.title);
  out += fmt::format(
      "Generated {} from revision `{}` by `{}` (model version {}). Generated "
      "file: do not edit it by hand; run the command again.\n\n",
      in.generated_at, in.revision, in.command, model::kModelVersion);
  out += fmt::format("- Hardware models: {}.\n", gpu_ids(in.gpus));
  out += in.predictions.count == 0
             ? fmt::format(
                   "- Stored predictions: none (run `fa4-analyze predict --sweep "
                   "data/sweeps/fa4-paper.json` first for section {}).\n",
                   number(Section::sweep))
             : fmt::format(
                   "- Stored predictions: {}, the latest for each GPU, kernel, pass and "
                   "shape, from run(s) {}.\n",
                   in.predictions.count, runs_text(in.predictions.runs));
  out += in.measurements.empty()
             ? fmt::format("- Stored measurements: none (see section {}).\n",
                           number(Section::measured))
             : fmt::format(
                   "- Stored measurements: {}, the latest for each device, kernel, source "
                   "and problem (their sources: at the end, folded).\n",
                   in.measurements.size());
  out += fmt::format("- Published and measured figures: {}.\n", in.published.size());
  if (in.charts_skipped_because.empty())
    out += fmt::format(
        "- Charts: SVG drawn by gnuplot in `{}/`, each with its script and data beside it.\n\n",
        in.chart_folder);
  else if (in.chart_folder.empty())  // no folder: the report went to standard output
    out += fmt::format("- Charts: none written ({}); each chart's place below says so.\n\n",
                       in.charts_skipped_because);
  else
    out += fmt::format(
        "- Charts: none drawn ({}); their scripts and data are in `{}/`, and each chart's place "
        "below says so.\n\n",
        in.charts_skipped_because, in.chart_folder);
  out += "Sections: " + section_list() +
         ". Cycles are per tile on one SM; TFLOP/s follow the FLOP convention of "
         "`lib/core/shape.hpp` (4·b·h·s²·d forward, halved for causal, backward 2.5x).\n\n";
  return out;
}

// The sources of the stored measurements, one line per device (and database), folded: after
// the sections, so that the summary comes first. Nothing where nothing is measured.
std::string sources_section(const ReportInputs& in) {
  if (in.measurements.empty() || in.measured_origins.empty()) return "";
  std::string out = fmt::format(
      "<details><summary>Where the {} stored measurements come from ({} line{})</summary>\n\n",
      in.measurements.size(), in.measured_origins.size(),
      in.measured_origins.size() == 1 ? "" : "s");
  for (const std::string& origin : in.measured_origins) out += fmt::format("- {}\n", origin);
  return out + "\n</details>\n";
}

}  // namespace fa4::report
