// CPU references for attention forward, computed one query row at a time so that GPU tests can
// check a sampled subset of rows of a large problem.
//
// Layout (shared with lib/kernels): Q [batch][heads_q][seqlen_q][headdim], K [batch][heads_kv]
// [seqlen_k][headdim], V [batch][heads_kv][seqlen_k][headdim_v], O [batch][heads_q][seqlen_q]
// [headdim_v], LSE [batch][heads_q][seqlen_q], all contiguous.
// Semantics: query head h reads kv head h / (heads_q / heads_kv) (GQA/MQA); softmax scale
// 1 / sqrt(headdim); causal is bottom-right aligned: query i sees keys j <= i + seqlen_k -
// seqlen_q. LSE is the natural log of the row's sum of exp(scale * q.k) over the visible keys.
// Fully masked rows (causal with seqlen_q > seqlen_k: the first seqlen_q - seqlen_k rows) have
// O = 0 and LSE = -inf (log of an empty sum). FlashAttention-2's own kernels write +inf there; we
// keep the mathematical value.
#pragma once

#include <cstdint>
#include <limits>
#include <vector>

#include "core/shape.hpp"

namespace fa4::reference {

inline constexpr double kLog2e = 1.4426950408889634074;
inline constexpr double kLn2 = 0.69314718055994530942;

// Inputs as float arrays holding values rounded to shape.dtype (bf16 or fp16).
struct AttnInputs {
  AttnShape shape;
  std::vector<float> q, k, v;
};

// Normal(0, stddev) entries rounded to shape.dtype; in a ragged batch, K and V rows past each
// sequence's key count are NaN (cache slots never written).
AttnInputs random_inputs(const AttnShape& shape, std::uint64_t seed, float stddev = 1.0f);

struct RowId {
  std::int64_t batch = 0, head = 0, row = 0;
};

struct RowResult {
  std::vector<double> o;  // headdim_v entries
  double lse = -std::numeric_limits<double>::infinity();
};

// Keys query row `row` of sequence `batch` may see: [0, visible_keys).
std::int64_t visible_keys(const AttnShape& shape, std::int64_t batch, std::int64_t row);

// The oracle: standard attention in float64.
RowResult oracle_row(const AttnInputs& in, RowId id);

// A plain low-precision computation, as a framework does it in the input dtype: S = QK^T
// accumulated exactly then rounded to the dtype, softmax in float64 with P rounded to the dtype,
// O = PV accumulated exactly then rounded to the dtype. Its distance from the oracle calibrates
// the tolerances of every faster path (FlashAttention-3's test style).
RowResult low_precision_row(const AttnInputs& in, RowId id);

// FlashAttention-2's algorithm in float32: keys in blocks of block_n, visited from the last
// visible block down to the first (as the kernels do), online softmax with exp2 and the softmax
// scale folded into log2 units (one FMA per score), O and the row sum rescaled whenever the
// running maximum changes, one division at the end. With round_p, P is rounded to the input
// dtype before P.V (as the tensor-core kernels do) while the row sum uses the float32 P.
struct Fa2Options {
  int block_n = 64;
  bool round_p = true;
};
RowResult fa2_row(const AttnInputs& in, RowId id, const Fa2Options& options = {});

// FA4's softmax in float32 (FA4 §3.1.3-3.1.4) on FA2's loop:
// - software exp2 (exp2_emulation.hpp) on the last `emulated_share` of the columns of each key
//   block (columns c >= ceil(block_n * (1 - emulated_share))); std::exp2f stands in for the GPU's
//   MUFU ex2 on the others;
// - conditional rescaling: after the first block with a visible key, keep the running maximum
//   unless the new block's maximum exceeds it by more than rescale_threshold (log2 units, after
//   the softmax scale); O and the row sum always share one reference maximum, so O / l is exact up
//   to rounding, and P entries can reach 2^threshold. The GPU decides per warp (rescale if any of
//   its rows needs it); per row is the finest case of that rule.
struct Fa4Options {
  int block_n = 128;
  double emulated_share = 0.125;
  bool conditional_rescale = true;
  float rescale_threshold = 8.0f;  // log2(256): P stays below 256, which bf16 and fp16 hold
  bool round_p = true;
};
// Over blocks after the first with a visible key: `done` rescaled O and l (with conditional
// rescaling off, every such block counts as done, as in FA2), `skipped` kept the reference maximum.
struct RescaleCounts {
  std::int64_t done = 0;
  std::int64_t skipped = 0;
};
RowResult fa4_row(const AttnInputs& in, RowId id, const Fa4Options& options = {},
                  RescaleCounts* counts = nullptr);

// Largest |a - b| over O entries; LSE compared likewise (equal infinities count as 0). A NaN
// anywhere gives +inf, so NaN never passes a tolerance.
double max_abs_diff(const std::vector<double>& a, const std::vector<double>& b);
double lse_abs_diff(double a, double b);

// Worst O and LSE errors of a candidate against the oracle over the rows added.
struct ErrorSummary {
  double o = 0.0;
  double lse = 0.0;
  void add(const RowResult& candidate, const RowResult& oracle);
};

}  // namespace fa4::reference
