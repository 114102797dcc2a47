// Why each GPU is bound where it is: generated sentences that walk through one hd128 tile unit by
// unit, forward and backward, and then what FA4's two remedies (software exp2 on the FP32 pipe,
// 2-CTA backward) do to the binding unit. Every figure comes from the model.
#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "model/algorithm_traits.hpp"
#include "report/numbers.hpp"
#include "report/sections.hpp"
#include "report/tile_cases.hpp"

namespace fa4::report {
namespace {

constexpr int kHeaddim = 128;
constexpr model::Tile kTile{128, 128};

std::string rate_text(const hw::Spec& gpu, model::Unit unit) {
  switch (unit) {
    case model::Unit::mma:
      return compact(gpu.mma_flop_per_clk(Dtype::bf16)) + " FLOP/clk/SM";
    case model::Unit::exp_mufu:
      return compact(gpu.per_sm.mufu_ex2_per_clk) + " ex2/clk/SM";
    case model::Unit::fma:
      return compact(gpu.per_sm.fma_lanes_per_clk) + " lanes/clk/SM";
    case model::Unit::smem:
      return compact(gpu.per_sm.smem_bytes_per_clk) + " B/clk/SM";
    default:
      return "";
  }
}

std::string against_mma(double cycles, double mma) {
  if (std::abs(cycles - mma) < 0.5) return fmt::format("as many as the MMA ({})", integer(mma));
  return fmt::format("{} the MMA", ratio(cycles / mma));
}

// "the MMA takes 1024 cycles (8192 FLOP/clk/SM); exp on MUFU 1024 (16 ex2/clk/SM), as many as
// the MMA (1024); ... — bound by exp on MUFU": the other units busiest first.
std::string units_sentence(const hw::Spec& gpu, const model::TileCycles& c, bool with_rates) {
  const auto rate = [&](model::Unit u) {
    return with_rates ? fmt::format(" ({})", rate_text(gpu, u)) : std::string();
  };
  std::vector<model::Unit> others = {model::Unit::exp_mufu, model::Unit::smem, model::Unit::fma};
  std::stable_sort(others.begin(), others.end(),
                   [&](model::Unit a, model::Unit b) { return c.of(a) > c.of(b); });
  std::string out =
      fmt::format("the MMA takes {} cycles{}", integer(c.mma), rate(model::Unit::mma));
  for (model::Unit u : others)
    out += fmt::format("; {} {}{}, {}", unit_phrase(u), integer(c.of(u)), rate(u),
                       against_mma(c.of(u), c.mma));
  return out + fmt::format(" — bound by {}", unit_phrase(c.bottleneck));
}

// FA4 moves a share of the exponentials to the FP32 pipe where MUFU binds the forward tile.
std::string emulation_sentence(const hw::Spec& gpu, model::Algorithm algorithm) {
  const double share = model::default_exp_emulation(gpu, algorithm);
  if (share <= 0) return "";
  AttnShape shape;
  shape.headdim = shape.headdim_v = kHeaddim;
  model::Options options;
  options.algorithm = algorithm;
  auto c = model::tile_cycles(gpu, shape, options, kTile);
  if (!c) return "";
  return fmt::format(
      " With FA4's default {} of exponentials emulated on the FP32 pipe, exp on MUFU drops to {} "
      "cycles and the FP32 pipe rises to {}: the forward tile is then bound by {} ({}).",
      percent(100 * share), integer(c->exp_mufu), integer(c->fma), unit_phrase(c->bottleneck),
      integer(c->max()));
}

// FA4's 2-CTA backward halves the operand reads and dQ traffic of shared memory per CTA.
std::string two_cta_sentence(const hw::Spec& gpu, model::Algorithm algorithm) {
  auto c = tile_at(gpu, algorithm, Pass::bwd, kTile, kHeaddim, true);
  if (!c) return "";
  return fmt::format(" 2-CTA backward brings shared memory to {} cycles, {}.", integer(c->smem),
                     against_mma(c->smem, c->mma));
}

struct Bounds {
  model::Unit forward, backward;
  friend bool operator==(const Bounds&, const Bounds&) = default;
};

std::string summary(const std::vector<std::pair<Bounds, std::string>>& bounds) {
  if (bounds.empty()) return "";
  std::vector<std::pair<Bounds, std::string>> groups;  // bounds -> "gpu, gpu"
  for (const auto& [b, id] : bounds) {
    auto it =
        std::find_if(groups.begin(), groups.end(), [&](const auto& g) { return g.first == b; });
    if (it == groups.end())
      groups.push_back({b, id});
    else
      it->second += ", " + id;
  }
  std::string out = fmt::format("In short, at hd{}: ", kHeaddim);
  for (std::size_t i = 0; i < groups.size(); ++i) {
    const auto& [b, ids] = groups[i];
    out += i ? "; " : "";
    out += b.forward == b.backward
               ? fmt::format("both passes are bound by {} on {}", unit_phrase(b.forward), ids)
               : fmt::format("the forward pass is bound by {} and the backward by {} on {}",
                             unit_phrase(b.forward), unit_phrase(b.backward), ids);
  }
  return out + ".\n\n";
}

}  // namespace

std::string why_subsection(const std::vector<hw::Spec>& gpus) {
  const double flops_per_exp = 2.0 * (kHeaddim + kHeaddim);  // Q K^T and P V per score element
  std::string out = fmt::format(
      "### Why: unit by unit\n\n"
      "A forward tile does {} MMA FLOPs for every exponential at hd{} (2·d for Q·Kᵀ and 2·d for "
      "P·V per score). Each GPU below, for one {} tile of its own kernel:\n\n",
      integer(flops_per_exp), kHeaddim, tile_text(kTile));
  std::vector<std::pair<Bounds, std::string>> bounds;
  for (const hw::Spec& gpu : gpus) {
    const model::Algorithm algorithm = native_algorithm(gpu);
    auto fwd = tile_at(gpu, algorithm, Pass::fwd, kTile, kHeaddim);
    auto bwd = tile_at(gpu, algorithm, Pass::bwd, kTile, kHeaddim);
    if (!fwd || !bwd) {
      out += fmt::format("- **{}**: {}\n", gpu.id, (!fwd ? fwd : bwd).error().message);
      continue;
    }
    const double flops_per_ex2 = gpu.mma_flop_per_clk(Dtype::bf16) / gpu.per_sm.mufu_ex2_per_clk;
    out += fmt::format(
        "- **{}** ({}): its tensor cores do {} FLOPs in the time MUFU makes one ex2, so "
        "exponentials take {} the MMA time. Forward, {}.",
        gpu.id, model::to_string(algorithm), integer(flops_per_ex2),
        ratio(flops_per_ex2 / flops_per_exp), units_sentence(gpu, *fwd, true));
    if (fwd->bottleneck == model::Unit::exp_mufu) out += emulation_sentence(gpu, algorithm);
    out += fmt::format(" Backward, {}.", units_sentence(gpu, *bwd, false));
    if (bwd->bottleneck == model::Unit::smem && algorithm == model::Algorithm::fa4)
      out += two_cta_sentence(gpu, algorithm);
    out += "\n";
    bounds.push_back({{fwd->bottleneck, bwd->bottleneck}, gpu.id});
  }
  return out + "\n" + summary(bounds);
}

}  // namespace fa4::report
