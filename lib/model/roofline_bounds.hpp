// The roofs of attention on one GPU: HBM bandwidth, the dense tensor-core peak, and the attention
// ceilings the model's per-tile cycles give per head dim (exp2 on MUFU, shared memory, exp2
// emulated on the FMA pipe); the same from the measured unit ceilings where they are given.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/shape.hpp"
#include "hw/measured_ceilings.hpp"
#include "hw/spec.hpp"

namespace fa4::model {

struct Roof {
  std::string name;  // "exp2 on MUFU, hd128"
  double tflops = 0;
  bool measured = false;  // from the measured unit ceilings (drawn dashed)
};

struct RooflineBounds {
  std::string gpu;  // hw::Spec::id
  Pass pass = Pass::fwd;
  double hbm_tb_s = 0;            // datasheet
  double measured_hbm_tb_s = 0;   // device-to-device copy; 0 when not measured
  double measured_hbm_read_tb_s = 0;  // a read-only stream (decode's ceiling); 0 when not measured
  std::vector<Roof> roofs;        // the dense peak first, then per head dim, modeled then measured
  std::string ceiling_algorithm;  // the algorithm whose tiles give the attention ceilings
  std::string measured_from;      // "NVIDIA H200, run 1, 2026-11-23T00:52:24Z"; "" when none
};

// The roofs for `pass` and each head dim (headdim == headdim_v, bf16), from the model's tile for
// the GPU's FlashAttention-style algorithm (fa4 where it runs, else fa2). `measured` may be empty.
Result<RooflineBounds> roofline_bounds(const hw::Spec& gpu, Pass pass,
                                       const std::vector<std::int64_t>& headdims,
                                       const std::vector<hw::MeasuredCeiling>& measured);

}  // namespace fa4::model
