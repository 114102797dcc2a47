#include "report/report.hpp"

#include <fmt/format.h>

#include <cctype>
#include <stdexcept>

#include "report/sections.hpp"

namespace fa4::report {
namespace {

struct SectionEntry {
  Section section;
  std::string_view title;     // the heading's words; empty for the header, whose heading is the
                              // report's title
  std::string_view contents;  // what the header's list of sections adds in parentheses, if any
  std::string (*render)(const ReportInputs&, const ModelDigest&, ReportCharts&);
};

// The report's sections in order: each one's number is its place here, from 1.
constexpr SectionEntry kSections[] = {
    {Section::header, "", "",
     [](const ReportInputs& in, const ModelDigest&, ReportCharts&) { return header_section(in); }},
    {Section::summary, "Summary", "",
     [](const ReportInputs& in, const ModelDigest& model, ReportCharts&) {
       return summary_section(in, model);
     }},
    {Section::roofline, "Rooflines and where the tile's time goes",
     "a roofline and a per-unit chart per GPU",
     [](const ReportInputs& in, const ModelDigest&, ReportCharts& charts) {
       return roofline_section(in, charts);
     }},
    {Section::hardware, "Hardware at a glance", "",
     [](const ReportInputs& in, const ModelDigest&, ReportCharts&) {
       return hardware_section(in.gpus);
     }},
    {Section::tiles, "Per-tile cycles",
     "FA4's Table 1 reproduced, one tile on every GPU, why each GPU is bound where it is",
     [](const ReportInputs& in, const ModelDigest&, ReportCharts&) {
       return tiles_section(in.gpus);
     }},
    {Section::sweep, "Predicted TFLOP/s against sequence length", "",
     [](const ReportInputs& in, const ModelDigest&, ReportCharts& charts) {
       return sweep_section(in, charts);
     }},
    {Section::measured, "Measured: our kernels against the peers", "",
     [](const ReportInputs& in, const ModelDigest&, ReportCharts& charts) {
       return measured_section(in, charts) + ladder_subsection(in, charts);
     }},
    {Section::serving, "Serving: decode's KV-read bandwidth", "",
     [](const ReportInputs& in, const ModelDigest&, ReportCharts& charts) {
       return serving_section(in, charts);
     }},
    {Section::scaling, "Asymmetric scaling: which FA4 technique pays where", "",
     [](const ReportInputs& in, const ModelDigest&, ReportCharts&) {
       return scaling_section(in.gpus, in.measurements);
     }},
    {Section::published, "The model against published figures", "",
     [](const ReportInputs&, const ModelDigest& model, ReportCharts& charts) {
       return published_section(model.published, charts);
     }},
    {Section::factors, "The model's factors", "",
     [](const ReportInputs& in, const ModelDigest& model, ReportCharts&) {
       return factors_section(in.gpus, model.representatives, in.published);
     }},
};

const SectionEntry& entry(Section section) {
  for (const SectionEntry& e : kSections)
    if (e.section == section) return e;
  throw std::logic_error("report: a section missing from kSections");
}

}  // namespace

// The header (first in kSections) has no number: the summary is section 1.
int number(Section section) { return int(&entry(section) - kSections); }

std::string heading(Section section) {
  return fmt::format("## {}. {}\n\n", number(section), entry(section).title);
}

std::string section_list() {
  std::string out;
  for (const SectionEntry& e : kSections) {
    if (e.section == Section::header) continue;
    std::string title(e.title);
    title[0] = char(std::tolower(static_cast<unsigned char>(title[0])));
    out += fmt::format("{}{}. {}", out.empty() ? "" : "; ", number(e.section), title);
    if (!e.contents.empty()) out += fmt::format(" ({})", e.contents);
  }
  return out;
}

std::string anchor(Section section) {
  // GitHub's heading anchors: lower case, punctuation other than '-' dropped, spaces to dashes.
  std::string out;
  for (char c : fmt::format("{}. {}", number(section), entry(section).title)) {
    const auto u = static_cast<unsigned char>(c);
    if (std::isalnum(u) || c == '-' || c == '_')
      out += char(std::tolower(u));
    else if (c == ' ')
      out += '-';
  }
  return out;
}

RenderedReport render_report(const ReportInputs& in) {
  RenderedReport out{"", ReportCharts(in.chart_folder, in.charts_skipped_because)};
  const ModelDigest model = digest_model(in.gpus, in.published);
  for (const SectionEntry& e : kSections) out.markdown += e.render(in, model, out.charts);
  out.markdown += sources_section(in);
  return out;
}

}  // namespace fa4::report
