#include "report/report_charts.hpp"

#include <fmt/format.h>

namespace fa4::report {

ReportCharts::ReportCharts(std::string folder, std::string skipped_because)
    : folder_(std::move(folder)), skipped_because_(std::move(skipped_because)) {}

std::string ReportCharts::embed(Figure figure) {
  if (!has_data(figure))
    return fmt::format("*No chart \"{}\": no series has a point to draw.*\n\n", figure.title);
  const std::string path = folder_ + "/" + figure.name;
  const std::string files = fmt::format("[script]({}.gp), [data]({}.dat)", path, path);
  std::string out;
  if (skipped_because_.empty())
    out = fmt::format("![{}]({}.svg)\n\n*{} Re-render: {}.*\n\n", figure.title, path,
                      figure.caption, files);
  else if (folder_.empty())  // the report went to standard output: no file is written
    out = fmt::format("*Chart \"{}\" not written: {}. {}*\n\n", figure.title, skipped_because_,
                      figure.caption);
  else
    out = fmt::format(
        "*Chart \"{}\" skipped: {}. Its {} are written; run `gnuplot {}.gp` in "
        "`{}` to draw it. {}*\n\n",
        figure.title, skipped_because_, files, figure.name, folder_, figure.caption);
  figures_.push_back(std::move(figure));
  return out;
}

std::string ReportCharts::attach(std::string file_name, std::string content) {
  return attach(std::move(file_name),
                [content = std::move(content)](const std::function<void(std::string_view)>& write) {
                  write(content);
                  return Status{Ok{}};
                });
}

std::string ReportCharts::attach(std::string file_name, TextProducer produce) {
  const std::string path = folder_ + "/" + file_name;
  attachments_.push_back({std::move(file_name), std::move(produce)});
  return path;
}

Result<std::string> ReportCharts::Attachment::text() const {
  std::string out;
  if (Status produced = produce([&](std::string_view piece) { out += piece; }); !produced)
    return produced.error();
  return out;
}

}  // namespace fa4::report
