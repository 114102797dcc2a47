// What the parts of predict() share, inside lib/model only: the neutral pieces first (bytes, the
// schedule of CTAs on the SMs), then the terms each part prices. predict.cpp holds the tile rules
// and the families, schedule.cpp the whole-kernel time, backward_terms.cpp the backward's launches
// and per-kernel terms, naive.cpp the unfused algorithm, checks.cpp the refusals.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.hpp"
#include "core/fa2_bwd_tiles.hpp"
#include "core/shape.hpp"
#include "hw/spec.hpp"
#include "model/factors.hpp"
#include "model/model.hpp"

namespace fa4::model::internal {

inline constexpr double kLseBytes = 4;

// Bytes per clock one SM may draw from HBM when every SM pulls at once.
inline double hbm_bytes_per_clk_per_sm(const hw::Spec& gpu) {
  return gpu.hbm_bytes_per_s * gpu.copy_efficiency / gpu.sms / (gpu.peak_clock_mhz * 1e6);
}

// A share of a datasheet figure measured on this GPU, with the model file's source.
Factor measured_share(const hw::Spec& gpu, factors::Value factor, double value,
                      const std::string& pointer);

// FA2's backward re-read factor on a tile at a head dim (factors.def): hd256's fitted value holds
// on our fa2_bwd's hd256 tile only (PyTorch's flash backward, modeled on the default tile, keeps
// kFa2BackwardWarpGridRereads).
inline factors::ReportedId fa2_backward_rereads(std::int64_t headdim, Tile tile) {
  using factors::Id, factors::ReportedId;
  if (headdim <= 64) return ReportedId(Id::kFa2BackwardHd64TileRereads);
  const bool ours_at_hd256 = headdim >= 256 && tile.m == fa2_bwd_tiles::query_block(256) &&
                             tile.n == fa2_bwd_tiles::key_block(256);
  return ours_at_hd256 ? ReportedId(Id::kFa2BackwardHd256TileRereads)
                       : ReportedId(Id::kFa2BackwardWarpGridRereads);
}

// --- The backward's launches and terms (backward_terms.cpp) ---------------------------------
bool lab_backward(const hw::Spec& gpu, const Options& o);
int resident_ctas(const hw::Spec& gpu, const AttnShape& s, const Options& o);
bool hopper_persistent_backward(const hw::Spec& gpu, const Options& o);
struct SideLaunches {
  double bytes = 0;  // HBM bytes whose time adds to the main kernel's
  int launches = 0;  // besides the main kernel's (one per pass)
};
double key_grad_bytes(const AttnShape& s, double heads);
int key_grad_reduce_launches(const hw::Spec& gpu, const AttnShape& s, const Options& o);
int walking_dq_slots(const hw::Spec& gpu, const AttnShape& s, const Options& o, Tile t);
std::optional<SideLaunches> backward_side_launches(const hw::Spec& gpu, const AttnShape& s,
                                                   const Options& o, const Prediction& p);
double layout_copy_seconds(const hw::Spec& gpu, const AttnShape& s);
double fa4_dq_chain_seconds(const AttnShape& s, const Prediction& p);
double spilled_dq_add_bytes(const AttnShape& s);

// --- The whole kernel (schedule.cpp) --------------------------------------------------------
// The seconds a launch of `peak_s` at the peak clock takes under the board's power cap.
double seconds_under_power_cap(const hw::Spec& gpu, double peak_s);
// Bytes each CTA moves besides its tiles: Q (or K, V for backward) and the first tile loaded, O
// (or dK, dV) stored.
double cta_bytes(const AttnShape& s, const Prediction& p);
// The fused algorithms' whole-kernel figures from the tile time: the CTAs on the SMs (with
// `cta_overhead_cycles` per CTA), HBM traffic, launches, and the kernel's bottleneck.
void schedule_fused(const hw::Spec& gpu, const AttnShape& s, const Options& o, Prediction& p,
                    double cta_overhead_cycles);

// --- The terms a prediction paid, for its trace (terms.cpp) ---------------------------------
std::vector<std::string_view> terms_paid(const Options& o, const Prediction& p);

// One tile's softmax stream and the tile's time after the overlap of the two streams.
struct StreamTimes {
  double softmax = 0;
  double tile = 0;
};
// FA4's forward pipeline on Blackwell (predict.cpp; factors.def, kBlackwellStreamNormExponent):
// the tensor stream (set in `tensor`) and the softmax stream combined as a norm.
StreamTimes blackwell_forward_times(const hw::Spec& gpu, const TileCycles& t, double& tensor);

// --- Decode (decode.cpp) --------------------------------------------------------------------
// The tile of Options::decode's kernels: 64 packed rows by decode_tiles' key block.
Tile decode_tile(const AttnShape& s);
// A decode launch (Options::decode): its partition's CTAs, the KV read against the tiles, the
// partials and their combine; p holds the tile's cycles.
Prediction predict_decode(const hw::Spec& gpu, const AttnShape& s, const Options& o, Prediction p);

// --- The naive algorithm (naive.cpp) and the refusals (checks.cpp) --------------------------
Result<Prediction> predict_naive(const hw::Spec& gpu, const AttnShape& s, Prediction p);
Status check_options(const hw::Spec& gpu, const AttnShape& s, const Options& o);
Status check_tile_fits(const hw::Spec& gpu, const AttnShape& s, const Options& o, Tile tile);

}  // namespace fa4::model::internal
