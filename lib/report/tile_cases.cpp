#include "report/tile_cases.hpp"

#include <fmt/format.h>

#include "model/algorithm_traits.hpp"

namespace fa4::report {

model::Algorithm native_algorithm(const hw::Spec& gpu) {
  if (model::is_blackwell(gpu)) return model::Algorithm::fa4;
  if (model::is_hopper(gpu)) return model::Algorithm::fa3;
  return model::Algorithm::fa2;
}

Result<model::TileCycles> tile_at(const hw::Spec& gpu, model::Algorithm algorithm, Pass pass,
                                  model::Tile tile, int headdim, bool two_cta) {
  AttnShape shape;
  shape.headdim = shape.headdim_v = headdim;
  shape.dtype = Dtype::bf16;
  model::Options options;
  options.algorithm = algorithm;
  options.pass = pass;
  options.two_cta = two_cta;
  if (algorithm == model::Algorithm::fa4) options.exp_emulation = 0.0;
  return model::tile_cycles(gpu, shape, options, tile);
}

std::string_view unit_phrase(model::Unit unit) {
  switch (unit) {
    case model::Unit::mma:
      return "the MMA";
    case model::Unit::exp_mufu:
      return "exp on MUFU";
    case model::Unit::fma:
      return "the FP32 pipe";
    case model::Unit::smem:
      return "shared memory";
    case model::Unit::tmem:
      return "tensor memory";
    case model::Unit::hbm:
      return "HBM";
  }
  return "?";
}

std::string_view unit_column(model::Unit unit) {
  switch (unit) {
    case model::Unit::mma:
      return "MMA";
    case model::Unit::exp_mufu:
      return "exp (MUFU)";
    case model::Unit::fma:
      return "FP32 pipe";
    case model::Unit::smem:
      return "SMEM";
    case model::Unit::tmem:
      return "TMEM";
    case model::Unit::hbm:
      return "HBM";
  }
  return "?";
}

std::string tile_text(model::Tile tile) { return fmt::format("{}x{}", tile.m, tile.n); }

}  // namespace fa4::report
