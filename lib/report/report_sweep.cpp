// The sweep section: predicted TFLOP/s against sequence length, from the digest of the store's
// latest predictions. Per GPU one chart (a panel per pass and head dim, a line per kernel, solid
// non-causal and dashed causal, the papers' MHA heads) and every prediction in a CSV beside it,
// read from the store as the file is written.
#include <fmt/format.h>

#include <map>

#include "report/chart.hpp"
#include "report/numbers.hpp"
#include "report/sections.hpp"

namespace fa4::report {
namespace {

using Groups = std::map<SweepGroupKey, SweepGroup>;

// Every stored prediction of the GPU, one CSV line each, read as the file is written.
TextProducer predictions_csv(ReadPredictions read, std::string gpu) {
  return [read = std::move(read), gpu = std::move(gpu)](const auto& write) {
    write(
        "gpu,kernel,pass,batch,heads_q,heads_kv,seqlen_q,seqlen_k,headdim,headdim_v,causal,dtype,"
        "tflops,bottleneck,tile_bottleneck,run_id,model_version\n");
    return read({.gpu = gpu}, [&](const store::ReportRow& r) {
      const AttnShape& s = r.shape;
      write(fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{:.1f},{},{},{},{}\n", r.gpu,
                        model::to_string(r.algorithm), to_string(r.pass), s.batch, s.heads_q,
                        s.heads_kv, s.seqlen_q, s.seqlen_k, s.headdim, s.headdim_v,
                        s.causal ? 1 : 0, to_string(s.dtype), r.tflops, r.bottleneck,
                        r.tile_bottleneck, r.run_id, r.model_version));
    });
  };
}

// A line per kernel of a group drawn in a panel: solid for non-causal, dashed for causal.
void add_lines(Panel& panel, const SweepGroupKey& key, const SweepGroup& g) {
  for (model::Algorithm a : g.kernels) {
    const std::string kernel(model::to_string(a));
    Series line{key.causal ? kernel + " causal" : kernel,
                key.causal ? SeriesStyle::dashed_line : SeriesStyle::line,
                kernel,
                {}};
    for (const auto& [point, cells] : g.tflops)
      if (const auto it = cells.find(a); it != cells.end())
        line.points.push_back({double(point.seqlen_k), it->second, ""});
    if (line.points.size() > 1) panel.series.push_back(std::move(line));
  }
}

// One panel per pass and head dim, from the charted groups (the papers' heads and dtype).
Figure gpu_figure(const std::string& gpu, const Groups& groups, const std::string& caption) {
  std::map<std::pair<Pass, std::int64_t>, Panel> panels;
  for (const auto& [key, group] : groups) {
    if (key.gpu != gpu) continue;
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
std::string sweep_caption(const PredictionDigest& d, const std::string& gpu) {
  std::string run_list, version_list;
  for (const auto& r : d.runs_of_gpu.at(gpu)) run_list += (run_list.empty() ? "" : ", ") + r;
  for (const auto& v : d.model_versions_of_gpu.at(gpu))
    version_list += (version_list.empty() ? "" : ", ") + v;
  return fmt::format(
      "Figures: the stored predictions of run(s) {}, model version {}; lines "
      "with two or more seqlens at the sweep's usual token count.",
      run_list, version_list);
}

}  // namespace

std::string sweep_section(const ReportInputs& in, ReportCharts& charts) {
  std::string out = heading(Section::sweep);
  const PredictionDigest& d = in.predictions;
  if (d.count == 0)
    return out +
           "No predictions are stored: run `fa4-analyze predict --sweep "
           "data/sweeps/fa4-paper.json` (or another sweep), then this command again.\n\n";
  out +=
      "The latest stored prediction for each GPU, kernel, pass and shape: a chart per GPU, and "
      "every figure in a CSV file beside the report.\n\n";
  for (const std::string& gpu : d.gpus) {
    out += fmt::format("### {}\n\n", gpu);
    out += charts.embed(gpu_figure(gpu, d.charted, sweep_caption(d, gpu)));
    const std::string csv = "predicted-" + gpu + ".csv";
    out += fmt::format(
        "Every prediction on {} (all kernels, passes, head dims, heads and "
        "seqlens, with the bound unit): [{}]({}).\n\n",
        gpu, csv, charts.attach(csv, predictions_csv(d.read, gpu)));
  }
  return out;
}

}  // namespace fa4::report
