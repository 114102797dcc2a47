// FA4's Table 1 (forward, §3.1.1) and its backward figures (§3.2.1) on B200, computed by the
// model beside the paper's numbers.
#include <cmath>
#include <optional>

#include <fmt/format.h>

#include "hw/loader.hpp"
#include "report/markdown.hpp"
#include "report/numbers.hpp"
#include "report/sections.hpp"
#include "report/tile_cases.hpp"

namespace fa4::report {
namespace {

constexpr std::string_view kPaperGpu = "b200";
constexpr int kPaperHeaddim = 128;

// The paper's per-tile cycles; nullopt where it states none.
struct PaperCase {
  std::string_view label;
  Pass pass;
  model::Tile tile;
  bool two_cta;
  std::optional<double> mma, exp_mufu, smem;
};

constexpr PaperCase kPaperCases[] = {
    {"forward (Table 1)", Pass::fwd, {128, 128}, false, 1024, 1024, 768},
    {"forward (Table 1)", Pass::fwd, {256, 128}, false, 2048, 2048, 1536},
    {"backward, 1-CTA (§3.2.1)", Pass::bwd, {128, 128}, false, 2560, 1024, 3328},
    // 2-CTA: M = 256 over a CTA pair, each CTA a 128x128 tile; "2688, 5% above MMA" (2560).
    {"backward, 2-CTA, per CTA (§3.2.1)", Pass::bwd, {128, 128}, true, 2560, std::nullopt, 2688},
};

std::string pair_cell(double model, std::optional<double> paper) {
  return fmt::format("{} / {}", integer(model), paper ? integer(*paper) : "—");
}

// "✓" when every stated figure matches to the cycle, else each difference.
std::string check_cell(const model::TileCycles& c, const PaperCase& paper, int& mismatches) {
  std::string out;
  const std::pair<model::Unit, std::optional<double>> stated[] = {
      {model::Unit::mma, paper.mma},
      {model::Unit::exp_mufu, paper.exp_mufu},
      {model::Unit::smem, paper.smem}};
  for (const auto& [unit, figure] : stated) {
    if (!figure || std::abs(c.of(unit) - *figure) < 0.5) continue;
    ++mismatches;
    out += fmt::format("{}✗ {} {} ({})", out.empty() ? "" : "; ", unit_column(unit),
                       integer(c.of(unit) - *figure),
                       signed_percent(100 * (c.of(unit) - *figure) / *figure));
  }
  return out.empty() ? "✓" : out;
}

}  // namespace

std::string table1_subsection(const std::vector<hw::Spec>& gpus) {
  std::string out = "### FA4's Table 1 and backward analysis, reproduced\n\n";
  auto b200 = hw::find_spec(gpus, kPaperGpu);
  if (!b200)
    return out + fmt::format(
                     "No `{}` hardware model is loaded: FA4's figures are for "
                     "B200, so there is nothing to compare.\n\n",
                     kPaperGpu);
  const hw::Spec& gpu = **b200;
  out += fmt::format(
      "`model::tile_cycles` for fa4 on `{}` at d = {}, every exponential on MUFU (no emulation), "
      "against FA4 §3.1.1 (Table 1) and §3.2.1. Cells are *model / paper* cycles per tile.\n\n",
      gpu.id, kPaperHeaddim);
  Table table{{{"case"},
               {"tile M x N"},
               {"MMA", Align::right},
               {"exp (MUFU)", Align::right},
               {"SMEM", Align::right},
               {"bound by"},
               {"check"}},
              {}};
  int mismatches = 0, stated = 0;
  for (const PaperCase& paper : kPaperCases) {
    const int case_stated =
        paper.mma.has_value() + paper.exp_mufu.has_value() + paper.smem.has_value();
    stated += case_stated;
    auto c =
        tile_at(gpu, model::Algorithm::fa4, paper.pass, paper.tile, kPaperHeaddim, paper.two_cta);
    if (!c) {
      mismatches += case_stated;
      table.rows.push_back({std::string(paper.label), tile_text(paper.tile), "—", "—", "—", "—",
                            "✗ " + c.error().message});
      continue;
    }
    table.rows.push_back({std::string(paper.label), tile_text(paper.tile),
                          pair_cell(c->mma, paper.mma), pair_cell(c->exp_mufu, paper.exp_mufu),
                          pair_cell(c->smem, paper.smem), std::string(unit_phrase(c->bottleneck)),
                          check_cell(*c, paper, mismatches)});
  }
  out += md::render(table) + "\n";
  out += mismatches == 0
             ? fmt::format("The model reproduces all {} figures the paper states.\n\n", stated)
             : fmt::format("{} of the {} figures the paper states differ from the model.\n\n",
                           mismatches, stated);
  return out;
}

}  // namespace fa4::report
