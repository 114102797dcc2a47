// fa3_bwd's ablation variants: fa3_bwd (fa3_bwd.cu's header has the algorithm) with one Hopper
// feature taken away each, so that measured against fa3_bwd in the same run each shows what that
// feature buys (BwdVariant in bwd_traits.cuh):
//   fa3_bwd_no_overlap     every GEMM waited for as soon as it is issued: no GEMM of a warpgroup
//                          runs under its own exp2, dS or dQ work (the other warpgroup's still do;
//                          at hd64 fa3_bwd itself runs so: core/fa3_tiles.hpp says why);
//   fa3_bwd_one_stage      a one-stage Q/dO ring: the next query block's TMA loads wait until
//                          this one's GEMMs have read the stage;
//   fa3_bwd_no_persistent  one CTA per tile instead of one per SM walking the tiles.
// (fa3_bwd_atomics, the dQ path's ablation, is registered in fa3_bwd.cu.)
//
// Benchmark: build-gpu/tests/kernels/kernel_timing --pass bwd --kernels
// fa3_bwd,fa3_bwd_no_overlap,fa3_bwd_one_stage,fa3_bwd_no_persistent --headdim 128
#include "kernels/fa3/bwd_launch.cuh"

namespace fa4::kernels {

using fa3::hopper_kernel;

extern const Kernel fa3_bwd_no_overlap_kernel;  // listed in registry.cpp
const Kernel fa3_bwd_no_overlap_kernel =
    hopper_kernel("fa3_bwd_no_overlap", "fa3_bwd waiting for each GEMM as soon as it is issued",
                  fa3::launch_bwd<fa3::BwdVariant{.overlap_gemms = false}>,
                  fa3::bwd_workspace_bytes, fa3::bwd_unsupported_reason, Pass::bwd);

extern const Kernel fa3_bwd_one_stage_kernel;
const Kernel fa3_bwd_one_stage_kernel = hopper_kernel(
    "fa3_bwd_one_stage", "fa3_bwd with a one-stage Q/dO ring (no load under the current block)",
    fa3::launch_bwd<fa3::BwdVariant{.double_buffered_ring = false}>, fa3::bwd_workspace_bytes,
    fa3::bwd_unsupported_reason, Pass::bwd);

extern const Kernel fa3_bwd_no_persistent_kernel;
const Kernel fa3_bwd_no_persistent_kernel = hopper_kernel(
    "fa3_bwd_no_persistent", "fa3_bwd with one CTA per tile instead of a persistent grid",
    fa3::launch_bwd<fa3::BwdVariant{.persistent = false}>, fa3::bwd_workspace_bytes,
    fa3::bwd_unsupported_reason, Pass::bwd);

}  // namespace fa4::kernels
