#include "report/chart.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <stdexcept>

namespace fa4::report {
namespace {

// Colours that stay apart on white and for most colour-vision deficiencies (Tableau 10, then
// darker variants); a series takes the next one by the order its name first appears.
constexpr const char* kPalette[] = {"#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f",
                                    "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac",
                                    "#1f3b5a", "#8c4a0e", "#7a1f20", "#2e6b3f"};
constexpr double kGroupWidth = 0.8;  // share of a category's slot the grouped bars fill

// The one place text enters a script or its data file: each control character (newline, carriage
// return, tab, NUL, DEL, ...) a space, so the text stays on its line.
std::string script_text(std::string_view text) {
  std::string out(text);
  std::replace_if(
      out.begin(), out.end(),
      [](char c) {
        const auto u = static_cast<unsigned char>(c);
        return u < 0x20 || u == 0x7f;
      },
      ' ');
  return out;
}

// A comment line of the script: a final backslash would continue the comment onto the next line.
std::string comment(std::string_view text) {
  const std::string line = "# " + script_text(text);
  return line.ends_with('\\') ? line + " " : line;
}

// A field of the tab-separated data file (or a comment in it): no tabs or line breaks inside.
std::string field(std::string_view text) { return text.empty() ? "-" : script_text(text); }

std::string number(double value) { return fmt::format("{:.6g}", value); }

bool drawable(const Axis& x, const Axis& y, const ChartPoint& p) {
  return (!x.log || p.x > 0) && (!y.log || p.y > 0);
}

std::vector<ChartPoint> drawable_points(const Panel& panel, const Series& series) {
  std::vector<ChartPoint> kept;
  for (const ChartPoint& p : series.points)
    if (drawable(panel.x, panel.y, p)) kept.push_back(p);
  return kept;
}

bool has_data(const Panel& panel) {
  return std::any_of(panel.series.begin(), panel.series.end(),
                     [&](const Series& s) { return !drawable_points(panel, s).empty(); });
}

bool in_legend(const Series& s) {
  return s.style != SeriesStyle::labels && s.style != SeriesStyle::vertical_labels;
}

std::string range(const Axis& axis) {
  if (!axis.min && !axis.max) return "[*:*]";
  return fmt::format("[{}:{}]", axis.min ? number(*axis.min) : "*",
                     axis.max ? number(*axis.max) : "*");
}

std::string legend_setting(Legend legend) {
  switch (legend) {
    case Legend::top_left:
      return "set key inside top left Left reverse opaque box lc rgb '#cccccc'";
    case Legend::outside_right:
      return "set key outside right top vertical Left reverse";
    case Legend::below:
      return "set key outside below center vertical Left reverse maxrows 3";
  }
  return "";
}

std::string axis_settings(const Panel& panel) {
  std::string out;
  out += fmt::format("set xlabel {}\nset ylabel {}\n", gnuplot_string(panel.x.title),
                     gnuplot_string(panel.y.title));
  for (const auto& [name, axis] : {std::pair{"x", &panel.x}, std::pair{"y", &panel.y}})
    out += axis->log ? fmt::format("set logscale {} {}\n", name, axis->log_base)
                     : fmt::format("unset logscale {}\n", name);
  if (!panel.categories.empty()) {
    std::string tics;
    for (std::size_t i = 0; i < panel.categories.size(); ++i)
      tics += fmt::format("{}{} {}", i ? ", " : "", gnuplot_string(panel.categories[i]), i);
    out += fmt::format("set xtics ({})\nset xrange [-0.6:{}]\n", tics,
                       number(double(panel.categories.size()) - 0.4));
  } else {
    out += "set xtics autofreq\n";
    out += fmt::format("set xrange {}\n", range(panel.x));
  }
  out += fmt::format("set yrange {}\n", range(panel.y));
  return out;
}

void check_name(const std::string& name) {
  if (!is_figure_name(name))
    throw std::logic_error("gnuplot_files: figure name '" + name + "' is not [A-Za-z0-9._-]");
}

// "#rrggbb": a colour key that is a colour.
bool is_colour(const std::string& key) {
  return key.size() == 7 && key[0] == '#' && std::all_of(key.begin() + 1, key.end(), [](char c) {
           return std::isxdigit(static_cast<unsigned char>(c));
         });
}

class ColourOf {
 public:
  std::string operator()(const std::string& key) {
    if (is_colour(key)) return key;
    const auto [it, added] = index_.try_emplace(key, index_.size());
    (void)added;
    return kPalette[it->second % std::size(kPalette)];
  }

