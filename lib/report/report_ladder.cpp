// The end of the measured section: our kernel ladder step by step. Per device, per forward group
// (dtype, head dim, mask), a row per problem: each rung's TFLOP/s (naive, fa2, fa3, fa4), the
// speedup of each rung over the one below, the best rung's share of the GEMM ceiling measured on
// that device ('fa4-analyze ceilings', gemm_bf16), and each ablation variant (fa3_no_pingpong, ...)
// as a ratio to the kernel it ablates.
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

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

struct RowKey {
  std::int64_t seqlen_q, seqlen_k, batch, heads_q, heads_kv;
  auto operator<=>(const RowKey&) const = default;
};

using Cells = std::map<std::string, double>;  // kernel -> TFLOP/s

bool is_rung(const std::string& kernel) { return rung_index(kernel).has_value(); }

// "fa3_no_pingpong" ablates "fa3"; "" for a kernel that is no ablation.
std::string ablated(const std::string& kernel) {
  for (model::Algorithm algorithm : model::kAllAlgorithms)
    if (const std::string_view rung = model::to_string(algorithm);
        kernel.size() > rung.size() && kernel.starts_with(rung) && kernel[rung.size()] == '_')
      return std::string(rung);
  return "";
}

std::string group_table(const std::map<RowKey, Cells>& rows, double gemm_tflops) {
  std::set<std::string> present;
  for (const auto& [row, cells] : rows)
    for (const auto& [kernel, tflops] : cells) present.insert(kernel);
  std::vector<std::string> rungs, ablations;
  for (model::Algorithm algorithm : model::kAllAlgorithms)
    if (const std::string rung(model::to_string(algorithm)); present.count(rung))
      rungs.push_back(rung);
  for (const std::string& k : present)
    if (!ablated(k).empty()) ablations.push_back(k);

  Table table{{{"seqlen"}, {"batch", Align::right}, {"heads", Align::right}}, {}};
  for (const auto& r : rungs) table.columns.push_back({r, Align::right});
  for (std::size_t i = 1; i < rungs.size(); ++i)
    table.columns.push_back({rungs[i] + " / " + rungs[i - 1], Align::right});
  if (gemm_tflops > 0) table.columns.push_back({"best / GEMM ceiling", Align::right});
  for (const auto& a : ablations) table.columns.push_back({a + " / " + ablated(a), Align::right});

  for (const auto& [row, cells] : rows) {
    const auto at = [&](const std::string& k) {
      const auto it = cells.find(k);
      return it == cells.end() ? 0.0 : it->second;
    };
    std::vector<Cell> line = {row.seqlen_q == row.seqlen_k
                                  ? fmt::format("{}", row.seqlen_q)
                                  : fmt::format("{}x{}", row.seqlen_q, row.seqlen_k),
                              fmt::format("{}", row.batch), fmt::format("{}", row.heads_q)};
    double best = 0;
    for (const auto& r : rungs) {
      line.emplace_back(at(r) > 0 ? integer(at(r)) : "—");
      best = std::max(best, at(r));
    }
    for (std::size_t i = 1; i < rungs.size(); ++i)
      line.emplace_back(
          at(rungs[i]) > 0 && at(rungs[i - 1]) > 0 ? ratio(at(rungs[i]) / at(rungs[i - 1])) : "—");
    if (gemm_tflops > 0) line.emplace_back(best > 0 ? percent(100 * best / gemm_tflops) : "—");
    for (const auto& a : ablations)
      line.emplace_back(at(a) > 0 && at(ablated(a)) > 0 ? ratio(at(a) / at(ablated(a))) : "—");
    table.rows.push_back(std::move(line));
  }
  return md::render(table) + "\n";
}

}  // namespace

std::string ladder_subsection(const std::vector<MeasurementRow>& rows,
                              const std::vector<store::CeilingRow>& ceilings) {
  std::map<std::string, std::map<GroupKey, std::map<RowKey, Cells>>> devices;
  for (const MeasurementRow& m : rows) {
    if (!m.ours() || !m.ok() || m.pass != Pass::fwd) continue;
    if (!is_rung(m.kernel) && ablated(m.kernel).empty()) continue;
    const AttnShape& s = m.shape;
    devices[m.device][{s.dtype, s.headdim, s.causal}]
           [{s.seqlen_q, s.seqlen_k, s.batch, s.heads_q, s.heads_kv}][m.kernel] = m.tflops;
  }
  std::string out;
  for (const auto& [device, groups] : devices) {
    std::set<std::string> rungs_measured;
    for (const auto& [key, group] : groups)
      for (const auto& [row, cells] : group)
        for (const auto& [kernel, tflops] : cells)
          if (is_rung(kernel)) rungs_measured.insert(kernel);
    if (rungs_measured.size() < 2) continue;  // no ladder with one rung
    double gemm = 0;
    for (const store::CeilingRow& c : ceilings)
      if (c.ceiling.device == device && c.ceiling.unit == kGemmUnit) gemm = c.ceiling.value;
    out += fmt::format("### The kernel ladder on {}, step by step\n\n", device);
    out += gemm > 0 ? fmt::format("Forward TFLOP/s of each rung, the speedup of each over the one "
                                  "below, the best rung's share of the GEMM ceiling measured on "
                                  "this device ({} TFLOP/s, cuBLAS bf16 8192^3, `fa4-analyze "
                                  "ceilings`), and each ablation over the kernel it ablates.\n\n",
                                  integer(gemm))
                    : "Forward TFLOP/s of each rung, the speedup of each over the one below, and "
                      "each ablation over the kernel it ablates (no GEMM ceiling is recorded for "
                      "this device: `fa4-analyze ceilings` measures one).\n\n";
    for (const auto& [key, group] : groups) {
      out += fmt::format("#### {} d{} {}\n\n", to_string(key.dtype), key.headdim,
                         key.causal ? "causal" : "non-causal");
      out += group_table(group, gemm);
    }
  }
  return out;
}

}  // namespace fa4::report
