// The tiles section: per-tile cycles. One 128x128 tile on every GPU, forward at d = 64, 128, 256
// and backward at d = 128, so the asymmetric scaling of the units shows in cycles.
#include <fmt/format.h>

#include "report/markdown.hpp"
#include "report/numbers.hpp"
#include "report/sections.hpp"
#include "report/tile_cases.hpp"

namespace fa4::report {
namespace {

constexpr model::Tile kTile{128, 128};
constexpr int kHeaddims[] = {64, 128, 256};
constexpr int kBackwardHeaddim = 128;

std::string tile_table(const std::vector<hw::Spec>& gpus, Pass pass, int headdim) {
  Table table{{{"GPU"},
               {"kernel"},
               {"MMA", Align::right},
               {"exp (MUFU)", Align::right},
               {"FP32 pipe", Align::right},
               {"SMEM", Align::right},
               {"bound by"},
               {"exp / MMA", Align::right},
               {"SMEM / MMA", Align::right}},
              {}};
  for (const hw::Spec& gpu : gpus) {
    const model::Algorithm algorithm = native_algorithm(gpu);
    const std::string kernel(model::to_string(algorithm));
    auto c = tile_at(gpu, algorithm, pass, kTile, headdim);
    if (!c) {
      table.rows.push_back({gpu.id, kernel, "—", "—", "—", "—", c.error().message, "—", "—"});
      continue;
    }
    table.rows.push_back({gpu.id, kernel, integer(c->mma), integer(c->exp_mufu), integer(c->fma),
                          integer(c->smem), std::string(unit_phrase(c->bottleneck)),
                          ratio(c->exp_mufu / c->mma), ratio(c->smem / c->mma)});
  }
  return md::render(table) + "\n";
}

}  // namespace

std::string tile_across_gpus_subsection(const std::vector<hw::Spec>& gpus) {
  std::string out = fmt::format(
      "### One {} tile on every GPU\n\n"
      "Cycles one SM spends on each unit for one {} tile of each GPU's own kernel (fa4 on "
      "Blackwell, fa3 on Hopper, fa2 before), bf16, every exponential on MUFU. The bottleneck is "
      "the busiest unit at its own rate (FA4's Table 1 convention); a tie between exp and MMA "
      "goes to exp.\n\n",
      tile_text(kTile), tile_text(kTile));
  for (int d : kHeaddims)
    out += fmt::format("Forward, d = {}:\n\n", d) + tile_table(gpus, Pass::fwd, d);
  out += fmt::format("Backward, d = {} (1-CTA):\n\n", kBackwardHeaddim) +
         tile_table(gpus, Pass::bwd, kBackwardHeaddim);
  return out;
}

std::string tiles_section(const std::vector<hw::Spec>& gpus) {
  return heading(Section::tiles) + table1_subsection(gpus) + tile_across_gpus_subsection(gpus) +
         why_subsection(gpus);
}

}  // namespace fa4::report