 private:
  std::map<std::string, std::size_t> index_;
};

}  // namespace

double bar_x(double category, int bar, int bars) {
  const double width = kGroupWidth / bars;
  return category + (bar - (bars - 1) / 2.0) * width;
}

bool is_figure_name(std::string_view name) {
  return !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.';
  });
}

std::string file_stem(std::string_view text) {
  std::string out;
  for (char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (std::isalnum(u))
      out += char(std::tolower(u));
    else if (!out.empty() && out.back() != '-')
      out += '-';
  }
  while (!out.empty() && out.back() == '-') out.pop_back();
  return out.empty() ? "chart" : out;
}

bool has_data(const Figure& figure) {
  return std::any_of(figure.panels.begin(), figure.panels.end(),
                     [](const Panel& p) { return has_data(p); });
}

std::vector<std::string> legend_names(const Figure& figure) {
  std::vector<std::string> names;
  for (const Panel& panel : figure.panels)
    for (const Series& s : panel.series)
      if (in_legend(s) && !drawable_points(panel, s).empty() &&
          std::find(names.begin(), names.end(), s.name) == names.end())
        names.push_back(s.name);
  return names;
}

std::string gnuplot_string(std::string_view text) {
  std::string out = "'";
  for (char c : script_text(text)) out += c == '\'' ? std::string("''") : std::string(1, c);
  return out + "'";
}

Status check_finite(const Figure& figure) {
  const auto refused = [&](const std::string& what) {
    return Error{fmt::format(
        "cannot draw the chart {}: {} is not a finite number; a figure it is drawn from (a "
        "hardware model, or a measurement or ceiling in a database) is out of range: correct it "
        "or leave it out",
        figure.name, what)};
  };
  for (const Panel& panel : figure.panels) {
    for (const Series& s : panel.series)
      for (const ChartPoint& p : drawable_points(panel, s))
        if (!std::isfinite(p.x) || !std::isfinite(p.y))
          return refused(fmt::format("the point ({}, {}) of \"{}\" in \"{}\"", number(p.x),
                                     number(p.y), s.name, panel.title));
    for (const auto& [name, axis] : {std::pair{"x", &panel.x}, std::pair{"y", &panel.y}})
      for (const std::optional<double>& end : {axis->min, axis->max})
        if (end && !std::isfinite(*end))
          return refused(
              fmt::format("an end of the {} axis of \"{}\" ({})", name, panel.title, number(*end)));
  }
  return Ok{};
}

