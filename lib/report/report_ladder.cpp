// The end of the measured section: our kernel ladders step by step, forward and backward. Per
// device and pass, per group (dtype, head dim, mask), a row per problem: each rung's TFLOP/s
// (naive, fa2, fa3, fa4; fa2_bwd, fa3_bwd) with the model's prediction beside it, each ablation
// or variant (fa3_no_pingpong, fa3_bwd_atomics, ...) likewise, the peers of the same run (cuDNN
// with the model beside it), the speedup of each rung over the one below, the best rung over
// cuDNN and its share of the GEMM ceiling measured on that device ('fa4-analyze ceilings',
// gemm_bf16, labelled with its run), and each ablation as a ratio to the rung it ablates. The
// backward ladder has its chart: a line per kernel against seqlen, a panel per head dim.
#include <fmt/format.h>

#include <algorithm>
#include <iterator>
#include <map>
#include <optional>
#include <set>
#include <tuple>

#include "hw/loader.hpp"
#include "report/chart.hpp"
#include "report/ladder_cells.hpp"
#include "report/markdown.hpp"
#include "report/numbers.hpp"
#include "report/rungs.hpp"
#include "report/sections.hpp"

namespace fa4::report {
namespace {

using store::MeasurementRow;

constexpr std::string_view kGemmUnit = "gemm_bf16";

struct GroupKey {
  Dtype dtype;
  std::int64_t headdim;
  bool causal;
  auto operator<=>(const GroupKey&) const = default;
};

struct RowKey {  // a paged, ragged or split shape after the plain one
  std::int64_t seqlen_q, seqlen_k, batch, heads_q, heads_kv;
  ServingFields serving;
  auto operator<=>(const RowKey&) const = default;
};

using Groups = std::map<GroupKey, std::map<RowKey, LadderCells>>;

// The kernels of one pass's ladder on one device, in the order its columns show them.
struct Columns {
  std::vector<std::string> rungs, ablations, peers;
};

Columns columns_of(const Groups& groups, Pass pass) {
  std::set<std::string> present;
  for (const auto& [key, rows] : groups)
    for (const auto& [row, cells] : rows)
      for (const auto& [kernel, m] : cells) present.insert(kernel);
  Columns out;
  for (model::Algorithm algorithm : model::kAllAlgorithms)
    if (const std::string rung = rung_kernel(algorithm, pass); present.count(rung))
      out.rungs.push_back(rung);
  for (const std::string& k : present)
    if (!ablated_rung(k, pass).empty()) out.ablations.push_back(k);
  for (std::string_view peer : kPeerOrder)
    if (present.count(std::string(peer))) out.peers.emplace_back(peer);
  for (const std::string& k : present)
    if (!rung_index(k, pass) && ablated_rung(k, pass).empty() &&
        std::find(out.peers.begin(), out.peers.end(), k) == out.peers.end())
      out.peers.push_back(k);  // a peer outside the fixed order, or one of ours of no ladder
  return out;
}

// The GEMM ceiling of a device, with the run that measured it.
struct Gemm {
  double tflops = 0;
  std::string run;  // "run 1 of 2026-11-23T00:52:24Z"
  std::string started_at;
};

Gemm gemm_ceiling(const std::vector<store::CeilingRow>& ceilings, const std::string& device) {
  Gemm out;
  for (const store::CeilingRow& c : ceilings)
    if (c.ceiling.device == device && c.ceiling.unit == kGemmUnit)
      out = {c.ceiling.value, fmt::format("run {} of {}", c.run_id, c.started_at), c.started_at};
  return out;
}

std::string group_table(const std::map<RowKey, LadderCells>& rows, const Columns& c, Pass pass,
                        const Gemm& gemm, const CudnnModel& cudnn_model) {
  const auto right = Align::right;
  const bool cudnn = std::find(c.peers.begin(), c.peers.end(), kCudnn) != c.peers.end();
  Table table{{{"seqlen"}, {"batch", right}, {"heads", right}}, {}};
  for (const auto& list : {c.rungs, c.ablations})
    for (const auto& k : list) {
      table.columns.push_back({k, right});
      table.columns.push_back({k + " model", right});
    }
  for (const auto& p : c.peers) {
    table.columns.push_back({p, right});
    if (p == kCudnn && cudnn_model) table.columns.push_back({p + " model", right});
  }
  for (std::size_t i = 1; i < c.rungs.size(); ++i)
    table.columns.push_back({c.rungs[i] + " / " + c.rungs[i - 1], right});
  if (cudnn && !c.rungs.empty()) table.columns.push_back({"best / cuDNN", right});
  if (gemm.tflops > 0 && !c.rungs.empty()) table.columns.push_back({"best / GEMM ceiling", right});
  for (const auto& a : c.ablations)
    table.columns.push_back({fmt::format("{} / {}", a, ablated_rung(a, pass)), right});

  const auto text = [](std::optional<double> v) { return v ? integer(*v) : std::string("—"); };
  const auto quotient = [](std::optional<double> a, std::optional<double> b) {
    return a && b ? ratio(*a / *b) : std::string("—");
  };
  for (const auto& [row, cells] : rows) {
    std::vector<Cell> line = {
        seqlen_label(row.seqlen_q, row.seqlen_k) + describe_serving(row.serving),
        fmt::format("{}", row.batch), fmt::format("{}", row.heads_q)};
    for (const auto& list : {c.rungs, c.ablations})
      for (const auto& k : list) {
        line.emplace_back(text(cells.tflops(k)));
        line.emplace_back(text(cells.predicted(k)));
      }
    for (const auto& p : c.peers) {
      line.emplace_back(text(cells.tflops(p)));
      if (p == kCudnn && cudnn_model)
        line.emplace_back(cells.at(p) ? text(cudnn_model(*cells.at(p))) : "—");
    }
    std::optional<double> best;
    for (const auto& r : c.rungs)
      if (const auto t = cells.tflops(r); t && (!best || *t > *best)) best = t;
    for (std::size_t i = 1; i < c.rungs.size(); ++i)
      line.emplace_back(quotient(cells.tflops(c.rungs[i]), cells.tflops(c.rungs[i - 1])));
    if (cudnn && !c.rungs.empty()) line.emplace_back(quotient(best, cells.tflops(kCudnn)));
    if (gemm.tflops > 0 && !c.rungs.empty())
      line.emplace_back(best ? percent(100 * *best / gemm.tflops) : "—");
    for (const auto& a : c.ablations) {
      const auto r = cells.ablation_ratio(a, ablated_rung(a, pass));
      line.emplace_back(r ? ratio(*r) : std::string("—"));
    }
    table.rows.push_back(std::move(line));
  }
  return md::render(table) + "\n";
}

using Samples = std::vector<std::pair<double, const MeasurementRow*>>;

// "0.68x (b4 h32 s4096 d64 bf16) to 1.28x (b32 h16 s512 d128 bf16 causal)": the lowest and the
// highest value with the problem of each ("0.87x (b4 h16 s8192 d128 bf16)" for one value).
std::string span(const Samples& v, std::string (*format)(double)) {
  const auto [lo, hi] = std::minmax_element(
      v.begin(), v.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  if (v.size() == 1) return fmt::format("{} ({})", format(lo->first), describe(lo->second->shape));
  return fmt::format("{} ({}) to {} ({})", format(lo->first), describe(lo->second->shape),
                     format(hi->first), describe(hi->second->shape));
}

// A line per rung: its lowest and highest ratio to cuDNN, its highest share of the GEMM ceiling,
// and measured over the model's prediction; a line per ablation: its ratio to the rung it ablates.
std::string ladder_findings(const Groups& groups, const Columns& c, Pass pass, const Gemm& gemm) {
  std::string out;
  for (const auto& k : c.rungs) {
    Samples vs_cudnn, share, vs_model;
    for (const auto& [key, rows] : groups)
      for (const auto& [row, cells] : rows) {
        const auto t = cells.tflops(k);
        if (!t) continue;
        if (const auto d = cells.tflops(kCudnn)) vs_cudnn.push_back({*t / *d, cells.at(k)});
        if (gemm.tflops > 0) share.push_back({*t / gemm.tflops, cells.at(k)});
        if (const auto p = cells.predicted(k)) vs_model.push_back({*t / *p, cells.at(k)});
      }
    std::vector<std::string> parts;
    if (!vs_cudnn.empty()) parts.push_back("over cuDNN " + span(vs_cudnn, ratio));
    if (!share.empty()) {
      const auto hi = std::max_element(share.begin(), share.end());
      parts.push_back(fmt::format("at most {} of the GEMM ceiling ({})", percent(100 * hi->first),
                                  describe(hi->second->shape)));
    }
    if (!vs_model.empty()) parts.push_back("measured over the model " + span(vs_model, ratio));
    if (!parts.empty()) out += fmt::format("- `{}`: {}.\n", k, fmt::join(parts, "; "));
  }
  for (const auto& a : c.ablations) {
    Samples ratios;
    const std::string base = ablated_rung(a, pass);
    for (const auto& [key, rows] : groups)
      for (const auto& [row, cells] : rows)
        if (const auto r = cells.ablation_ratio(a, base)) ratios.push_back({*r, cells.at(a)});
    if (!ratios.empty())
      out += fmt::format("- `{}` over `{}`: {}.\n", a, base, span(ratios, ratio));
  }
  return out.empty() ? out : out + "\n";
}

// A panel per head dim: a line per rung and peer through its ok measurements against seqlen, solid
// for non-causal and dashed for causal (one colour and legend entry per kernel), at the group's
// most measured tokens and heads.
Figure ladder_figure(const std::string& device, const Groups& groups, const Columns& c, Pass pass) {
  Figure figure;
  figure.name = fmt::format("ladder-{}-{}", to_string(pass), file_stem(device));
  figure.title = fmt::format("Measured {} TFLOP/s on {} (solid: non-causal, dashed: causal)",
                             pass == Pass::fwd ? "forward" : "backward", device);
  std::map<std::int64_t, Panel> panels;
  std::set<std::string> runs;
  for (const auto& [key, rows] : groups) {
    Panel& panel = panels[key.headdim];
    if (panel.title.empty()) {
      panel.title = fmt::format("{} hd{} {}", to_string(pass), key.headdim, to_string(key.dtype));
      panel.x = log_axis("seqlen (tokens)", 2);
      panel.y = linear_axis("measured TFLOP/s", 0.0);
      panel.legend = Legend::outside_right;
    }
    // The group's most measured setting (tokens per batch, query and kv heads, serving fields):
    // one line per kernel over seqlen, other settings (GQA shapes, other token counts, paged
    // caches) left to the tables.
    using Setting = std::tuple<std::int64_t, std::int64_t, std::int64_t, ServingFields>;
    const auto setting = [](const RowKey& r) {
      return Setting{r.batch * r.seqlen_q, r.heads_q, r.heads_kv, r.serving};
    };
    std::map<Setting, std::ptrdiff_t> settings;  // measurements per setting
    for (const auto& [row, cells] : rows)
      settings[setting(row)] += std::distance(cells.begin(), cells.end());
    const Setting common = std::max_element(settings.begin(), settings.end(), [](auto& a, auto& b) {
                             return a.second < b.second;
                           })->first;
    // Rungs and peers (the ablations' ratios are in the findings and tables); a kernel's causal
    // line shares its colour and legend entry.
    for (const auto& list : {c.rungs, c.peers})
      for (const auto& k : list) {
        Series line{k, key.causal ? SeriesStyle::dashed_line : SeriesStyle::line, k, {}};
        for (const auto& [row, cells] : rows)
          if (const auto t = cells.tflops(k); t && setting(row) == common) {
            line.points.push_back({double(row.seqlen_k), *t, ""});
            runs.insert(cells.run(k));
          }
        if (line.points.size() > 1) panel.series.push_back(std::move(line));
      }
  }
  for (auto& [headdim, panel] : panels)
    if (!panel.series.empty()) figure.panels.push_back(std::move(panel));
  figure.columns = 1;
  figure.panel_width = 900;
  figure.panel_height = 420;
  figure.caption = fmt::format("Figures: median times of {} on {}.", fmt::join(runs, "; "), device);
  return figure;
}

std::string intro(Pass pass, const std::string& device, const Gemm& gemm, bool gemm_same_run) {
  const std::string what = fmt::format(
      "{}, each with the current model's prediction beside it (its configuration in "
      "`lib/orchestration/kernel_models.cpp`, on the hardware model `bench` matched to the "
      "device), and {} (cuDNN with the model's "
      "prediction for the algorithm that stands for it, `lib/model/profiles.cpp`; the "
      "model has none for the other peers)",
      pass == Pass::fwd ? "Forward TFLOP/s of each rung and its ablations"
                        : "Backward TFLOP/s (2.5x the forward FLOPs; preprocessing, main kernel "
                          "and dQ conversion timed together) of our backward kernels and their "
                          "variants",
      pass == Pass::fwd ? "the peers measured on this device"
                        : "the peers' backward timed in the same call");
  if (gemm.tflops <= 0)
    return fmt::format(
        "{}; the speedup of each rung over the one below and each ablation over the kernel it "
        "ablates (measured from the same source revision, else a dash). No GEMM ceiling is "
        "recorded for {}: `fa4-analyze ceilings` measures one.\n\n",
        what, device);
  return fmt::format(
      "{}; the speedup of each rung over the one below, the best rung over cuDNN and its share "
      "of the GEMM ceiling of {} ({} TFLOP/s, cuBLAS bf16 8192^3, `fa4-analyze ceilings`, {}{}), "
      "and each ablation over the kernel it ablates (measured from the same source revision, "
      "else a dash).\n\n",
      what, device, integer(gemm.tflops), gemm.run,
      gemm_same_run ? "" : ", not the run of these figures");
}

}  // namespace

std::string ladder_subsection(const ReportInputs& in, ReportCharts& charts) {
  std::map<std::string, std::map<Pass, Groups>> devices;
  for (const MeasurementRow& m : in.measurements) {
    if (!m.ok() || m.tflops <= 0) continue;
    const AttnShape& s = m.shape;
    devices[m.device][m.pass][{s.dtype, s.headdim, s.causal}]
           [{s.seqlen_q, s.seqlen_k, s.batch, s.heads_q, s.heads_kv, serving_fields(s)}]
               .add(m);
  }
  std::string out;
  for (const auto& [device, passes] : devices) {
    const Gemm gemm = gemm_ceiling(in.ceilings, device);
    const CudnnModel cudnn_model(in.gpus, in.measurements, device);
    for (const auto& [pass, groups] : passes) {
      const Columns c = columns_of(groups, pass);
      // A forward ladder needs two rungs; the backward one is shown for whatever was measured
      // (its chart is the only one of the backward figures).
      if (pass == Pass::fwd && c.rungs.size() < 2) continue;
      out += pass == Pass::fwd
                 ? fmt::format("### The kernel ladder on {}, step by step\n\n", device)
                 : fmt::format("### The backward ladder on {}\n\n", device);
      bool same_run = false;
      for (const auto& [key, rows] : groups)
        for (const auto& [row, cells] : rows) same_run = same_run || cells.started(gemm.started_at);
      out += intro(pass, device, gemm, same_run) + ladder_findings(groups, c, pass, gemm);
      if (pass == Pass::bwd) out += charts.embed(ladder_figure(device, groups, c, pass));
      std::string tables;
      for (const auto& [key, rows] : groups)
        tables += fmt::format("#### {} {} d{} {}\n\n", to_string(pass), to_string(key.dtype),
                              key.headdim, key.causal ? "causal" : "non-causal") +
                  group_table(rows, c, pass, gemm, cudnn_model);
      out += md::details(fmt::format("The {} ladder on {}, per head dim and mask: TFLOP/s, the "
                                     "model, the peers and the ratios",
                                     pass == Pass::fwd ? "forward" : "backward", device),
                         tables);
    }
    out += training_step_subsection(in.measurements, cudnn_model, device);
  }
  return out;
}

}  // namespace fa4::report
