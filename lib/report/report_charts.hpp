// The charts of one report: each section hands its figures here and gets back the markdown that
// shows them (an image embedded by its path relative to the report, its legend line, links to the
// script and data beside it), or, when charts cannot be rendered, a line that says which chart was
// skipped and why; and the CSV files of numbers the markdown links instead of printing. The report
// command writes what is collected (chart_render.hpp).
#pragma once

#include <string>
#include <vector>

#include "core/atomic_file.hpp"
#include "core/error.hpp"
#include "report/chart.hpp"

namespace fa4::report {

class ReportCharts {
 public:
  // `folder`: where the charts go, relative to the markdown file ("fa4-analyze-report").
  // `skipped_because`: empty when gnuplot renders them; else why not (find_gnuplot's error).
  ReportCharts(std::string folder, std::string skipped_because);

  // The figure's markdown, ending in a blank line; the figure is kept for writing. A figure with
  // nothing to draw (has_data) is not kept: its markdown says so.
  std::string embed(Figure figure);

  // A file of the report's numbers (CSV) kept beside the charts; returns its path relative to the
  // markdown, for a link.
  std::string attach(std::string file_name, std::string content);
  // The same for a file too large to hold (every stored prediction): `produce` hands its text
  // over in pieces when the file is written.
  std::string attach(std::string file_name, TextProducer produce);

  struct Attachment {
    std::string file_name;
    TextProducer produce;
    // The whole text, produced into memory (for tests).
    Result<std::string> text() const;
  };
  const std::vector<Attachment>& attachments() const { return attachments_; }
  const std::vector<Figure>& figures() const { return figures_; }
  const std::string& folder() const { return folder_; }
  const std::string& skipped_because() const { return skipped_because_; }

 private:
  std::string folder_;
  std::string skipped_because_;
  std::vector<Figure> figures_;
  std::vector<Attachment> attachments_;
};

}  // namespace fa4::report
