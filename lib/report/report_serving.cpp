// The serving section: decode as a server runs it, from the measured decode runs (forward, at most
// 16 query rows per sequence and fewer than its keys). Per device: the KV-read bandwidth against
// seqlen_k per batch size of our decode kernels, the peers and the model, with the device's
// measured HBM read and copy ceilings as lines (a chart, the table folded); a paged KV cache
// against the contiguous one of the same shape; a ragged batch against the padded batch of its
// capacity.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <set>
#include <tuple>

#include "core/count_noun.hpp"
#include "hw/loader.hpp"
#include "report/chart.hpp"
#include "report/decode_model.hpp"
#include "report/markdown.hpp"
#include "report/numbers.hpp"
#include "report/rungs.hpp"
#include "report/sections.hpp"

namespace fa4::report {
namespace {

using store::MeasurementRow;

constexpr double kLargeCacheBytes = 1e9;  // the bar: 90% of the ceiling from 1 GB of KV

// The KV-read bandwidth of a measurement, TB/s: the fewest bytes a decode step moves (K and V of
// each sequence's keys, Q, O and LSE once: what `bench` prints) over its median time.
double kv_tb_s(const MeasurementRow& m) {
  return attention_min_hbm_bytes(m.shape, Pass::fwd) / m.median_s / 1e12;
}

bool usable(const MeasurementRow& m) { return m.ok() && m.median_s > 0; }

bool plain(const AttnShape& s) { return s.page_size == 0 && s.seqlens_k.empty() && s.splits == 0; }

// A column: our decode kernels first (fa3_decode, then the others by name), then our other
// kernels, then the peers in the report's order.
struct Kernel {
  int group;  // 0 our decode kernels, 1 our others, 2 peers
  std::size_t rank;
  std::string name, source;
  auto operator<=>(const Kernel&) const = default;
};

Kernel kernel_of(const MeasurementRow& m) {
  if (!m.ours())
    return {
        2,
        std::size_t(std::find(kPeerOrder.begin(), kPeerOrder.end(), m.kernel) - kPeerOrder.begin()),
        m.kernel, m.source};
  if (our_decode_options(m.kernel, m.shape))
    return {0, m.kernel == "fa3_decode" ? 0u : 1u, m.kernel, m.source};
  return {1, 0, m.kernel, m.source};
}

// What one chart's lines share: the heads, head dims, dtype, query rows and mask.
struct Setting {
  std::int64_t heads_q, heads_kv, headdim, headdim_v;
  Dtype dtype;
  std::int64_t seqlen_q;
  bool causal;
  auto operator<=>(const Setting&) const = default;
};

Setting setting_of(const AttnShape& s) {
  return {s.heads_q, s.heads_kv, s.headdim, s.headdim_v, s.dtype, s.seqlen_q, s.causal};
}

std::string setting_text(const Setting& k) {
  const std::string dims = k.headdim == k.headdim_v
                               ? fmt::format("hd{}", k.headdim)
                               : fmt::format("hd{}/{}", k.headdim, k.headdim_v);
  return fmt::format("h{}/{} {} {}, {} query row{}{}", k.heads_q, k.heads_kv, dims,
                     to_string(k.dtype), k.seqlen_q, k.seqlen_q == 1 ? "" : "s",
                     k.causal ? " causal" : "");
}

// One problem's order in the tables: setting, batch, keys, then its serving fields.
struct ProblemKey {
  Setting setting;
  std::int64_t batch, seqlen_k;
  ServingFields serving;
  auto operator<=>(const ProblemKey&) const = default;
};

ProblemKey problem_key(const AttnShape& s) {
  return {setting_of(s), s.batch, s.seqlen_k, serving_fields(s)};
}

using Cells = std::map<Kernel, const MeasurementRow*>;

struct Problem {
  AttnShape shape;
  Cells cells;
};

struct Device {
  std::set<Kernel> kernels;
  std::map<ProblemKey, Problem> problems;
};

// The device's measured HBM streams, the read-only one first.
struct Ceiling {
  std::string unit;  // "hbm_read", "hbm_copy"
  double tb_s;
  std::string provenance;  // "run 4, 2026-12-01"
};

std::vector<Ceiling> hbm_ceilings(const std::vector<store::CeilingRow>& rows,
                                  const std::string& device) {
  std::vector<Ceiling> out;
  for (const std::string_view unit : {"hbm_read", "hbm_copy"})
    for (const store::CeilingRow& r : rows)
      if (r.ceiling.device == device && r.ceiling.unit == unit && r.ceiling.value > 0)
        out.push_back({std::string(unit), r.ceiling.value,
                       fmt::format("run {}, {}", r.run_id, r.started_at.substr(0, 10))});
  return out;
}

std::string ceiling_name(const Ceiling& c) {
  return fmt::format("HBM {} {:.2f} TB/s (measured)", c.unit == "hbm_read" ? "read" : "copy",
                     c.tb_s);
}

std::optional<double> tb_s_of(const Cells& cells, const Kernel& k) {
  const auto it = cells.find(k);
  if (it == cells.end() || !usable(*it->second)) return std::nullopt;
  return kv_tb_s(*it->second);
}

const Kernel* find_kernel(const std::set<Kernel>& kernels, std::string_view name) {
  for (const Kernel& k : kernels)
    if (k.name == name) return &k;
  return nullptr;
}

// The model's KV-read TB/s for our kernel at the shape (the same bytes over its predicted time).
std::optional<double> model_tb_s(const hw::Spec* gpu, const Kernel& k, const AttnShape& shape) {
  if (!gpu) return std::nullopt;
  const auto p = predict_our_decode(*gpu, k.name, shape);
  if (!p || p->time_s <= 0) return std::nullopt;
  return attention_min_hbm_bytes(shape, Pass::fwd) / p->time_s / 1e12;
}

// Under a table whose pairs come from different runs (each problem's latest measurement).
constexpr const char* kOtherRunNote =
    "† The two figures come from different runs (each is its problem's latest measurement): runs "
    "on different leases of one GPU differ by a few percent on their own, so compare such a pair "
    "with care.\n\n";

std::string tb(double v) { return fmt::format("{:.2f}", v); }

std::string bytes_text(double bytes) {
  return bytes >= 1e9 ? fmt::format("{:.2f} GB", bytes / 1e9)
                      : fmt::format("{:.0f} MB", bytes / 1e6);
}

std::string runs_of(const std::vector<const MeasurementRow*>& rows) {
  std::set<std::tuple<std::string, std::int64_t, std::string, std::string>> runs;
  for (const MeasurementRow* m : rows)
    runs.insert({m->started_at, m->run_id, m->source, m->revision});
  std::string out;
  for (const auto& [started, id, source, revision] : runs)
    out += fmt::format("{}run {} ({}, {}, rev {})", out.empty() ? "" : "; ", id, source,
                       started.substr(0, 10), revision);
  return out;
}

// The chart's setting: single-row decode with the most measurements of our decode kernels (of
// any kernel where none of ours ran).
std::optional<Setting> chart_setting(const Device& d) {
  std::map<Setting, std::pair<int, int>> counts;  // ours, all
  for (const auto& [key, problem] : d.problems) {
    if (key.setting.seqlen_q != 1 || !plain(problem.shape)) continue;
    for (const auto& [k, m] : problem.cells) {
      if (!usable(*m)) continue;
      auto& c = counts[key.setting];
      c.first += k.group == 0;
      c.second += 1;
    }
  }
  if (counts.empty()) return std::nullopt;
  return std::max_element(counts.begin(), counts.end(),
                          [](const auto& a, const auto& b) { return a.second < b.second; })
      ->first;
}

// Panels per batch size: x = keys per sequence, y = KV-read TB/s; each of our decode kernels and
// each peer a line, the model's prediction of ours as triangles, the ceilings as flat lines.
std::optional<Figure> bandwidth_figure(const std::string& device_name, const Device& d,
                                       const Setting& setting, const hw::Spec* gpu,
                                       const std::vector<Ceiling>& ceilings,
                                       std::vector<const MeasurementRow*>& drawn) {
  std::map<std::int64_t, std::map<std::int64_t, const Problem*>> by_batch;  // batch, seqlen_k
  std::int64_t k_lo = 0, k_hi = 0;
  double y_hi = 0;
  for (const Ceiling& c : ceilings) y_hi = std::max(y_hi, c.tb_s);
  for (const auto& [key, problem] : d.problems) {
    if (key.setting != setting || !plain(problem.shape)) continue;
    by_batch[key.batch][key.seqlen_k] = &problem;
    k_lo = k_lo ? std::min(k_lo, key.seqlen_k) : key.seqlen_k;
    k_hi = std::max(k_hi, key.seqlen_k);
  }
  Figure figure;
  figure.name = "serving-" + file_stem(device_name);
  figure.title =
      fmt::format("KV-read bandwidth of decode on {} ({})", device_name, setting_text(setting));
  std::set<std::string> modeled;
  for (const auto& [batch, problems] : by_batch) {
    Panel panel;
    panel.title = fmt::format("batch {}", batch);
    panel.x = log_axis("keys per sequence (seqlen_k)", 2, double(k_lo) / 1.5, double(k_hi) * 1.5);
    panel.legend = Legend::below;  // clear of the lines, which end near the ceilings
    for (const Kernel& k : d.kernels) {
      if (k.group == 1) continue;  // our kernels that are no decode kernel: in the table only
      Series line{k.name, SeriesStyle::line, "", {}};
      Series model{k.name + " (model)", SeriesStyle::triangles, "", {}};
      for (const auto& [seqlen_k, problem] : problems) {
        if (const auto t = tb_s_of(problem->cells, k)) {
          line.points.push_back({double(seqlen_k), *t, ""});
          drawn.push_back(problem->cells.at(k));
          y_hi = std::max(y_hi, *t);
        }
        if (k.group == 0)
          if (const auto m = model_tb_s(gpu, k, problem->shape)) {
            model.points.push_back({double(seqlen_k), *m, ""});
            y_hi = std::max(y_hi, *m);
          }
      }
      if (!line.points.empty()) panel.series.push_back(std::move(line));
      if (!model.points.empty()) {
        modeled.insert(k.name);
        panel.series.push_back(std::move(model));
      }
    }
    if (panel.series.empty()) continue;
    for (const Ceiling& c : ceilings)
      panel.series.push_back(
          {ceiling_name(c),
           SeriesStyle::dashed_line,
           c.unit == "hbm_read" ? "#2471a3" : "#444444",
           {{double(k_lo) / 1.5, c.tb_s, ""}, {double(k_hi) * 1.5, c.tb_s, ""}}});
    figure.panels.push_back(std::move(panel));
  }
  if (figure.panels.empty()) return std::nullopt;
  for (Panel& p : figure.panels) p.y = linear_axis("KV-read TB/s", 0.0, std::ceil(y_hi * 1.1));
  figure.columns = std::min<int>(3, int(figure.panels.size()));
  figure.panel_width = 600;
  figure.panel_height = 440;
  std::string model_text;
  if (!modeled.empty() && gpu) {
    std::string names;
    for (const std::string& n : modeled) names += (names.empty() ? "" : ", ") + n;
    model_text = fmt::format(
        "; triangles: model version {} on the {} hardware model ({}'s profile, timed after the "
        "harness's L2 flush as bench times it)",
        model::kModelVersion, gpu->id, names);
  }
  std::string ceiling_text;
  for (const Ceiling& c : ceilings)
    ceiling_text += fmt::format("{}{} {:.2f} TB/s ({})", ceiling_text.empty() ? "" : ", ", c.unit,
                                c.tb_s, c.provenance);
  figure.caption = fmt::format(
      "Figures: KV-read TB/s (K, V, Q, O and LSE once over the median time) of {}{}; ceilings: {}.",
      runs_of(drawn), model_text,
      ceiling_text.empty() ? "none measured on this device" : ceiling_text);
  return figure;
}

// "fa3_decode against cuDNN over the same shapes: ...; from 1 GB of KV: ...".
std::string device_summary(const Device& d, const std::vector<Ceiling>& ceilings) {
  const Kernel* cudnn = find_kernel(d.kernels, kCudnn);
  std::string out;
  for (const Kernel& k : d.kernels) {
    if (k.group != 0) continue;
    std::vector<std::pair<double, const AttnShape*>> ratios;
    std::vector<double> large;
    for (const auto& [key, problem] : d.problems) {
      const auto ours = tb_s_of(problem.cells, k);
      if (!ours) continue;
      if (cudnn)
        if (const auto c = tb_s_of(problem.cells, *cudnn))
          ratios.push_back({*ours / *c, &problem.shape});
      if (attention_min_hbm_bytes(problem.shape, Pass::fwd) >= kLargeCacheBytes &&
          plain(problem.shape))
        large.push_back(*ours);
    }
    std::string line = fmt::format("`{}`", k.name);
    if (!ratios.empty()) {
      const auto [lo, hi] = std::minmax_element(ratios.begin(), ratios.end());
      line += fmt::format(
          " against cuDNN (`{}`), cuDNN's time over ours on the same problem: {} ({}) to {} ({}) "
          "over {}",
          kCudnn, ratio(lo->first), describe(*lo->second), ratio(hi->first), describe(*hi->second),
          count_noun(ratios.size(), "shape"));
    } else {
      line += fmt::format(": no shape with cuDNN (`{}`) beside it", kCudnn);
    }
    if (!large.empty()) {
      const auto [lo, hi] = std::minmax_element(large.begin(), large.end());
      line += fmt::format("; from 1 GB of KV ({}): {}-{} TB/s", count_noun(large.size(), "shape"),
                          tb(*lo), tb(*hi));
      if (!ceilings.empty())
        line += fmt::format(", {:.0f}-{:.0f}% of the measured {} ceiling ({:.2f} TB/s)",
                            100 * *lo / ceilings.front().tb_s, 100 * *hi / ceilings.front().tb_s,
                            ceilings.front().unit, ceilings.front().tb_s);
    }
    out += "- " + line + ".\n";
  }
  return out.empty() ? out : out + "\n";
}

// Every plain decode problem: the KV read, each kernel's TB/s, the model's, ours against cuDNN and
// the ceiling.
std::string bandwidth_table(const Device& d, const hw::Spec* gpu,
                            const std::vector<Ceiling>& ceilings) {
  const auto right = Align::right;
  const Kernel* cudnn = find_kernel(d.kernels, kCudnn);
  const Kernel* ours = nullptr;
  for (const Kernel& k : d.kernels)
    if (k.group == 0 && !ours) ours = &k;
  Table table{
      {{"heads"}, {"query rows", right}, {"batch", right}, {"seqlen_k", right}, {"KV read", right}},
      {}};
  for (const Kernel& k : d.kernels) table.columns.push_back({k.name, right});
  if (ours && gpu) table.columns.push_back({ours->name + " model", right});
  if (ours && cudnn) table.columns.push_back({ours->name + " / cuDNN", right});
  if (ours && !ceilings.empty())
    table.columns.push_back({fmt::format("{} / {}", ours->name, ceilings.front().unit), right});
  for (const auto& [key, problem] : d.problems) {
    if (!plain(problem.shape)) continue;
    const Setting& s = key.setting;
    std::vector<Cell> line = {
        fmt::format("{}/{} hd{}{}", s.heads_q, s.heads_kv, s.headdim, s.causal ? " causal" : ""),
        fmt::format("{}", s.seqlen_q), fmt::format("{}", key.batch),
        fmt::format("{}", key.seqlen_k),
        bytes_text(attention_min_hbm_bytes(problem.shape, Pass::fwd))};
    for (const Kernel& k : d.kernels) {
      const auto it = problem.cells.find(k);
      if (it == problem.cells.end())
        line.push_back("—");
      else if (!usable(*it->second))
        line.push_back(std::string(to_string(it->second->status)));
      else
        line.push_back(tb(kv_tb_s(*it->second)));
    }
    std::optional<double> o;
    if (ours) o = tb_s_of(problem.cells, *ours);
    if (ours && gpu) {
      const auto m = model_tb_s(gpu, *ours, problem.shape);
      line.push_back(m ? tb(*m) : "—");
    }
    if (ours && cudnn) {
      const auto c = tb_s_of(problem.cells, *cudnn);
      line.push_back(o && c ? ratio(*o / *c) : "—");
    }
    if (ours && !ceilings.empty())
      line.push_back(o ? fmt::format("{:.0f}%", 100 * *o / ceilings.front().tb_s) : "—");
    table.rows.push_back(std::move(line));
  }
  return md::render(table) + "\n";
}

// Our kernels on a paged cache against the same shape contiguous: TB/s and speed against it.
std::string paged_table(const Device& d) {
  std::set<std::int64_t> pages;
  std::map<std::pair<Kernel, ProblemKey>, std::map<std::int64_t, const MeasurementRow*>> rows;
  for (const auto& [key, problem] : d.problems) {
    const AttnShape& s = problem.shape;
    if (!s.seqlens_k.empty() || s.splits != 0) continue;
    for (const auto& [k, m] : problem.cells) {
      if (k.group == 2 || !usable(*m)) continue;
      ProblemKey contiguous = key;
      contiguous.serving.page_size = 0;
      rows[{k, contiguous}][s.page_size] = m;
      if (s.page_size > 0) pages.insert(s.page_size);
    }
  }
  if (pages.empty()) return "";
  const auto right = Align::right;
  Table table{
      {{"kernel"}, {"heads"}, {"batch", right}, {"seqlen_k", right}, {"contiguous TB/s", right}},
      {}};
  for (const std::int64_t p : pages) table.columns.push_back({fmt::format("page {}", p), right});
  std::vector<const MeasurementRow*> shown;
  bool other_run = false;
  for (const auto& [at, by_page] : rows) {
    if (by_page.size() < 2 && by_page.contains(0)) continue;  // contiguous alone
    const auto& [k, key] = at;
    const auto contiguous = by_page.find(0);
    std::vector<Cell> line = {k.name,
                              fmt::format("{}/{}", key.setting.heads_q, key.setting.heads_kv),
                              fmt::format("{}", key.batch), fmt::format("{}", key.seqlen_k),
                              contiguous == by_page.end() ? "—" : tb(kv_tb_s(*contiguous->second))};
    if (contiguous != by_page.end()) shown.push_back(contiguous->second);
    for (const std::int64_t p : pages) {
      const auto it = by_page.find(p);
      if (it == by_page.end()) {
        line.push_back("—");
        continue;
      }
      shown.push_back(it->second);
      if (contiguous == by_page.end()) {
        line.push_back(tb(kv_tb_s(*it->second)));
        continue;
      }
      const bool same_run = it->second->run_id == contiguous->second->run_id &&
                            it->second->started_at == contiguous->second->started_at;
      other_run = other_run || !same_run;
      line.push_back(fmt::format("{} ({}){}", tb(kv_tb_s(*it->second)),
                                 ratio(contiguous->second->median_s / it->second->median_s),
                                 same_run ? "" : " †"));
    }
    table.rows.push_back(std::move(line));
  }
  if (table.rows.empty()) return "";
  return fmt::format(
             "**Paged against contiguous**: our kernels on a KV cache in pages of N tokens (a "
             "block table per sequence) against the same shape contiguous; each page column is "
             "TB/s and, in parentheses, the speed against contiguous (contiguous time / paged "
             "time). Runs: {}.\n\n",
             runs_of(shown)) +
         md::render(table) + "\n" + (other_run ? kOtherRunNote : "");
}

// Our kernels on a ragged batch against the padded batch (every sequence at the capacity).
std::string ragged_table(const Device& d, const hw::Spec* gpu) {
  const auto right = Align::right;
  Table table{{{"kernel"},
               {"ragged batch"},
               {"ragged us", right},
               {"padded us", right},
               {"padded / ragged", right},
               {"padded keys / keys", right},
               {"model us", right}},
              {}};
  std::vector<const MeasurementRow*> shown;
  bool other_run = false;
  for (const auto& [key, problem] : d.problems) {
    const AttnShape& s = problem.shape;
    if (s.seqlens_k.empty() || s.splits != 0) continue;
    ProblemKey padded_key = key;
    padded_key.serving.seqlens_k.clear();
    const auto padded = d.problems.find(padded_key);
    for (const auto& [k, m] : problem.cells) {
      if (k.group == 2 || !usable(*m)) continue;
      shown.push_back(m);
      const MeasurementRow* p = nullptr;
      if (padded != d.problems.end())
        if (const auto it = padded->second.cells.find(k);
            it != padded->second.cells.end() && usable(*it->second))
          p = it->second;
      if (p) shown.push_back(p);
      std::optional<model::Prediction> predicted;
      if (gpu) predicted = predict_our_decode(*gpu, k.name, s);
      const bool same_run = p && p->run_id == m->run_id && p->started_at == m->started_at;
      other_run = other_run || (p && !same_run);
      table.rows.push_back({k.name, describe(s), fmt::format("{:.0f}", m->median_s * 1e6),
                            p ? fmt::format("{:.0f}", p->median_s * 1e6) : "—",
                            p ? ratio(p->median_s / m->median_s) + (same_run ? "" : " †") : "—",
                            ratio(double(s.batch * s.seqlen_k) / std::max(1.0, total_keys(s))),
                            predicted ? fmt::format("{:.0f}", predicted->time_s * 1e6) : "—"});
    }
  }
  if (table.rows.empty()) return "";
  return fmt::format(
             "**Ragged against padded**: a batch of sequences of their own key counts against the "
             "same batch with every sequence at the longest's count (same pages); a kernel that "
             "skips the missing keys has padded / ragged near padded keys / keys (one that reads "
             "the padding: 1x). Runs: {}.\n\n",
             runs_of(shown)) +
         md::render(table) + "\n" + (other_run ? kOtherRunNote : "");
}

}  // namespace

std::string serving_section(const ReportInputs& in, ReportCharts& charts) {
  std::string out = heading(Section::serving);
  std::map<std::string, Device> devices;
  for (const MeasurementRow& m : in.measurements) {
    if (m.pass != Pass::fwd || !is_decode(m.shape)) continue;
    Device& d = devices[m.device];
    const Kernel k = kernel_of(m);
    d.kernels.insert(k);
    Problem& p = d.problems[problem_key(m.shape)];
    p.shape = m.shape;
    p.cells[k] = &m;
  }
  if (devices.empty())
    return out +
           "No decode run is in the results (forward, at most 16 query rows per sequence, fewer "
           "than its keys): `fa4-analyze bench --kernel fa3_decode --sweep data/sweeps/decode.json "
           "--peers` on a Hopper GPU records them.\n\n";
  out +=
      "Decode from the measured runs: the KV-read bandwidth, K and V of each sequence's keys, Q, "
      "O and LSE once over the median time (as `bench` prints it; the same bytes for every "
      "kernel, so their ratio is their speed ratio), against the keys per sequence, one panel per "
      "batch size: our decode kernels, the peers of the same database (PyTorch SDPA's cuDNN and "
      "flash backends), the model's prediction of ours, and the device's measured HBM read and "
      "copy ceilings (`ceilings --unit hbm_read,hbm_copy`). Then a paged KV cache against the "
      "contiguous one, and a ragged batch against the padded one.\n\n";
  for (const auto& [device_name, d] : devices) {
    const std::string name = device_name.empty() ? "unknown device" : device_name;
    const hw::Spec* gpu = hw::match_device_name(in.gpus, device_name);
    const std::vector<Ceiling> ceilings = hbm_ceilings(in.ceilings, device_name);
    out += fmt::format("### {}\n\n", name) + device_summary(d, ceilings);
    if (ceilings.empty())
      out +=
          "No HBM ceiling is measured on this device: `fa4-analyze ceilings --unit "
          "hbm_read,hbm_copy` records them.\n\n";
    std::vector<const MeasurementRow*> drawn;
    if (const auto setting = chart_setting(d))
      if (auto figure = bandwidth_figure(name, d, *setting, gpu, ceilings, drawn))
        out += charts.embed(std::move(*figure));
    out += md::details(fmt::format("KV-read TB/s of every decode shape on {}", name),
                       bandwidth_table(d, gpu, ceilings));
    out += paged_table(d) + ragged_table(d, gpu);
  }
  return out;
}

}  // namespace fa4::report
