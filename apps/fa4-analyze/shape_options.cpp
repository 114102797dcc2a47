#include "shape_options.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "core/ragged.hpp"
#include "integer_option.hpp"
#include "user_error.hpp"

namespace fa4::app {

void ShapeOptions::add_to(CLI::App& c) {
  // Each flag in the order --help lists them; the ones the shape's rules ask about kept by name.
  const auto keep = [](const CLI::Option*& named, CLI::Option* flag) { return named = flag; };
  flags_ = {
      keep(batch_flag_,
           c.add_option("--batch", batch_,
                        "Batch size (default: 2, or one sequence per --seqlens-k count)")
               ->check(kDecimalInteger)),
      c.add_option("--heads", heads_, "Query heads")->check(kDecimalInteger),
      c.add_option("--heads-kv", heads_kv_, "Key/value heads (GQA/MQA; default: --heads)")
          ->check(kDecimalInteger),
      keep(seqlen_flag_, c.add_option("--seqlen", seqlen_, "Sequence length of queries and keys")
                             ->check(kDecimalInteger)),
      c.add_option("--seqlen-q", seqlen_q_, "Query sequence length (default: --seqlen)")
          ->check(kDecimalInteger),
      keep(seqlen_k_flag_,
           c.add_option("--seqlen-k", seqlen_k_,
                        "Key sequence length (default: --seqlen; with --seqlens-k or --ragged and "
                        "no --seqlen, the longest count: the capacity)")
               ->check(kDecimalInteger)),
      c.add_option("--headdim", headdim_, "Head dimension of Q and K")->check(kDecimalInteger),
      c.add_option("--headdim-v", headdim_v_, "Head dimension of V and O (default: --headdim)")
          ->check(kDecimalInteger),
      c.add_flag("--causal", causal_, "Causal mask (bottom-right aligned when seqlens differ)"),
      c.add_option("--window", window_,
                   "Sliding window with --causal: each query sees at most this many keys, its "
                   "own included (default: none)")
          ->check(kDecimalInteger),
      c.add_option("--dtype", dtype_, "Element type: bf16, fp16 or fp8"),
      c.add_option("--page-size", page_size_,
                   "Tokens per page of a paged KV cache (default: 0, contiguous K and V)")
          ->check(kDecimalInteger),
      keep(seqlens_k_flag_,
           c.add_option("--seqlens-k", seqlens_k_,
                        "A ragged batch's key counts, one per sequence, e.g. 8192,100,0 "
                        "(default: every sequence has --seqlen-k keys)")),
      keep(ragged_flag_,
           c.add_option("--ragged", ragged_,
                        "A ragged batch's key counts drawn log-uniform in [MIN, MAX] from SEED, "
                        "one per --batch sequence, e.g. 128:8192:1 (a sweep file's \"ragged\")")),
      c.add_option("--splits", splits_,
                   "Split-KV parts of a decode kernel (default: 0, the kernel's heuristic)")
          ->check(kDecimalInteger),
  };
}

bool ShapeOptions::any_given() const {
  for (const CLI::Option* flag : flags_)
    if (flag->count() > 0) return true;
  return false;
}

void ShapeOptions::add_ragged_keys(AttnShape& s) const {
  const bool listed = seqlens_k_flag_->count() > 0, drawn = ragged_flag_->count() > 0;
  if (listed && drawn)
    throw UserError(
        "--seqlens-k and --ragged both give the key counts of the batch's sequences; keep one "
        "(--seqlens-k lists them, --ragged draws them)");
  if (listed) {
    s.seqlens_k = take(parse_key_counts(seqlens_k_, "--seqlens-k"));
    if (s.seqlens_k.empty())
      throw UserError(
          "--seqlens-k '': give one key count per sequence, e.g. 8192,100,0, or leave it out for "
          "a batch whose sequences all have --seqlen-k keys");
    if (batch_flag_->count() == 0) s.batch = std::int64_t(s.seqlens_k.size());
    if (s.batch != std::int64_t(s.seqlens_k.size()))
      throw UserError(fmt::format(
          "--seqlens-k gives {} key counts for --batch {}; give one count per sequence, or leave "
          "out --batch",
          s.seqlens_k.size(), s.batch));
  }
  if (drawn)
    s.seqlens_k =
        take(ragged_key_counts(take(parse_ragged(ragged_, "--ragged")), s.batch, "--ragged"));
  // The capacity of a ragged batch is its longest sequence unless a key length is given.
  if (!s.seqlens_k.empty() && seqlen_k_flag_->count() == 0 && seqlen_flag_->count() == 0)
    s.seqlen_k = std::max<std::int64_t>(1, std::ranges::max(s.seqlens_k));
}

AttnShape ShapeOptions::shape() const {
  AttnShape s;
  s.batch = batch_;
  s.heads_q = heads_;
  s.heads_kv = heads_kv_ ? heads_kv_ : heads_;
  s.seqlen_q = side_seqlen(seqlen_q_, seqlen_);
  s.seqlen_k = side_seqlen(seqlen_k_, seqlen_);
  s.headdim = headdim_;
  s.headdim_v = headdim_v_ ? headdim_v_ : headdim_;
  s.causal = causal_;
  s.window = window_;
  s.dtype = take(parse_dtype(dtype_));
  s.page_size = page_size_;
  s.splits = splits_;
  add_ragged_keys(s);
  take(validate(s));
  return s;
}

}  // namespace fa4::app
