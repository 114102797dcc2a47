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
  std::string (*render)(const ReportInputs&);
};

// The report's sections in order: each one's number is its place here, from 1.
constexpr SectionEntry kSections[] = {
    {Section::header, "", "", [](const ReportInputs& in) { return header_section(in); }},
    {Section::hardware, "Hardware at a glance", "",
     [](const ReportInputs& in) { return hardware_section(in.gpus); }},
    {Section::tiles, "Per-tile cycles",
     "FA4's Table 1 reproduced, one tile on every GPU, why each GPU is bound where it is",
     [](const ReportInputs& in) { return tiles_section(in.gpus); }},
    {Section::sweep, "Predicted TFLOP/s against sequence length", "",
     [](const ReportInputs& in) { return sweep_section(in.gpus, in.predictions); }},
    {Section::measured, "Measured: our kernels against the peers", "",
     [](const ReportInputs& in) {
       return measured_section(in.measurements) + ladder_subsection(in.measurements, in.ceilings);
     }},
    {Section::scaling, "Asymmetric scaling: which FA4 technique pays where", "",
     [](const ReportInputs& in) { return scaling_section(in.gpus, in.measurements); }},
    {Section::published, "The model against published figures", "",
     [](const ReportInputs& in) { return published_section(in.gpus, in.published); }},
    {Section::factors, "The model's factors", "",
     [](const ReportInputs& in) { return factors_section(in.gpus, in.published); }},
};

const SectionEntry& entry(Section section) {
  for (const SectionEntry& e : kSections)
    if (e.section == section) return e;
  throw std::logic_error("report: a section missing from kSections");
}

}  // namespace

int number(Section section) { return int(&entry(section) - kSections) + 1; }

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

std::string render_report(const ReportInputs& in) {
  std::string out;
  for (const SectionEntry& e : kSections) out += e.render(in);
  return out;
}

}  // namespace fa4::report
