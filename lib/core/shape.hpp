// The attention problem that travels through the whole tool: model, harness, store and report.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.hpp"

namespace fa4 {

enum class Dtype { bf16, fp16, fp8 };
enum class Pass { fwd, bwd };

std::string_view to_string(Dtype dtype);
std::string_view to_string(Pass pass);
Result<Dtype> parse_dtype(std::string_view text);
Result<Pass> parse_pass(std::string_view text);
int element_bytes(Dtype dtype);

struct AttnShape {
  std::int64_t batch = 1;
  std::int64_t heads_q = 16;
  std::int64_t heads_kv = 16;  // heads_q % heads_kv == 0 (GQA/MQA when smaller)
  std::int64_t seqlen_q = 4096;
  std::int64_t seqlen_k = 4096;
  std::int64_t headdim = 128;    // d of Q and K
  std::int64_t headdim_v = 128;  // d of V and O
  bool causal = false;           // bottom-right aligned when seqlen_q != seqlen_k
  Dtype dtype = Dtype::bf16;
  // Sliding window (causal only; 0: none): query i sees at most `window` keys, itself included,
  // the keys j with i' - window < j <= i' where i' = i + seqlen_k - seqlen_q is its diagonal key.
  // As cuDNN's left_bound (cudnn-frontend's sdpa benchmark: "each query attends to at most W
  // keys"); FlashAttention's window_size = (window - 1, 0) and PyTorch's equivalent masks.
  std::int64_t window = 0;
  // Serving. A paged KV cache (0: contiguous K and V): each sequence's keys in pages of
  // `page_size` tokens of one pool, found through a block table (core/kv_pages.hpp).
  std::int64_t page_size = 0;
  // A ragged batch (empty: every sequence has seqlen_k keys): the key count of each of the
  // `batch` sequences (decode's cache lengths), each at most seqlen_k, the longest's capacity.
  // A sequence may be empty (0 keys: O = 0, LSE = -inf).
  std::vector<std::int64_t> seqlens_k = {};
  // Split-KV parts of a decode kernel (0: its heuristic chooses; core/decode_tiles.hpp).
  std::int64_t splits = 0;

  friend auto operator<=>(const AttnShape&, const AttnShape&) = default;
};

// The one rule of the shape flags and the sweep files for the two sequence lengths: "seqlen"
// gives both, "seqlen_q" and "seqlen_k" each override it for their side (--seqlen 1024
// --seqlen-q 512 is 512 queries, 1024 keys). `side` and `both` are 0 when not given.
std::int64_t side_seqlen(std::int64_t side, std::int64_t both);

// The keys of sequence `b`: seqlens_k[b] in a ragged batch, else seqlen_k.
std::int64_t keys_of(const AttnShape& shape, std::int64_t b);
// Keys summed over the batch (batch * seqlen_k unless ragged).
double total_keys(const AttnShape& shape);

// Refuses impossible shapes with the reason: zero/negative sizes, heads_q not divisible by
// heads_kv, absurd sizes (a single tensor over 2^40 elements), a negative window or one without
// the causal mask.
Status validate(const AttnShape& shape);

// "b4 h16/16 s8448x8448 d128 bf16 causal" style one-line description ("causal w1024" with a
// sliding window; " paged16" for pages of 16 tokens, " ragged" with the key counts' range and
// sum, " splits4" for a forced split count).
std::string describe(const AttnShape& shape);

// The serving fields alone (page size, ragged key counts, split count), ordered: what a key made
// of a shape's sizes adds to tell a paged, ragged or split shape from the plain one.
struct ServingFields {
  std::int64_t page_size = 0;
  std::vector<std::int64_t> seqlens_k = {};
  std::int64_t splits = 0;

  friend auto operator<=>(const ServingFields&, const ServingFields&) = default;
};
ServingFields serving_fields(const AttnShape& shape);

// describe()'s serving tail: " paged16 ragged0-1000(sum 1200) splits4"; "" when none is set.
std::string describe_serving(const ServingFields& serving);

// Work counting convention, used by the model, the harness and the report alike:
//   unmasked pairs P = seqlen_q * seqlen_k (in a ragged batch the mean over its sequences), or for
//   causal (bottom-right aligned) the continuous area of the unmasked triangle: seqlen_q ==
//   seqlen_k = s gives s^2 / 2 (the papers' "halved"), seqlen_k > seqlen_q gives sq*(sk - sq) +
//   sq^2/2, seqlen_q > seqlen_k gives sk^2/2. With a sliding window W the area likewise: each query
//   row at diagonal key x sees min(W, x) keys, so s_q == s_k = s >= W gives s*W - W^2/2 (cuDNN's
//   benchmark counts W(W+1)/2 + (s-W)*W: report/published.cpp applies a source's own count).
//   forward FLOPs  = 2 * batch * heads_q * P * (headdim + headdim_v)   (= 4*b*h*P*d when d == dv)
//   backward FLOPs = 2.5 * forward FLOPs (five GEMMs against two).
double unmasked_pairs(const AttnShape& shape);
double attention_flops(const AttnShape& shape, Pass pass);

// The fewest bytes a fused kernel must move through HBM: forward reads Q, K, V once and writes O
// and the fp32 log-sum-exp; backward reads Q, K, V, O, dO, LSE and writes dQ, dK, dV.
double attention_min_hbm_bytes(const AttnShape& shape, Pass pass);

}  // namespace fa4
