#include "compare/output.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "report/markdown.hpp"

namespace fa4::compare {
namespace {

using report::Align;
using report::Cell;

// `value` rounded to `digits` decimals (a table cell that reads well in every format).
Cell rounded(double value, int digits) {
  const double scale = std::pow(10.0, digits);
  return std::round(value * scale) / scale;
}
// To `digits` significant digits; NULL when not positive.
Cell significant(double value, int digits) {
  if (!(value > 0)) return std::monostate{};
  return std::stod(fmt::format("{:.{}g}", value, digits));
}
Cell or_null(double value, int digits) {
  return value > 0 ? rounded(value, digits) : Cell{std::monostate{}};
}

std::string problem(const Row& row) { return fa4::describe(row.shape); }

// A db column at `at` when the sides span several databases (merge_sides).
void add_db_column(report::Table& t, const Comparison& c, std::size_t at) {
  if (std::all_of(c.rows.begin(), c.rows.end(), [](const Row& r) { return r.db.empty(); })) return;
  t.columns.insert(t.columns.begin() + at, report::Column("db"));
  for (std::size_t i = 0; i < t.rows.size(); ++i)
    t.rows[i].insert(t.rows[i].begin() + at, c.rows[i].db);
}

}  // namespace

report::Table comparison_table(const Comparison& c) {
  report::Table t;
  if (c.predicted) {
    t.columns = {"gpu",
                 "algorithm",
                 "pass",
                 "problem",
                 {"baseline ms", Align::right},
                 {"contender ms", Align::right},
                 {"ratio", Align::right},
                 "bottleneck",
                 "verdict"};
    for (const Row& r : c.rows) {
      const std::string bottleneck =
          r.baseline->bottleneck == r.contender->bottleneck
              ? r.baseline->bottleneck
              : fmt::format("{} -> {}", r.baseline->bottleneck, r.contender->bottleneck);
      t.rows.push_back({r.device, r.kernel, std::string(to_string(r.pass)), problem(r),
                        significant(r.baseline->predicted_s * 1e3, 5),
                        significant(r.contender->predicted_s * 1e3, 5),
                        or_null(r.judgement.ratio, 4), bottleneck,
                        std::string(to_string(r.judgement.verdict))});
    }
    add_db_column(t, c, 0);
    return t;
  }
  t.columns = {"#",
               "device",
               "kernel",
               "source",
               "pass",
               "problem",
               {"baseline ms", Align::right},
               {"baseline n", Align::right},
               {"contender ms", Align::right},
               {"contender n", Align::right},
               {"ratio", Align::right},
               {"95% lo", Align::right},
               {"95% hi", Align::right},
               {"p", Align::right},
               {"in cycles", Align::right},
               "verdict",
               "why"};
  std::int64_t number = 0;
  for (const Row& r : c.rows) {
    const SideSamples& b = r.baseline->samples;
    const SideSamples& k = r.contender->samples;
    const Judgement& j = r.judgement;
    const bool tested = j.ratio > 0;
    t.rows.push_back({++number, r.device, r.kernel, r.source, std::string(to_string(r.pass)),
                      problem(r), significant(b.median_s * 1e3, 5),
                      static_cast<std::int64_t>(b.sorted.size()), significant(k.median_s * 1e3, 5),
                      static_cast<std::int64_t>(k.sorted.size()), or_null(j.ratio, 4),
                      or_null(j.interval.lo, 4), or_null(j.interval.hi, 4),
                      tested ? significant(std::max(j.p, 1e-300), 2) : Cell{std::monostate{}},
                      or_null(j.cycle_ratio, 4), std::string(to_string(j.verdict)), j.reason});
  }
  add_db_column(t, c, 1);
  return t;
}

std::string unmatched_lines(const Comparison& c) {
  std::string out;
  for (const auto& d : c.only_baseline)
    out += fmt::format("only in the baseline {}: {}\n", c.baseline.label, d);
  for (const auto& d : c.only_contender)
    out += fmt::format("only in the contender {}: {}\n", c.contender.label, d);
  return out;
}

std::string markdown(const Comparison& c) {
  std::string out = fmt::format("### compare: `{}` (baseline) against `{}` (contender)\n\n",
                                c.baseline_name(), c.contender_name());
  out += fmt::format("**{}**\n\n", summary_line(c));
  out += fmt::format(
      "Ratio = contender's {} / baseline's: below 1 is faster. Threshold {:g}%{}.\n\n",
      c.predicted ? "predicted time" : "median time", c.rules.threshold * 100,
      c.predicted ? "" : fmt::format(", alpha {:g}, bootstrap 95% interval", c.rules.alpha));
  out += report::md::render(comparison_table(c));
  if (const std::string unmatched = unmatched_lines(c); !unmatched.empty()) {
    std::string body;
    for (std::size_t start = 0; start < unmatched.size();) {
      const std::size_t end = unmatched.find('\n', start);
      body += fmt::format("- {}\n", report::md::escape(unmatched.substr(start, end - start)));
      start = end + 1;
    }
    out += fmt::format(
        "\n{}", report::md::details(fmt::format("{} unmatched configurations",
                                                c.only_baseline.size() + c.only_contender.size()),
                                    body));
  }
  return out;
}

report::Figure ratio_chart(const Comparison& c, const std::string& name) {
  report::Figure f;
  f.name = name;
  f.title = fmt::format("contender {} against baseline {}", c.contender_name(), c.baseline_name());
  f.caption = fmt::format(
      "Contender / baseline {} per configuration (numbered as the table's rows){}; the line at "
      "1.0 is no change, the dashed lines the +-{:g}% threshold.",
      c.predicted ? "predicted time" : "median time",
      c.predicted ? "" : ", with its bootstrap 95% interval", c.rules.threshold * 100);
  report::Panel p;
  p.title = fmt::format("{} configurations: below 1.0 the contender is faster", c.rows.size());
  const double n = double(c.rows.size());
  double lo = 1 / (1 + c.rules.threshold), hi = 1 + c.rules.threshold;
  report::Series interval{"95% interval", report::SeriesStyle::roof, "#7f7f7f", {}};
  std::array<report::Series, 4> points;
  const std::array<std::string, 4> colours = {"#1a9850", "#d73027", "#4575b4", "#f39c12"};
  for (std::size_t v = 0; v < 4; ++v)
    points[v] = {std::string(to_string(static_cast<Verdict>(v))),
                 report::SeriesStyle::points,
                 colours[v],
                 {}};
  std::vector<report::Series> intervals;
  for (std::size_t i = 0; i < c.rows.size(); ++i) {
    const Judgement& j = c.rows[i].judgement;
    if (!(j.ratio > 0)) continue;
    const double x = double(i + 1);
    points[static_cast<std::size_t>(j.verdict)].points.push_back({x, j.ratio, ""});
    lo = std::min({lo, j.ratio, j.interval.lo});
    hi = std::max({hi, j.ratio, j.interval.hi});
    if (!c.predicted && j.interval.hi > j.interval.lo) {
      report::Series bar = interval;
      bar.points = {{x, j.interval.lo, ""}, {x, j.interval.hi, ""}};
      intervals.push_back(std::move(bar));
    }
  }
  const double margin = (hi - lo) * 0.08;
  p.x = report::linear_axis("configuration (the table's #)", 0.0, n + 1);
  p.y = report::linear_axis("contender / baseline time", lo - margin, hi + margin);
  p.series = std::move(intervals);
  p.series.push_back(
      {"no change", report::SeriesStyle::roof, "#000000", {{0, 1, ""}, {n + 1, 1, ""}}});
  for (const double edge : {1 / (1 + c.rules.threshold), 1 + c.rules.threshold})
    p.series.push_back({fmt::format("+-{:g}% threshold", c.rules.threshold * 100),
                        report::SeriesStyle::dashed_line,
                        "#555555",
                        {{0, edge, ""}, {n + 1, edge, ""}}});
  for (auto& s : points) p.series.push_back(std::move(s));
  p.legend = report::Legend::outside_right;
  f.panels.push_back(std::move(p));
  f.panel_width = std::clamp(300 + int(n) * 14, 760, 2400);
  f.panel_height = 480;
  return f;
}

}  // namespace fa4::compare
