// The measured section: our kernels measured against the peers, from the store's latest
// measurements. Per device, per pass, per (dtype, head dims, heads_q/heads_kv, causal): a table of
// TFLOP/s with a column per kernel, then for each of our kernels its ratio to the row's best peer,
// to cuDNN and to the model's prediction (folded); and a chart per device of TFLOP/s against
// seqlen.
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <string_view>

#include "core/stats.hpp"
#include "report/chart.hpp"
#include "report/markdown.hpp"
#include "report/numbers.hpp"
#include "report/rungs.hpp"
#include "report/sections.hpp"

namespace fa4::report {
namespace {

using store::MeasurementRow;

// A column: one kernel of one source. Ours come first (the ladder, then any other by name), then
// the peers (the order above, then any other by name).
struct Kernel {
  bool peer;
  std::size_t rank;  // place in the fixed order; past its end for a kernel not in it
  std::string name;
  std::string source;
  auto operator<=>(const Kernel&) const = default;
};

std::size_t rank_of(const MeasurementRow& m) {
  if (m.ours()) return rung_index(m.kernel, m.pass).value_or(model::kAllAlgorithms.size());
  return std::size_t(std::find(kPeerOrder.begin(), kPeerOrder.end(), m.kernel) -
                     kPeerOrder.begin());
}

Kernel kernel_of(const MeasurementRow& m) { return {!m.ours(), rank_of(m), m.kernel, m.source}; }

struct GroupKey {
  Pass pass;
  Dtype dtype;
  std::int64_t headdim, headdim_v;
  std::int64_t heads_ratio;  // heads_q / heads_kv
  bool causal;
  auto operator<=>(const GroupKey&) const = default;
};

struct RowKey {  // ordered by seqlen_k, then batch; a paged, ragged or split shape after the plain
  std::int64_t seqlen_k, batch, seqlen_q, heads_q, heads_kv;
  ServingFields serving;
  auto operator<=>(const RowKey&) const = default;
};

using Cells = std::map<Kernel, const MeasurementRow*>;

struct Group {
  std::set<Kernel> kernels;
  std::map<RowKey, Cells> rows;
};

using Device = std::map<GroupKey, Group>;

GroupKey group_key(const MeasurementRow& m) {
  const AttnShape& s = m.shape;
  return {m.pass,  s.dtype, s.headdim, s.headdim_v, s.heads_kv > 0 ? s.heads_q / s.heads_kv : 0,
          s.causal};
}

RowKey row_key(const MeasurementRow& m) {
  const AttnShape& s = m.shape;
  return {s.seqlen_k, s.batch, s.seqlen_q, s.heads_q, s.heads_kv, serving_fields(s)};
}

std::string group_title(const std::string& device, const GroupKey& k) {
  const std::string dims = k.headdim == k.headdim_v
                               ? fmt::format("hd{}", k.headdim)
                               : fmt::format("hd{}/{}", k.headdim, k.headdim_v);
  const std::string heads = k.heads_ratio == 1
                                ? "heads_q = heads_kv"
                                : fmt::format("heads_q = {}·heads_kv", k.heads_ratio);
  return fmt::format("{} {} {} {} ({}, {})", device, to_string(k.pass), dims,
                     k.causal ? "causal" : "non-causal", to_string(k.dtype), heads);
}

std::string heads_text(const RowKey& r) {
  return r.heads_q == r.heads_kv ? fmt::format("{}", r.heads_q)
                                 : fmt::format("{}/{}", r.heads_q, r.heads_kv);
}

// "s8192 b4 h16" ("s1x8192 b4 h32/8 paged16"): a row as the footnotes name it.
std::string row_text(const RowKey& r) {
  return fmt::format("s{} b{} h{}{}", seqlen_label(r.seqlen_q, r.seqlen_k), r.batch, heads_text(r),
                     describe_serving(r.serving));
}

// The column title: the kernel's name, with its source where two sources share the name.
std::string label(const std::set<Kernel>& kernels, const Kernel& k) {
  const auto same_name = std::count_if(kernels.begin(), kernels.end(),
                                       [&](const Kernel& other) { return other.name == k.name; });
  return same_name > 1 ? fmt::format("{} ({})", k.name, k.source) : k.name;
}

std::optional<double> ok_tflops(const Cells& cells, const Kernel& k) {
  const auto it = cells.find(k);
  if (it == cells.end() || !it->second->ok() || it->second->tflops <= 0) return std::nullopt;
  return it->second->tflops;
}

struct Peer {
  std::string name;
  double tflops;
};

std::optional<Peer> best_peer(const std::set<Kernel>& kernels, const Cells& cells) {
  std::optional<Peer> best;
  for (const Kernel& k : kernels)
    if (const auto t = ok_tflops(cells, k); k.peer && t && (!best || *t > best->tflops))
      best = Peer{label(kernels, k), *t};
  return best;
}

std::optional<double> cudnn_tflops(const Cells& cells) {
  for (const auto& [k, m] : cells)
    if (k.peer && k.name == kCudnn) return ok_tflops(cells, k);
  return std::nullopt;
}

bool has_cudnn(const std::set<Kernel>& kernels) {
  return std::any_of(kernels.begin(), kernels.end(),
                     [](const Kernel& k) { return k.peer && k.name == kCudnn; });
}

// The first line of a reason, its white space folded, cut at 160 characters.
std::string one_line(const std::string& reason) {
  std::string out;
  for (char c : reason.substr(0, reason.find('\n'))) {
    const bool space = c == ' ' || c == '\t' || c == '\r';
    if (space && (out.empty() || out.back() == ' ')) continue;
    out += space ? ' ' : c;
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  if (out.size() > 160) out = out.substr(0, 157) + "...";
  return out.empty() ? "no reason recorded" : out;
}

// The note on an ok cell whose samples drifted past kDriftFlag (core/stats.hpp).
std::string drift_note() {
  return fmt::format(
      "ok, but the samples drifted by more than {:.0f}% from the first quarter to the last: the "
      "GPU changed speed mid-measurement (clock or power limit?), so the median describes neither "
      "speed; compare kernels in alternating rounds (fa4-analyze bench --kernel A,B --ab)",
      100 * kDriftFlag);
}

std::string spread_note() {
  return fmt::format(
      "ok, but the samples spread: their interquartile range is over {:.0f}% of the median (the "
      "timer stops under 2%), so the kernel's time varied from sample to sample and the median "
      "describes no single run well; look at the samples before trusting it",
      100 * kSpreadFlag);
}

// The note of an ok measurement whose samples drifted or spread, if any.
std::optional<std::string> samples_note(const MeasurementRow& m) {
  if (m.samples_s.empty()) return std::nullopt;
  switch (sample_flag(summarize(m.samples_s))) {
    case SampleFlag::drifted: return drift_note();
    case SampleFlag::spread: return spread_note();
    case SampleFlag::none: break;
  }
  return std::nullopt;
}

// The reasons of one table's skipped and failed cells, and drifted or spread ok ones, each once,
// with where it applies.
class Footnotes {
 public:
  // The cell's text: "skipped [1]".
  std::string mark(const MeasurementRow& m, const std::string& kernel, const RowKey& row) {
    const std::string_view status = to_string(m.status);
    return fmt::format("{} {}", status,
                       reference(fmt::format("{}: {}", status, one_line(m.reason)), kernel, row));
  }

  // "[1]": the number of the note `text`, added where it is new.
  std::string reference(const std::string& text, const std::string& kernel, const RowKey& row) {
    auto note =
        std::find_if(notes_.begin(), notes_.end(), [&](const Note& n) { return n.text == text; });
    if (note == notes_.end()) note = notes_.insert(notes_.end(), Note{text, {}});
    auto& where = note->where;
    auto at = std::find_if(where.begin(), where.end(), [&](auto& w) { return w.first == kernel; });
    if (at == where.end()) at = where.insert(where.end(), {kernel, std::vector<std::string>{}});
    at->second.push_back(row_text(row));
    return fmt::format("[{}]", note - notes_.begin() + 1);
  }

  // "- [1] skipped: no triton (triton_fa at s1024 b32 h16, s8192 b4 h16).", a line each.
  std::string render() const {
    std::string out;
    for (std::size_t i = 0; i < notes_.size(); ++i) {
      std::string where;
      for (const auto& [kernel, rows] : notes_[i].where) {
        std::string shapes;
        for (const auto& r : rows) shapes += (shapes.empty() ? "" : ", ") + r;
        where += fmt::format("{}{} at {}", where.empty() ? "" : "; ", kernel, shapes);
      }
      out += fmt::format("- [{}] {} ({}).\n", i + 1, notes_[i].text, where);
    }
    return out.empty() ? out : out + "\n";
  }

 private:
  struct Note {
    std::string text;
    std::vector<std::pair<std::string, std::vector<std::string>>> where;  // kernel, rows
  };
  std::vector<Note> notes_;
};

std::string group_table(const Group& g) {
  const auto right = Align::right;
  const bool any_peer =
      std::any_of(g.kernels.begin(), g.kernels.end(), [](const Kernel& k) { return k.peer; });
  const bool cudnn = has_cudnn(g.kernels);
  Table table{{{"seqlen"}, {"batch", right}, {"heads", right}}, {}};
  for (const Kernel& k : g.kernels) table.columns.push_back({label(g.kernels, k), right});
  for (const Kernel& k : g.kernels) {
    if (k.peer) continue;
    const std::string name = label(g.kernels, k);
    if (any_peer) table.columns.push_back({name + " / best peer", right});
    if (cudnn) table.columns.push_back({name + " / cuDNN", right});
    table.columns.push_back({name + " model", right});
    table.columns.push_back({name + " / model", right});
  }
  Footnotes notes;
  std::set<std::string> model_gpus;
  for (const auto& [row, cells] : g.rows) {
    std::vector<Cell> line = {
        seqlen_label(row.seqlen_q, row.seqlen_k) + describe_serving(row.serving),
        fmt::format("{}", row.batch), heads_text(row)};
    for (const Kernel& k : g.kernels) {
      const auto it = cells.find(k);
      if (it == cells.end())
        line.push_back("—");
      else if (it->second->ok()) {
        const auto note = samples_note(*it->second);
        line.push_back(note ? integer(it->second->tflops) + " " +
                                  notes.reference(*note, label(g.kernels, k), row)
                            : integer(it->second->tflops));
      } else
        line.push_back(notes.mark(*it->second, label(g.kernels, k), row));
    }
    const auto best = best_peer(g.kernels, cells);
    const auto cudnn_t = cudnn_tflops(cells);
    for (const Kernel& k : g.kernels) {
      if (k.peer) continue;
      const auto ours = ok_tflops(cells, k);
      const auto it = cells.find(k);
      const double predicted = it == cells.end() ? 0 : it->second->predicted_tflops;
      if (predicted > 0) model_gpus.insert(it->second->predicted_gpu);
      if (any_peer)
        line.push_back(
            ours && best ? fmt::format("{} ({})", ratio(*ours / best->tflops), best->name) : "—");
      if (cudnn) line.push_back(ours && cudnn_t ? ratio(*ours / *cudnn_t) : "—");
      line.push_back(predicted > 0 ? integer(predicted) : "—");
      line.push_back(ours && predicted > 0 ? ratio(*ours / predicted) : "—");
    }
    table.rows.push_back(std::move(line));
  }
  std::string out = md::render(table) + "\n" + notes.render();
  if (std::any_of(g.kernels.begin(), g.kernels.end(), [](const Kernel& k) { return !k.peer; })) {
    std::string gpus;
    for (const auto& gpu : model_gpus)
      gpus += fmt::format("{}`{}`", gpus.empty() ? "" : ", ", gpu.empty() ? "unknown" : gpu);
    out += gpus.empty() ? "None of our measurements here is linked to a model prediction.\n\n"
                        : fmt::format(
                              "Model: the current model's prediction for each of our "
                              "measurements, on hardware model {}.\n\n",
                              gpus);
  }
  return out;
}

// A panel of one group: a line per kernel through its ok measurements at the group's most common
// batch, heads and serving fields, seqlen on the x axis; nothing for a group of one row.
std::optional<Panel> group_panel(const GroupKey& key, const Group& g) {
  if (g.rows.size() < 2) return std::nullopt;
  using Setting = std::tuple<std::int64_t, std::int64_t, ServingFields>;
  const auto setting = [](const RowKey& r) {
    return Setting{r.batch * r.seqlen_q, r.heads_q, r.serving};
  };
  std::map<Setting, int> tokens_and_heads;
  for (const auto& [row, cells] : g.rows) ++tokens_and_heads[setting(row)];
  const auto common =
      std::max_element(tokens_and_heads.begin(), tokens_and_heads.end(), [](auto& a, auto& b) {
        return a.second < b.second;
      })->first;
  Panel panel;
  panel.title = fmt::format("{} hd{} {}", to_string(key.pass), key.headdim,
                            key.causal ? "causal" : "non-causal");
  panel.x = log_axis("seqlen (tokens)", 2);
  panel.y = linear_axis("measured TFLOP/s", 0.0);
  panel.legend = Legend::outside_right;  // beside the panel, clear of the lines
  for (const Kernel& k : g.kernels) {
    Series line{label(g.kernels, k), k.peer ? SeriesStyle::dashed_line : SeriesStyle::line, "", {}};
    for (const auto& [row, cells] : g.rows)
      if (const auto t = ok_tflops(cells, k); t && setting(row) == common)
        line.points.push_back({double(row.seqlen_k), *t, ""});
    if (line.points.size() > 1) panel.series.push_back(std::move(line));
  }
  if (panel.series.empty()) return std::nullopt;
  return panel;
}

// "NVIDIA H200, run 2, 2026-11-23, rev 684356b-dirty; ...": the runs behind a device's figures.
std::string device_runs(const Device& device) {
  std::set<std::string> runs;
  for (const auto& [key, g] : device)
    for (const auto& [row, cells] : g.rows)
      for (const auto& [k, m] : cells)
        runs.insert(fmt::format("run {} ({}, {}, rev {})", m->run_id, m->source,
                                m->started_at.substr(0, 10), m->revision));
  std::string out;
  for (const auto& r : runs) out += (out.empty() ? "" : "; ") + r;
  return out;
}

// The forward groups' panels: the backward ones are charted with the backward ladder
// (report_ladder.cpp).
Figure device_figure(const std::string& device_name, const Device& all) {
  Device device;
  for (const auto& [key, group] : all)
    if (key.pass == Pass::fwd) device.emplace(key, group);
  Figure figure;
  figure.name = "measured-" + file_stem(device_name);
  figure.title =
      fmt::format("Measured forward TFLOP/s on {} (solid: ours, dashed: peers)", device_name);
  for (const auto& [key, group] : device)
    if (auto panel = group_panel(key, group)) figure.panels.push_back(std::move(*panel));
  figure.columns = 3;
  figure.panel_width = 600;
  figure.panel_height = 380;
  figure.caption = fmt::format(
      "Figures: median times of {} on {}; each line at its group's most "
      "common batch and heads.",
      device_runs(device), device_name);
  return figure;
}

std::string shape_text(const MeasurementRow& m) {
  return fmt::format("{} {}", to_string(m.pass), describe(m.shape));
}

// For each of our kernels: its worst and best ratio to cuDNN over the device's shapes where both
// ran ok.
std::string device_summary(const Device& device) {
  struct Ratio {
    double value;
    const MeasurementRow* ours;
  };
  std::map<Kernel, std::vector<Ratio>> ratios;
  bool cudnn = false;
  for (const auto& [key, g] : device) {
    cudnn = cudnn || has_cudnn(g.kernels);
    for (const auto& [row, cells] : g.rows) {
      const auto cudnn_t = cudnn_tflops(cells);
      for (const auto& [k, m] : cells) {
        if (k.peer) continue;
        auto& list = ratios[k];
        if (const auto ours = ok_tflops(cells, k); ours && cudnn_t)
          list.push_back({*ours / *cudnn_t, m});
      }
    }
  }
  if (ratios.empty()) return "None of our kernels was measured on this device.\n\n";
  if (!cudnn) return "cuDNN (`sdpa_cudnn`) was not measured on this device: no ratio to it.\n\n";
  std::string out = "Against cuDNN (`sdpa_cudnn`), over the shapes where both ran ok:";
  std::size_t i = 0;
  for (const auto& [k, list] : ratios) {
    out += i++ ? "; " : " ";
    if (list.empty()) {
      out += fmt::format("{}, no such shape", k.name);
      continue;
    }
    const auto [worst, best] = std::minmax_element(
        list.begin(), list.end(), [](const Ratio& a, const Ratio& b) { return a.value < b.value; });
    out += list.size() == 1 ? fmt::format("{} {} ({}), its one shape", k.name, ratio(worst->value),
                                          shape_text(*worst->ours))
                            : fmt::format("{} worst {} ({}), best {} ({}), over {} shapes", k.name,
                                          ratio(worst->value), shape_text(*worst->ours),
                                          ratio(best->value), shape_text(*best->ours), list.size());
  }
  return out + ".\n\n";
}

}  // namespace

std::string measured_section(const ReportInputs& in, ReportCharts& charts) {
  const std::vector<store::MeasurementRow>& rows = in.measurements;
  std::string out = heading(Section::measured);
  if (rows.empty())
    return out +
           "Nothing is measured yet: run `fa4-analyze bench --kernel fa2 --sweep "
           "data/sweeps/ladder-h128.json --peers` on a machine with a CUDA GPU, or `fa4-analyze "
           "import FILE` with peer results, then this command again.\n\n";
  out += fmt::format(
      "The latest measurement of each kernel on each device and problem, in TFLOP/s (median "
      "time, the FLOP convention of `lib/core/shape.hpp`); a dash where a kernel has no "
      "measurement. Ours first ({}), then the peers (source `peer:...`). For each of our "
      "kernels: its ratio to the row's best peer (named), to cuDNN (`{}`), and the model's "
      "prediction for the same problem with measured / model. Skipped and failed runs are "
      "footnoted with their reason, and so are measurements whose samples drifted or spread.\n\n",
      rung_names(), kCudnn);
  std::map<std::string, Device> devices;
  for (const auto& m : rows) {
    Group& g = devices[m.device][group_key(m)];
    const Kernel k = kernel_of(m);
    g.kernels.insert(k);
    g.rows[row_key(m)][k] = &m;
  }
  for (const auto& [device_name, device] : devices) {
    const std::string name = device_name.empty() ? "unknown device" : device_name;
    out += fmt::format("### {}\n\n", name) + device_summary(device);
    Figure figure = device_figure(name, device);
    if (!figure.panels.empty()) out += charts.embed(std::move(figure));
    std::string tables;
    for (const auto& [key, group] : device)
      tables += fmt::format("#### {}\n\n", group_title(name, key)) + group_table(group);
    out += md::details(fmt::format("Measured TFLOP/s on {} ({} {}), with ratios to the peers "
                                   "and the model",
                                   name, device.size(), device.size() == 1 ? "table" : "tables"),
                       tables);
  }
  return out;
}

}  // namespace fa4::report
