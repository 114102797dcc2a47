// Charts as gnuplot scripts and data: a Figure (one or more panels side by side, each with axes,
// series and a legend) becomes a gnuplot script and a tab-separated data file, pure text, so a
// golden test can pin both and a user can restyle the script and re-render it with
// `gnuplot NAME.gp` in the chart's folder (chart_render.hpp runs it and writes NAME.svg).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.hpp"

namespace fa4::report {

enum class SeriesStyle {
  line,             // points joined by a solid line, with markers
  dashed_line,      // a dashed line, no markers (measured ceilings)
  roof,             // a solid line, no markers (modeled ceilings)
  points,           // filled circles (measured figures)
  triangles,        // filled triangles (predicted figures, markers)
  labels,           // each point's label alone, centred on it, kept out of the legend
  vertical_labels,  // the same, reading upwards from the point
  bars,             // boxes on a category axis (Panel::categories)
};

struct ChartPoint {
  double x = 0;  // on a category axis: the category's index (fractions place grouped bars)
  double y = 0;
  std::string label;  // drawn by SeriesStyle::labels only; kept in the data file always
};

struct Series {
  std::string name;  // the legend entry
  SeriesStyle style = SeriesStyle::line;
  // Series with one key share a colour across panels ("": the name); a key "#rrggbb" is that
  // colour.
  std::string colour_key;
  std::vector<ChartPoint> points;
};

struct Axis {
  std::string title;  // with its unit: "arithmetic intensity (FLOP per HBM byte)"
  bool log = false;
  int log_base = 10;               // 2 for sequence lengths
  std::optional<double> min, max;  // default: gnuplot's autoscale
};

// A linear axis, from `min` to `max` where given (else autoscaled).
inline Axis linear_axis(std::string title, std::optional<double> min = {},
                        std::optional<double> max = {}) {
  Axis axis;
  axis.title = std::move(title);
  axis.min = min;
  axis.max = max;
  return axis;
}

// A logarithmic axis of base `base` (2 for sequence lengths), from `min` to `max` where given.
inline Axis log_axis(std::string title, int base = 10, std::optional<double> min = {},
                     std::optional<double> max = {}) {
  Axis axis = linear_axis(std::move(title), min, max);
  axis.log = true;
  axis.log_base = base;
  return axis;
}

enum class Legend {
  top_left,
  outside_right,
  below,  // under the panel's x axis, entries side by side: a wide panel's lines left clear
};

struct Panel {
  std::string title;
  Axis x, y;
  std::vector<std::string> categories;  // x tick labels at 0, 1, ...: a bar chart's groups
  std::vector<Series> series;
  Legend legend = Legend::top_left;
};

struct Figure {
  std::string name;   // the file stem of NAME.gp, NAME.dat and NAME.svg: [A-Za-z0-9._-] only
  std::string title;  // above the panels
  std::vector<Panel> panels;                  // left to right, then top to bottom
  int columns = 0;                            // panels per row; 0: all in one row
  int panel_width = 640, panel_height = 460;  // pixels
  std::string caption;  // where the figures come from: written under the chart in the report
};

struct FigureFiles {
  std::string script;  // NAME.gp: reads NAME.dat, writes NAME.svg, both beside it
  std::string data;    // NAME.dat: one block per series, each headed by "# panel / series"
};

// Whether any panel has a point to draw (on a log axis, a point above zero).
bool has_data(const Figure& figure);

// Ok, or the series or axis whose value gnuplot would be handed as a word it cannot read (inf,
// nan): a figure it is drawn from is out of range. Checked before a script is written.
Status check_finite(const Figure& figure);

// `text` as a gnuplot single-quoted string ('' for '). Every text that enters a script, quoted or
// in a comment, has each control character replaced by a space first: a newline or carriage return
// would end the script's line and run what follows as a command (`!` runs a shell one).
std::string gnuplot_string(std::string_view text);

// The script and data of a figure. Series with no points are left out (gnuplot refuses empty
// blocks), and so are panels with none; on a log axis, points at or below zero are left out too.
// Throws std::logic_error for a figure with nothing to draw (check has_data), a value that is not
// finite (check_finite) or a name outside [A-Za-z0-9._-].
FigureFiles gnuplot_files(const Figure& figure);

// Where the bar of series `bar` (of `bars` bar series in the panel) of a category is drawn: the
// category's index shifted so the group is centred on it.
double bar_x(double category, int bar, int bars);

// Whether `name` may name a figure: [A-Za-z0-9._-] only, not empty.
bool is_figure_name(std::string_view name);

// A figure name from any text: lower case, each run of other characters than [a-z0-9] a dash
// ("NVIDIA H100 80GB HBM3" -> "nvidia-h100-80gb-hbm3").
std::string file_stem(std::string_view text);

// The names of the series drawn in the figure's legends, in drawing order, each once.
std::vector<std::string> legend_names(const Figure& figure);

}  // namespace fa4::report
