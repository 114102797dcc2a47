// The analytic roofline model of attention: per-tile cycles on each GPU unit for each algorithm,
// forward and backward, and whole-kernel time from the tiles. Pure functions, no I/O.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.hpp"
#include "core/shape.hpp"
#include "hw/spec.hpp"

namespace fa4::model {

inline constexpr std::string_view kModelVersion = "1";

enum class Algorithm { naive, fa2, fa3, fa4 };
std::string_view to_string(Algorithm algorithm);
Result<Algorithm> parse_algorithm(std::string_view text);
inline constexpr std::array kAllAlgorithms = {Algorithm::naive, Algorithm::fa2, Algorithm::fa3,
                                              Algorithm::fa4};

// The units a tile's work lands on.
enum class Unit { mma, exp_mufu, fma, smem, tmem, hbm };
std::string_view to_string(Unit unit);

struct Tile {
  int m = 128;  // query rows per CTA tile
  int n = 128;  // key columns per iteration
  friend bool operator==(const Tile&, const Tile&) = default;
};
Result<Tile> parse_tile(std::string_view text);  // "128x128"

// How a backward kernel adds each key block's dQ into the float32 accumulator: float32 atomics
// from the registers, or TMA tensor reduce-adds (cp.reduce.async.bulk.tensor) of a staging tile
// in shared memory.
enum class DqAdd { atomics, tensor_reduce };

// How a decode kernel deals its work to CTAs (core/decode_tiles.hpp): the kernel's own choice
// (decode_tiles::chosen_partition: balanced for a ragged batch, split for a uniform one), or every
// packed row block whole in one CTA (no partials, no combine). A shape's forced `splits` takes
// FlashDecoding's split partition either way.
enum class DecodePartition { chosen, whole_row_blocks };

// The terms a prediction may pay beyond its algorithm's. Each names what the kernel does, not who
// does it: which implementations pay which term, from which release and on which shapes, is the
// profile table's (model/profiles.cpp), and each term's factors are in factors.def.
struct Options {
  Algorithm algorithm = Algorithm::fa4;
  Pass pass = Pass::fwd;
  std::optional<Tile> tile;              // default: the algorithm's own choice for the shape
  std::optional<double> exp_emulation;   // share of exp2 on the FMA pipe, 0..1 (fa4 only)
  std::optional<bool> conditional_rescale;  // fa4 only; default on
  bool two_cta = false;                     // fa4 backward on Blackwell: the 2-CTA pair
  // Backward: dQ summed in a fixed order. fa2: each key block stores its part in a slot of its own
  // and the conversion sums the slots in order; fa3, fa4: each key block's CTA waits for the one
  // before (factors.def, kDeterministicWaitTiles).
  bool deterministic = false;
  // Backward: the plain kernel plus a fixed time per tile step instead of the chained waits
  // (factors.def, kCudnnDeterministicStepCycles), a cost that stays about constant over the sequence.
  bool fixed_step_cost = false;
  // fa3 backward on Hopper, one CTA walking a key block's query blocks for a GQA group, dQ added
  // as given: two passes above hd128, the serial dQ chunks, exposed K/V loads and dK/dV stores
  // (lib/model/NOTES_BWD_FIT.md), instead of the published persistent design.
  std::optional<DqAdd> group_walking_backward;
  // fa2 backward on Hopper whose dQ reductions hide under its port-bound loop; without it each
  // tile pays factors.def's kFa2DqReductionBytesPerCycle.
  bool hidden_dq_reductions = false;
  // GQA backward: each query head's dK and dV leave the main kernel as 16-bit partials and two
  // launches after it sum each group's.
  bool group_reduced_key_grads = false;
  // Backward as two kernels, one for dQ and one for dK and dV, each computing S and dP itself
  // (seven GEMMs of the five, the exp2 and the elementwise work twice, dQ accumulated in tensor
  // memory), one after the other; the dK/dV kernel's CTAs each walk a whole GQA group.
  bool split_dq_backward = false;
  // Backward whose tensor-memory map shares S/P's columns with dP/dS and dQ: each step waits for
  // them (factors.def, kFa4SharedTmemColumnsStepCycles).
  bool shared_tmem_columns_backward = false;
  // One CTA per work tile, not persistent: each CTA pays kFa4SingleTileCtaCycles (backward) or
  // kFa4ForwardSingleTileCtaCycles (forward). With two_cta and columns of its own (neither shared
  // nor split) the softmax hides kFa4BackwardSeparateColumnsOverlap behind the GEMMs;
  // deterministic, dQ semaphores chain the key blocks of a head (kFa4DqChainLinkSeconds).
  bool single_tile_grid = false;
  // Work tiles taken in a fixed order instead of longest first: an unequal (causal) launch ends
  // kFixedOrderTailShare of its longest CTA after the fluid bound (factors.def).
  bool fixed_order_tiles = false;
  // Causal backward whose float32 dQ adds miss L2: from kSpilledDqAddMinQueryHeads query heads,
  // every add beyond a band of keys next to the diagonal goes to HBM (factors.def).
  bool dq_adds_spill_l2 = false;
  // Hopper backward whose tile takes its shared-memory traffic and its MMA one after the other.
  bool serial_smem_mma = false;
  // Two query-side tensors copied into the kernel's layout first: two launches more, each reading
  // and writing b s_q h_q d_v elements (factors.def, kLayoutCopyBandwidthShare).
  bool layout_copies = false;
  // fa4 forward on Blackwell Ultra: the tensor-memory load of S also returns each row's maximum
  // (tcgen05.ld.red), so on unmasked blocks the softmax skips its FMNMX (factors.def,
  // kRowMaxOpsPerElement). Default: on for fa4's forward on Blackwell Ultra.
  std::optional<bool> row_max_on_load;
  // Forward decode on fa3's pipeline (model/decode.cpp): a KV head's query heads packed into the
  // rows of one 64-row tile, the key range dealt to CTAs by this partition, float32 partials and
  // their combine, the whole launch bound by HBM where the KV read is longer than the tiles.
  std::optional<DecodePartition> decode;
  // The timed launch follows a memset that flushed L2 (the lab's harness, bench/timer.cpp): the
  // dirty lines it left are written back while the kernel reads (priced on the decode path).
  bool after_l2_flush = false;
};

// Cycles one SM spends on each unit for one M x N tile (one iteration of the inner loop).
struct TileCycles {
  double mma = 0;       // tensor-core MMA
  double exp_mufu = 0;  // exp2 on the MUFU unit
  double exp_fma = 0;   // emulated exp2 on the FMA pipe (a part of fma)
  double fma = 0;  // the issue stream: FP32-pipe work (softmax arithmetic, rescaling, exp_fma),
                   // the emulated exp2's ALU instructions, MUFU issue slots (factors.def)
  double smem = 0;      // shared-memory reads and writes
  double tmem = 0;      // tensor-memory cycles: not modeled (no published TMEM bandwidth), 0
  double tmem_bytes = 0;  // tensor-memory traffic per tile (Blackwell), shown instead
  double hbm = 0;       // this tile's share of the kernel's HBM traffic at the SM's share of BW
  Unit bottleneck = Unit::mma;
  double max() const;
  double of(Unit unit) const;
};

// A factor that is not a hardware rate: named, explained, with the data it was fitted to.
struct Factor {
  std::string name;
  double value = 0;
  std::string meaning;
  std::string fitted_to;  // "" when derived, not fitted
};

struct Prediction {
  AttnShape shape;
  std::string gpu;  // hw::Spec::id
  Algorithm algorithm = Algorithm::fa4;
  Pass pass = Pass::fwd;
  Tile tile;
  double exp_emulation = 0;
  bool conditional_rescale = false;
  bool row_max_on_load = false;
  bool two_cta = false;
  bool deterministic = false;
  TileCycles tile_cycles;
  double tile_time_cycles = 0;  // one tile's time after the algorithm's overlap rules
  double tensor_stream_cycles = 0;   // T: MMA at the sustained GEMM rate, tensor-core operand reads
  double softmax_stream_cycles = 0;  // S: MUFU, FP32 pipe (and FA2's ldmatrix reads)
  double ctas = 0;              // work tiles of M rows (per batch and head)
  double tiles = 0;             // M x N tile iterations over the whole kernel
  double waves = 0;             // ctas / concurrent CTA slots
  double time_s = 0;
  double main_kernel_s = 0;     // the fused main kernel's share of time_s (fa2, fa3, fa4): the
                                // launches beside it and their overheads are the rest
  // Of time_s: the launches' host-to-start latency (launches x kLaunchOverheadSeconds), which a
  // timing of the kernels' own device durations (a profiler's sum) does not see.
  double launch_overhead_s = 0;
  double flops = 0;             // convention in core/shape.hpp
  // Decode (Options::decode): the bytes the launch moves through HBM: K and V of each sequence's
  // keys, a paged cache's block table, Q, O and the log-sum-exp, and the float32 partials written
  // and read back by the combine (its time also prices the paged boxes' overhead and the L2
  // flush's write-back, which are not the kernel's bytes). 0 on the other paths.
  double hbm_bytes = 0;
  double tflops = 0;
  double fraction_of_peak = 0;  // of the dense tensor-core peak for the dtype
  Unit bottleneck = Unit::mma;  // of the whole kernel (hbm when bandwidth-bound)
  // The terms of Options it paid beyond its algorithm's core (`model` prints them), named as the
  // profile rows name them; each one's factors are among `factors`.
  std::vector<std::string_view> terms;
  std::vector<Factor> factors;
  std::string model_version{kModelVersion};
};

// Checks the shape and options (tile fits in shared memory, algorithm runs on this GPU...).
Result<Prediction> predict(const hw::Spec& gpu, const AttnShape& shape, const Options& options);

// Per-tile cycles alone (what FA4's Table 1 tabulates).
Result<TileCycles> tile_cycles(const hw::Spec& gpu, const AttnShape& shape,
                               const Options& options, Tile tile);

// The tile the algorithm would choose for this shape on this GPU.
Tile default_tile(const hw::Spec& gpu, const AttnShape& shape, const Options& options);

}  // namespace fa4::model
