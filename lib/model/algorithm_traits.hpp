// What each algorithm is on a given GPU: whether it runs there, its default tile, how much shared
// and tensor memory a tile needs, how many CTAs share an SM, and its overlap rule.
#pragma once

#include <optional>
#include <string>

#include "hw/spec.hpp"
#include "model/model.hpp"

namespace fa4::model {

// The GPU family, from the model file's "architecture".
bool is_blackwell(const hw::Spec& gpu);        // tcgen05 + tensor memory
bool is_blackwell_ultra(const hw::Spec& gpu);  // Blackwell with MUFU doubled (B300, GB300)
bool is_hopper(const hw::Spec& gpu);           // wgmma, no tensor memory
// Whether mma.sync (FA2's instruction) runs below the tensor-core peak, which newer instructions
// reach: wgmma on Hopper, tcgen05 on Blackwell (assumed alike). On Ampere it is the peak.
bool mma_sync_below_peak(const hw::Spec& gpu);
// mma.sync's rate as a share of the peak there: measured on this GPU, or the published default.
double mma_sync_share(const hw::Spec& gpu);

// Why the algorithm cannot run on this GPU, or nothing.
std::optional<std::string> unsupported_reason(const hw::Spec& gpu, Algorithm algorithm);

// Why no kernel of this algorithm can take these head dims, or nothing. The fused kernels
// (fa2, fa3, fa4) take head dims up to 256 in multiples of 8 (FlashAttention pads others to
// one); naive's cuBLAS GEMMs take any.
std::optional<std::string> unsupported_headdim_reason(const AttnShape& shape, Algorithm algorithm);

// Why the algorithm's MMAs cannot form this tile on this GPU, or nothing: query rows in steps
// of the MMA's M per warp (mma.sync 16), warpgroup (wgmma 64) or CTA (tcgen05 128), keys in
// steps of 16 (the P V MMA's K step), both at most 256 (the largest MMA N). Naive has no tile of
// its own (cuBLAS tiles its GEMMs).
std::optional<std::string> unsupported_tile_reason(const hw::Spec& gpu, Algorithm algorithm,
                                                   Tile tile);

// FA2-style kernels keep the warps' whole tile of K and V in their own reads (ldmatrix).
int fa2_warps(const AttnShape& shape);

// Bytes of shared memory (and tensor memory) one CTA of this tile needs.
double smem_footprint_bytes(const hw::Spec& gpu, const AttnShape& shape, Algorithm algorithm,
                            Pass pass, Tile tile);
double tmem_footprint_bytes(const hw::Spec& gpu, const AttnShape& shape, Algorithm algorithm,
                            Pass pass, Tile tile);

// Resident CTAs per SM: FA2 fits two of its 4-warp CTAs up to hd128; the Hopper and Blackwell
// kernels are persistent with one CTA per SM.
int ctas_per_sm(const AttnShape& shape, Algorithm algorithm);
bool is_persistent(Algorithm algorithm);

// How the tensor and softmax streams overlap (factors.def). Mostly the share of the shorter
// stream hidden behind the longer one; where hides_per_longer_stream (fa3 and fa4 forward on
// Hopper, whose two consumer warpgroups ping-pong), the cycles of the shorter stream hidden per
// cycle of the longer one, the rest exposed.
// FA4's forward on Blackwell takes neither: its streams combine as a norm
// (combines_streams_by_norm).
double overlap(const hw::Spec& gpu, Algorithm algorithm, Pass pass);
bool hides_per_longer_stream(const hw::Spec& gpu, Algorithm algorithm, Pass pass);
// FA4's forward on Blackwell: every unit at the sustained share (the tensor stream at Blackwell
// Ultra's own, kBlackwellUltraForwardTensorShare), the tensor and softmax streams combined as
// (T^p + S^p)^(1/p) (factors.def, kBlackwellStreamNormExponent).
bool combines_streams_by_norm(const hw::Spec& gpu, Algorithm algorithm, Pass pass);

// The lab's fa3_bwd (Options::group_walking_backward): above hd128 it runs its main kernel twice, dV
// first, then dK and dQ (a consumer thread's dK and dV of 64 keys, 64 * (d + dv) / 128 float32
// registers, exceed the 240 setmaxnreg gives), and adds dQ by atomics there (no shared memory
// left for the staging tile). 1 pass otherwise, and for every other configuration.
int lab_fa3_backward_passes(const AttnShape& shape, const Options& options);
std::optional<DqAdd> lab_fa3_dq_add(const AttnShape& shape, const Options& options);
// Whether the lab's backward kernel splits the shape's GQA groups into their query heads (each
// tile one query head's, dK and dV partials summed by a launch after the main kernel): fa3_bwd by
// core/fa3_tiles.hpp's bwd_split_gqa_groups, fa2_bwd (not the deterministic variant) by
// core/fa2_bwd_tiles.hpp's split_gqa_groups.
bool lab_splits_groups(const AttnShape& shape, const Options& options);

// What a backward tile computes a second time: the lab's fa3_bwd above hd128 (its second pass: S
// and P again, their exp2 and scale) or FA4's split hd256 backward (Options::split_dq_backward:
// S, dP, P and dS again, in the other kernel). Zero for every other configuration.
struct BackwardRecompute {
  double gemm_columns = 0;         // the recomputed GEMMs' K extent a tile row: d (S), + dv (dP)
  double softmax_passes = 0;       // exp2 of every score again
  double fma_ops_per_element = 0;  // the FP32 pipe's work again
  int launches = 0;                // launches more
};
BackwardRecompute backward_recompute(const AttnShape& shape, const Options& options);
// FA4's split hd256 backward: the dK/dV kernel's share of a tile's work, its GEMMs' extents in d
// and dv (S over d, dP over dv, dV and dK of widths dv and d) over both kernels' (the dQ kernel's
// S, dP and dQ: 2 d + dv). The softmax work, half in each kernel, is shared the same way.
double split_backward_key_kernel_share(const AttnShape& shape);
// The keys of one CTA of that dK/dV kernel: its grid is (ceil_div(s_k, tile_n_dkdv), h_kv, b) and
// each CTA's loads step through every query head of its group
// (flash_attn/cute/sm100_hd256_2cta_fmha_backward_dkdvkernel.py, _compute_bwd_grid;
// sm100_hd256_2cta_fmha_backward.py asserts tile_m_dkdv == 128 and tile_n_dkdv == 64; read at
// 0251105), two CTAs of a 2-CTA pair taking 128 keys. The dQ kernel's 128 x 128 tiles are
// modeled on the model's tile: only its work per query block and head counts.
inline constexpr int kSplitBackwardDkDvCtaKeys = 64;

// Defaults for FA4's softmax techniques on this GPU.
double default_exp_emulation(const hw::Spec& gpu, Algorithm algorithm);
// Whether this kernel's softmax takes each row's maximum from the tensor-memory load
// (Options::row_max_on_load), by default where the hardware has it and FA4's kernel takes it.
bool row_max_on_load(const hw::Spec& gpu, const AttnShape& shape, const Options& options);

}  // namespace fa4::model
