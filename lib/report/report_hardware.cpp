// The hardware section: the hardware at a glance, per GPU, and each unit's rate against H100's, so
// the asymmetric scaling (tensor cores grew, MUFU and shared memory did not) shows in one table.
#include <fmt/format.h>

#include "report/markdown.hpp"
#include "report/numbers.hpp"
#include "report/sections.hpp"
#include "report/unit_scaling.hpp"

namespace fa4::report {
namespace {

constexpr double kFlopsPerExpHd128 = 2.0 * (128 + 128);  // Q K^T and P V per score at d = 128

double mma_per_ex2(const hw::Spec& gpu) {
  return gpu.mma_flop_per_clk(Dtype::bf16) / gpu.per_sm.mufu_ex2_per_clk;
}

std::string units_table(const std::vector<hw::Spec>& gpus) {
  const auto right = Align::right;
  Table table{{{"GPU"},
               {"architecture"},
               {"SMs", right},
               {"clock MHz", right},
               {"dense bf16 PFLOP/s", right},
               {"MMA FLOP/clk/SM", right},
               {"MUFU ex2/clk/SM", right},
               {"FMA lanes/clk/SM", right},
               {"SMEM B/clk/SM", right},
               {"TMEM KiB/SM", right},
               {"HBM TB/s", right},
               {"MMA FLOP per ex2", right}},
              {}};
  for (const hw::Spec& g : gpus)
    table.rows.push_back({g.id, std::string(hw::to_string(g.architecture)),
                          fmt::format("{}", g.sms), integer(g.peak_clock_mhz),
                          fmt::format("{:.2f}", g.peak_flops(Dtype::bf16) / 1e15),
                          compact(g.mma_flop_per_clk(Dtype::bf16)),
                          compact(g.per_sm.mufu_ex2_per_clk), compact(g.per_sm.fma_lanes_per_clk),
                          compact(g.per_sm.smem_bytes_per_clk), integer(g.per_sm.tmem_bytes / 1024),
                          fmt::format("{:.2f}", g.hbm_bytes_per_s / 1e12),
                          integer(mma_per_ex2(g))});
  return md::render(table) + "\n";
}

std::string scaling_table(const std::vector<hw::Spec>& gpus, const Scaling& scaling) {
  const auto right = Align::right;
  Table table{{{"GPU"},
               {"dense bf16 peak", right},
               {"MMA per SM-clock", right},
               {"MUFU per SM-clock", right},
               {"FMA per SM-clock", right},
               {"SMEM per SM-clock", right},
               {"HBM", right}},
              {}};
  for (std::size_t i = 0; i < gpus.size(); ++i) {
    const UnitScaling& s = scaling.per_gpu[i];
    table.rows.push_back({gpus[i].id, ratio(s.dense_bf16_peak), ratio(s.mma_bf16),
                          ratio(s.mufu_ex2), ratio(s.fma), ratio(s.smem), ratio(s.hbm)});
  }
  return md::render(table) + "\n";
}

}  // namespace

std::string hardware_section(const std::vector<hw::Spec>& gpus) {
  std::string out =
      heading(Section::hardware) +
      "From `models/*.json` (each figure's source is in its file). The clock is the one the "
      "peak figures use. *MMA FLOP per ex2* is the asymmetry in one number: the FLOPs the tensor "
      "cores do per clock for each exponential MUFU makes.\n\n" +
      units_table(gpus);
  out += fmt::format(
      "A forward tile needs {} MMA FLOPs per exponential at hd128, so where *MMA FLOP per ex2* "
      "reaches {} the exponentials take as long as the matrix products.\n\n",
      integer(kFlopsPerExpHd128), integer(kFlopsPerExpHd128));
  const auto scaling = scaling_against_baseline(gpus);
  if (!scaling)
    return out + fmt::format("No `{}` model is loaded, so there is no scaling table.\n\n",
                             kScalingBaseline);
  out += fmt::format("Each unit against `{}`:\n\n", scaling->baseline->id);
  return out + scaling_table(gpus, *scaling);
}

}  // namespace fa4::report
