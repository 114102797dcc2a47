#include "report/report.hpp"

#include "report/sections.hpp"

namespace fa4::report {

std::string render_report(const ReportInputs& in) {
  return header_section(in) + hardware_section(in.gpus) + tiles_section(in.gpus) +
         sweep_section(in.gpus, in.predictions) + measured_section(in.measurements) +
         ladder_subsection(in.measurements, in.ceilings) +
         scaling_section(in.gpus, in.measurements) +
         published_section(in.gpus, in.published) +
         factors_section(in.gpus, in.published);
}

}  // namespace fa4::report
