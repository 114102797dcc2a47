// A comparison as the CLI prints it: one table (text, CSV, JSON through report/table_format.hpp,
// markdown for a pull request through report/markdown.hpp), the unmatched configurations, and the
// summary line; and the chart of the ratios with their intervals (report/chart.hpp).
#pragma once

#include <string>

#include "compare/comparison.hpp"
#include "report/chart.hpp"
#include "report/table.hpp"

namespace fa4::compare {

// One row per configuration. Measured: device, kernel, source, pass, problem, both medians (ms)
// and sample counts, the ratio, its interval, p, the ratio in SM cycles, the verdict and why.
// Predicted: gpu, algorithm, pass, problem, both times (ms), the ratio, both bottlenecks, the
// verdict. A db column (after #) when the sides span several databases.
report::Table comparison_table(const Comparison& comparison);

// The unmatched configurations, one line each ("only in BASELINE a.db:2: ..."); empty when none.
std::string unmatched_lines(const Comparison& comparison);

// The whole comparison as markdown: a heading naming both sides, the summary, the table, the
// unmatched configurations folded.
std::string markdown(const Comparison& comparison);

// The ratio of each configuration (a point coloured by its verdict) with its interval, a line at
// 1.0 and the threshold's band; configurations numbered as the table's rows.
report::Figure ratio_chart(const Comparison& comparison, const std::string& name);

}  // namespace fa4::compare
