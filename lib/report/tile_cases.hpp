// What the per-tile sections share: each GPU's own algorithm in the model, its per-tile cycles
// for a square-head-dim bf16 tile, and the words the prose uses for each unit.
#pragma once

#include <string>
#include <string_view>

#include "core/error.hpp"
#include "hw/spec.hpp"
#include "model/model.hpp"

namespace fa4::report {

// The flash-attention algorithm built for the GPU: fa4 on Blackwell, fa3 on Hopper, fa2 before.
model::Algorithm native_algorithm(const hw::Spec& gpu);

// Per-tile cycles of `algorithm` for an M x N bf16 tile at head dim d (= dv). Forward tiles run
// every exponential on MUFU (no FMA emulation), as FA4's Table 1 does.
Result<model::TileCycles> tile_at(const hw::Spec& gpu, model::Algorithm algorithm, Pass pass,
                                  model::Tile tile, int headdim, bool two_cta = false);

// "exp on MUFU", "shared memory"...: a unit as a sentence names it.
std::string_view unit_phrase(model::Unit unit);
// "exp (MUFU)", "SMEM"...: a unit as a table column names it.
std::string_view unit_column(model::Unit unit);

// "128x128"
std::string tile_text(model::Tile tile);

}  // namespace fa4::report
