// The scaling section: asymmetric scaling. Per GPU generation and head dim: the per-tile cycles of
// each unit for the GPU's FA4-style tile, the exp-emulation share the model finds best, and the
// predicted gain of each FA4 softmax technique (software exp2 at that share, conditional
// rescaling), beside the gain measured on Hopper (our fa4 against our fa3, same shape, same device)
// when the store holds both.
#include <fmt/format.h>

#include "hw/loader.hpp"
#include "model/algorithm_traits.hpp"
#include "model/whatif.hpp"
#include "report/findings.hpp"
#include "report/markdown.hpp"
#include "report/numbers.hpp"
#include "report/sections.hpp"

namespace fa4::report {
namespace {

constexpr int kHeaddims[] = {64, 128, 256};
constexpr std::int64_t kTokens = 16384, kHidden = 2048, kSeqlen = 8192;

AttnShape workload(int headdim) {
  AttnShape s;
  s.batch = kTokens / kSeqlen;
  s.heads_q = s.heads_kv = kHidden / headdim;
  s.seqlen_q = s.seqlen_k = kSeqlen;
  s.headdim = s.headdim_v = headdim;
  return s;
}

// fa4's measured TFLOP/s over fa3's on `gpu` at `shape`, from our latest measurements; nullopt
// when either is missing.
std::optional<double> measured_gain(const std::vector<hw::Spec>& gpus, const hw::Spec& gpu,
                                    const std::vector<store::MeasurementRow>& rows,
                                    const AttnShape& shape) {
  double fa3 = 0, fa4 = 0;
  for (const store::MeasurementRow& m : rows) {
    if (!m.ours() || !m.ok() || m.pass != Pass::fwd || !(m.shape == shape)) continue;
    const hw::Spec* measured_on = hw::match_device_name(gpus, m.device);
    if (!measured_on || measured_on->id != gpu.id) continue;
    if (m.kernel == model::to_string(model::Algorithm::fa3)) fa3 = m.tflops;
    if (m.kernel == model::to_string(model::Algorithm::fa4)) fa4 = m.tflops;
  }
  if (fa3 > 0 && fa4 > 0) return fa4 / fa3;
  return std::nullopt;
}

std::vector<Cell> scaling_row(const std::vector<hw::Spec>& gpus, const hw::Spec& gpu,
                              const std::vector<store::MeasurementRow>& rows, int d) {
  const auto g = technique_gains(gpus, gpu, rows, d);
  if (!g)
    return {gpu.id, fmt::format("{}", d), "—", "—", "—", "—", "—", "—", "—",
            "—",    g.error().message};
  const model::TileCycles& c = g->plain.tile_cycles;
  return {gpu.id,
          fmt::format("{}", d),
          fmt::format("{}x{}", g->plain.tile.m, g->plain.tile.n),
          integer(c.mma),
          integer(c.exp_mufu),
          integer(c.fma),
          integer(c.smem),
          percent(100 * g->best_share),
          signed_percent(g->emulation_gain_percent),
          signed_percent(g->rescale_gain_percent),
          g->measured_fa4_over_fa3 ? signed_percent(100 * (*g->measured_fa4_over_fa3 - 1))
                                   : "not measured"};
}

}  // namespace

Result<TechniqueGains> technique_gains(const std::vector<hw::Spec>& gpus, const hw::Spec& gpu,
                                       const std::vector<store::MeasurementRow>& rows,
                                       int headdim) {
  const AttnShape shape = workload(headdim);
  model::Options fa4;
  fa4.algorithm = model::Algorithm::fa4;
  if (auto why = model::unsupported_reason(gpu, fa4.algorithm))
    return Error{"no FA4 path: " + *why};
  fa4.exp_emulation = 0;
  const auto plain = model::predict(gpu, shape, fa4);
  if (!plain) return plain.error();
  const auto best = model::best_exp_emulation(gpu, shape, fa4);
  if (!best) return best.error();
  model::Options every_tile_rescaled = fa4;
  every_tile_rescaled.exp_emulation = best->share;
  every_tile_rescaled.conditional_rescale = false;
  const auto always_rescale = model::predict(gpu, shape, every_tile_rescaled);
  if (!always_rescale) return always_rescale.error();
  return TechniqueGains{best->share,
                        100 * (plain->time_s / best->prediction.time_s - 1),
                        100 * (always_rescale->time_s / best->prediction.time_s - 1),
                        measured_gain(gpus, gpu, rows, shape),
                        describe(shape),
                        *plain};
}

std::string scaling_section(const std::vector<hw::Spec>& gpus,
                            const std::vector<store::MeasurementRow>& rows) {
  Table table{{{"GPU"},
               {"d"},
               {"tile"},
               {"MMA", Align::right},
               {"exp (MUFU)", Align::right},
               {"FP32 + issue", Align::right},
               {"SMEM", Align::right},
               {"best emulated share", Align::right},
               {"gain: software exp2", Align::right},
               {"gain: conditional rescale", Align::right},
               {"measured fa4 / fa3", Align::right}},
              {}};
  for (const hw::Spec& gpu : gpus)
    for (int d : kHeaddims) table.rows.push_back(scaling_row(gpus, gpu, rows, d));
  return fmt::format(
             "{}FA4's claim: the right softmax technique depends on the ratio of unit speeds. Per "
             "GPU and head dim, forward, bf16, {} tokens at seqlen {} (hidden {}): the per-tile "
             "cycles of each unit for FA4's tile with every exp2 on MUFU; the share of exp2 "
             "emulated on the FMA pipe that the model finds best (shortest time; among equal "
             "times, the most slack under the tensor cores; steps of 1/64); the predicted gain of "
             "software exp2 at that share over none, and of conditional rescaling over rescaling "
             "every tile (at that share); and, where our fa4 and fa3 kernels were both measured "
             "on that GPU at that shape, the measured gain.\n\n",
             heading(Section::scaling), kTokens, kSeqlen, kHidden) +
         md::render(table) +
         "\n`fa4-analyze whatif --gpu b200 --scale mufu=2` shows any such change on any GPU, "
         "and `--sensitivity` ranks the units by what a 10% improvement of each would give.\n\n";
}

}  // namespace fa4::report