FigureFiles gnuplot_files(const Figure& figure) {
  check_name(figure.name);
  const std::string dat = figure.name + ".dat";
  if (!has_data(figure))
    throw std::logic_error("gnuplot_files: figure '" + figure.name + "' has nothing to draw");
  if (Status finite = check_finite(figure); !finite)
    throw std::logic_error("gnuplot_files: " + finite.error().message);
  const int panels = int(std::count_if(figure.panels.begin(), figure.panels.end(),
                                       [](const Panel& p) { return has_data(p); }));
  const int columns = figure.columns > 0 ? std::min(figure.columns, panels) : panels;
  const int rows = (panels + columns - 1) / columns;
  FigureFiles files;
  files.data = fmt::format("# {}: the data of {}.gp, one block per series (gnuplot index)\n",
                           figure.name, figure.name);
  files.script = fmt::format(
      "{}\n# Written by fa4-analyze. Re-render after restyling with: gnuplot {}.gp\n"
      "set terminal svg size {},{} noenhanced font 'Helvetica,12' background rgb 'white'\n"
      "set output (exists('svg_file') ? svg_file : {})\n"
      "set datafile separator '\\t'\n"
      "set grid xtics ytics mxtics mytics lc rgb '#e5e5e5'\n"
      "set clip two\n"
      "set style fill solid 0.85 border -1\n"
      "set multiplot layout {},{} title {}\n",
      comment(figure.title), figure.name, figure.panel_width * columns, figure.panel_height * rows,
      gnuplot_string(figure.name + ".svg"), rows, columns, gnuplot_string(figure.title));
  ColourOf colour_of;
  int block = 0;
  for (const Panel& panel : figure.panels) {
    if (!has_data(panel)) continue;      // gnuplot cannot autoscale an empty plot
    std::vector<std::string> in_legend;  // each panel has its own legend
    files.script += fmt::format("\nset title {}\n{}\n{}", gnuplot_string(panel.title),
                                legend_setting(panel.legend), axis_settings(panel));
    const auto bar_count = std::count_if(panel.series.begin(), panel.series.end(),
                                         [](auto& s) { return s.style == SeriesStyle::bars; });
    const double bar_width = bar_count ? kGroupWidth / double(bar_count) : 0;
    int bar_index = 0;
    std::vector<std::string> plots;
    for (const Series& s : panel.series) {
      const auto points = drawable_points(panel, s);
      if (points.empty()) continue;
      files.data += fmt::format("{}{}\n", block ? "\n\n" : "",
                                comment(fmt::format("{} / {}", panel.title, s.name)));
      for (const ChartPoint& p : points)
        files.data += fmt::format("{}\t{}\t{}\n", number(p.x), number(p.y), field(p.label));
      const std::string rgb = colour_of(s.colour_key.empty() ? s.name : s.colour_key);
      const std::string colour = "lc rgb " + gnuplot_string(rgb);
      // A name already in the panel's legend is not repeated there.
      const bool seen = std::find(in_legend.begin(), in_legend.end(), s.name) != in_legend.end();
      const std::string title = seen ? "notitle" : "title " + gnuplot_string(s.name);
      if (!seen) in_legend.push_back(s.name);
      const std::string source = fmt::format("{} index {}", gnuplot_string(dat), block++);
      switch (s.style) {
        case SeriesStyle::line:
          plots.push_back(fmt::format("{} using 1:2 with linespoints lw 2 pt 7 ps 0.6 {} {}",
                                      source, colour, title));
          break;
        case SeriesStyle::dashed_line:
          plots.push_back(
              fmt::format("{} using 1:2 with lines lw 2 dt 2 {} {}", source, colour, title));
          break;
        case SeriesStyle::roof:
          plots.push_back(fmt::format("{} using 1:2 with lines lw 2 {} {}", source, colour, title));
          break;
        case SeriesStyle::points:
          plots.push_back(
              fmt::format("{} using 1:2 with points pt 7 ps 0.8 {} {}", source, colour, title));
          break;
        case SeriesStyle::triangles:
          plots.push_back(
              fmt::format("{} using 1:2 with points pt 9 ps 1.4 {} {}", source, colour, title));
          break;
        case SeriesStyle::labels:
          plots.push_back(
              fmt::format("{} using 1:2:3 with labels center font ',10' tc rgb {} notitle", source,
                          gnuplot_string(rgb)));
          break;
        case SeriesStyle::vertical_labels:
          plots.push_back(fmt::format(
              "{} using 1:2:3 with labels left rotate by 90 font ',10' tc rgb {} notitle", source,
              gnuplot_string(rgb)));
          break;
        case SeriesStyle::bars: {
          const double offset = bar_x(0, bar_index++, int(bar_count));
          plots.push_back(fmt::format("{} using ($1{:+.6g}):2:({}) with boxes {} {}", source,
                                      offset, number(bar_width), colour, title));
          break;
        }
      }
    }
    files.script += "plot ";
    for (std::size_t i = 0; i < plots.size(); ++i)
      files.script += (i ? ", \\\n     " : "") + plots[i];
    files.script += "\n";
  }
  files.script += "\nunset multiplot\n";
  return files;
}

}  // namespace fa4::report
