// The sweep section: predicted TFLOP/s against sequence length, from the store's latest
// predictions. One table per (GPU, pass, head dim, causal; and heads and dtype where a sweep mixes
// them) with the kernels as columns, and a Mermaid line chart for each non-causal forward table.
#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>

#include "report/charts.hpp"
#include "report/markdown.hpp"
#include "report/numbers.hpp"
#include "report/sections.hpp"

namespace fa4::report {
namespace {

struct GroupKey {
  std::size_t gpu_rank;  // position in the hardware list: the report's GPU order
  std::string gpu;
  Pass pass;
  std::int64_t headdim, headdim_v;
  bool causal;
  std::int64_t heads_q, heads_kv;
  Dtype dtype;
  auto operator<=>(const GroupKey&) const = default;
};

struct RowKey {
  std::int64_t seqlen_q, seqlen_k, batch;
  auto operator<=>(const RowKey&) const = default;
};

struct Group {
  std::set<model::Algorithm> kernels;
  std::map<RowKey, std::map<model::Algorithm, double>> tflops;
};

GroupKey key_of(const std::vector<hw::Spec>& gpus, const store::ReportRow& r) {
  const auto it =
      std::find_if(gpus.begin(), gpus.end(), [&](const auto& g) { return g.id == r.gpu; });
  const AttnShape& s = r.shape;
  return {std::size_t(it - gpus.begin()),
          r.gpu,
          r.pass,
          s.headdim,
          s.headdim_v,
          s.causal,
          s.heads_q,
          s.heads_kv,
          s.dtype};
}

std::string group_title(const GroupKey& k) {
  const std::string dims = k.headdim == k.headdim_v
                               ? fmt::format("hd{}", k.headdim)
                               : fmt::format("hd{}/{}", k.headdim, k.headdim_v);
  const std::string heads = k.heads_q == k.heads_kv
                                ? fmt::format("{} heads", k.heads_q)
                                : fmt::format("{}/{} heads", k.heads_q, k.heads_kv);
  return fmt::format("{} {} {} {} ({}, {})", k.gpu, to_string(k.pass), dims,
                     k.causal ? "causal" : "non-causal", heads, to_string(k.dtype));
}

// The chart's x labels: each row's seqlen, with the batch added where two rows share a seqlen
// (sweeps of different token counts stored side by side).
std::vector<std::string> chart_labels(const Group& g) {
  std::vector<std::pair<std::string, std::string>> labels;
  for (const auto& [row, cells] : g.tflops)
    labels.emplace_back(seqlen_label(row.seqlen_q, row.seqlen_k), fmt::format("b{}", row.batch));
  return distinct_labels(labels);
}

std::string group_table(const Group& g) {
  Table table{{{"seqlen"}, {"batch", Align::right}}, {}};
  for (model::Algorithm a : g.kernels)
    table.columns.push_back({std::string(model::to_string(a)), Align::right});
  for (const auto& [row, cells] : g.tflops) {
    std::vector<Cell> line = {seqlen_label(row.seqlen_q, row.seqlen_k),
                              fmt::format("{}", row.batch)};
    for (model::Algorithm a : g.kernels) {
      const auto it = cells.find(a);
      line.push_back(it == cells.end() ? "—" : integer(it->second));
    }
    table.rows.push_back(std::move(line));
  }
  return md::render(table) + "\n";
}

// A line per kernel with a prediction at every seqlen, and the sentence that says their order.
std::string group_chart(const GroupKey& k, const Group& g) {
  LineChart chart{fmt::format("{}: predicted TFLOP/s", group_title(k)),
                  "seqlen",
                  chart_labels(g),
                  "TFLOP/s",
                  {}};
  std::vector<SparseSeries> series;
  for (model::Algorithm a : g.kernels) {
    SparseSeries& line = series.emplace_back(SparseSeries{std::string(model::to_string(a)), {}});
    for (const auto& [row, cells] : g.tflops) {
      const auto it = cells.find(a);
      line.values.push_back(it == cells.end() ? std::nullopt : std::optional(it->second));
    }
  }
  return chart_of_complete_lines(std::move(chart), series, "a prediction");
}

}  // namespace

std::string sweep_section(const std::vector<hw::Spec>& gpus,
                          const std::vector<store::ReportRow>& rows) {
  std::string out = heading(Section::sweep);
  if (rows.empty())
    return out +
           "No predictions are stored: run `fa4-analyze predict --sweep "
           "data/sweeps/fa4-paper.json` (or another sweep), then this command again.\n\n";
  out +=
      "The latest stored prediction for each GPU, kernel, pass and shape, in TFLOP/s; a dash "
      "where the model has no prediction (the kernel does not run on that GPU, or the shape "
      "does not fit). Each non-causal forward table has a chart.\n\n";
  std::map<GroupKey, Group> groups;
  for (const auto& r : rows) {
    Group& g = groups[key_of(gpus, r)];
    g.kernels.insert(r.algorithm);
    g.tflops[{r.shape.seqlen_q, r.shape.seqlen_k, r.shape.batch}][r.algorithm] = r.tflops;
  }
  std::string gpu;
  for (const auto& [key, group] : groups) {
    if (key.gpu != gpu) out += fmt::format("### {}\n\n", gpu = key.gpu);
    out += fmt::format("#### {}\n\n", group_title(key)) + group_table(group);
    if (key.pass == Pass::fwd && !key.causal) out += group_chart(key, group);
  }
  return out;
}

}  // namespace fa4::report
