// What-if hardware: the model on a GPU whose units are scaled (MUFU x2, more SMs, a faster
// clock...), which unit a 10% improvement would pay off most on, and the exp-emulation share the
// model finds best. Pure functions over hw::Spec and predict().
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.hpp"
#include "core/shape.hpp"
#include "hw/spec.hpp"
#include "model/model.hpp"

namespace fa4::model {

// The hardware figures a what-if can scale, and what each scales:
//   mma    tensor-core FLOP/clk/SM (every dtype)   mufu   MUFU ex2/clk/SM
//   fma    FP32 lanes/clk/SM                       smem   shared-memory bytes/clk/SM
//   hbm    HBM bytes/s                             clock  the SM clock (peak and boost)
//   sms    the number of SMs (rounded to a whole SM, at least one)
enum class ScalableUnit { mma, mufu, fma, smem, hbm, clock, sms };
inline constexpr ScalableUnit kAllScalableUnits[] = {
    ScalableUnit::mma, ScalableUnit::mufu,  ScalableUnit::fma, ScalableUnit::smem,
    ScalableUnit::hbm, ScalableUnit::clock, ScalableUnit::sms};
std::string_view to_string(ScalableUnit unit);

struct UnitScale {
  ScalableUnit unit = ScalableUnit::mma;
  double factor = 1;
};

// "mufu=2", "sms=1.1": a unit name, '=', a factor from 1/64 to 64.
Result<UnitScale> parse_unit_scale(std::string_view text);

// Every --scale of a command, one UnitScale per unit in the order first given: the factors of a
// unit given more than once multiply (mufu=2 twice is mufu x4), and their product must lie in the
// same 1/64..64 as one factor.
Result<std::vector<UnitScale>> parse_unit_scales(std::span<const std::string> texts);

// `gpu` with each scale applied; its id and name say what changed ("b200 (mufu x2)").
hw::Spec scaled_spec(const hw::Spec& gpu, std::span<const UnitScale> scales);

struct SensitivityRow {
  ScalableUnit unit;
  double speedup = 1;      // predicted time before / after the unit improves by `step`
  Unit bottleneck_after;   // the kernel's bottleneck after that improvement
};

// Each unit improved by `step` (1.1: 10% faster) alone; sorted by speedup, largest first.
Result<std::vector<SensitivityRow>> sensitivity(const hw::Spec& gpu, const AttnShape& shape,
                                                const Options& options, double step = 1.1);

// The emulated exp2 share (in steps of 1/64, FA4's shares are multiples of 1/16) with the
// shortest predicted time for fa4 on `gpu`; among equal times (the tile is bound by MMA over a
// range of shares), the one that leaves the softmax stream the most slack.
struct BestShare {
  double share = 0;
  Prediction prediction;
};
Result<BestShare> best_exp_emulation(const hw::Spec& gpu, const AttnShape& shape, Options options);

}  // namespace fa4::model
