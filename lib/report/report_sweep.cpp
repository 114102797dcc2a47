// The sweep section: predicted TFLOP/s against sequence length, from the store's latest
// predictions. Per GPU one chart (a panel per pass and head dim, a line per kernel, solid
// non-causal and dashed causal, the papers' MHA heads) and every prediction in a CSV beside it.
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "report/chart.hpp"
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

using Groups = std::map<GroupKey, Group>;

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

// Every stored prediction of the GPU, one CSV line each.
std::string predictions_csv(const std::vector<store::ReportRow>& rows, const std::string& gpu) {
  std::string out =
      "gpu,kernel,pass,batch,heads_q,heads_kv,seqlen_q,seqlen_k,headdim,headdim_v,causal,dtype,"
      "tflops,bottleneck,tile_bottleneck,run_id,model_version\n";
  for (const store::ReportRow& r : rows) {
    if (r.gpu != gpu) continue;
    const AttnShape& s = r.shape;
    out += fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{:.1f},{},{},{},{}\n", r.gpu,
                       model::to_string(r.algorithm), to_string(r.pass), s.batch, s.heads_q,
                       s.heads_kv, s.seqlen_q, s.seqlen_k, s.headdim, s.headdim_v, s.causal ? 1 : 0,
                       to_string(s.dtype), r.tflops, r.bottleneck, r.tile_bottleneck, r.run_id,
                       r.model_version);
  }
  return out;
}

// The token count (batch x seqlen_q) most rows of the group have: a chart's line keeps to one, so
// two sweeps stored side by side do not zigzag.
std::int64_t common_tokens(const Group& g) {
  std::map<std::int64_t, int> count;
  for (const auto& [row, cells] : g.tflops) ++count[row.batch * row.seqlen_q];
  return std::max_element(count.begin(), count.end(),
                          [](auto& a, auto& b) { return a.second < b.second; })
      ->first;
}

// A line per kernel of a group drawn in a panel: solid for non-causal, dashed for causal.
void add_lines(Panel& panel, const GroupKey& key, const Group& g) {
  const std::int64_t tokens = common_tokens(g);
  for (model::Algorithm a : g.kernels) {
    const std::string kernel(model::to_string(a));
    Series line{key.causal ? kernel + " causal" : kernel,
                key.causal ? SeriesStyle::dashed_line : SeriesStyle::line,
                kernel,
                {}};
    for (const auto& [row, cells] : g.tflops)
      if (const auto it = cells.find(a);
          it != cells.end() && row.batch * row.seqlen_q == tokens && row.seqlen_q == row.seqlen_k)
        line.points.push_back({double(row.seqlen_k), it->second, ""});
    if (line.points.size() > 1) panel.series.push_back(std::move(line));
  }
}

// One panel per pass and head dim, from the groups whose heads are the papers' (as many KV heads
// as query heads) in bf16.
Figure gpu_figure(const std::string& gpu, const Groups& groups, const std::string& caption) {
  std::map<std::pair<Pass, std::int64_t>, Panel> panels;
  for (const auto& [key, group] : groups) {
    if (key.gpu != gpu || key.heads_q != key.heads_kv || key.dtype != Dtype::bf16 ||
        key.headdim != key.headdim_v)
      continue;
    Panel& p = panels[{key.pass, key.headdim}];
    p.title = fmt::format("{} hd{} ({} heads)", to_string(key.pass), key.headdim, key.heads_q);
    p.x = log_axis("seqlen (tokens)", 2);
    p.y = linear_axis("predicted TFLOP/s", 0.0);
    add_lines(p, key, group);
  }
  Figure figure;
  figure.name = "predicted-" + gpu;
  figure.title = fmt::format(
      "Predicted TFLOP/s against sequence length on {} (bf16; solid "
      "non-causal, dashed causal)",
      gpu);
  // Forward panels first (Pass::fwd sorts first); each legend beside its panel, clear of the lines.
  for (auto& [pass_and_headdim, panel] : panels) {
    panel.legend = Legend::outside_right;
    figure.panels.push_back(std::move(panel));
  }
  figure.columns = 3;
  figure.panel_width = 580;
  figure.panel_height = 360;
  figure.caption = caption;
  return figure;
}

// "Figures: predictions of run(s) 1 (revision 54686f4), model version 1."
std::string sweep_caption(const std::vector<store::ReportRow>& rows, const std::string& gpu) {
  std::set<std::string> runs, versions;
  for (const store::ReportRow& r : rows)
    if (r.gpu == gpu) {
      runs.insert(fmt::format("{} (revision {})", r.run_id, r.revision));
      versions.insert(r.model_version);
    }
  std::string run_list, version_list;
  for (const auto& r : runs) run_list += (run_list.empty() ? "" : ", ") + r;
  for (const auto& v : versions) version_list += (version_list.empty() ? "" : ", ") + v;
  return fmt::format(
      "Figures: the stored predictions of run(s) {}, model version {}; lines "
      "with two or more seqlens at the sweep's usual token count.",
      run_list, version_list);
}

}  // namespace

std::string sweep_section(const ReportInputs& in, ReportCharts& charts) {
  std::string out = heading(Section::sweep);
  if (in.predictions.empty())
    return out +
           "No predictions are stored: run `fa4-analyze predict --sweep "
           "data/sweeps/fa4-paper.json` (or another sweep), then this command again.\n\n";
  out +=
      "The latest stored prediction for each GPU, kernel, pass and shape: a chart per GPU, and "
      "every figure in a CSV file beside the report.\n\n";
  Groups groups;
  for (const auto& r : in.predictions) {
    Group& g = groups[key_of(in.gpus, r)];
    g.kernels.insert(r.algorithm);
    g.tflops[{r.shape.seqlen_q, r.shape.seqlen_k, r.shape.batch}][r.algorithm] = r.tflops;
  }
  std::vector<std::string> gpus;
  for (const auto& [key, group] : groups)
    if (std::find(gpus.begin(), gpus.end(), key.gpu) == gpus.end()) gpus.push_back(key.gpu);
  for (const std::string& gpu : gpus) {
    out += fmt::format("### {}\n\n", gpu);
    out += charts.embed(gpu_figure(gpu, groups, sweep_caption(in.predictions, gpu)));
    const std::string csv = "predicted-" + gpu + ".csv";
    out += fmt::format(
        "Every prediction on {} (all kernels, passes, head dims, heads and "
        "seqlens, with the bound unit): [{}]({}).\n\n",
        gpu, csv, charts.attach(csv, predictions_csv(in.predictions, gpu)));
  }
  return out;
}

}  // namespace fa4::report
