#include "shape_options.hpp"

#include "integer_option.hpp"
#include "user_error.hpp"

namespace fa4::app {

void ShapeOptions::add_to(CLI::App& c) {
  flags_ = {
      c.add_option("--batch", batch_, "Batch size")->check(kDecimalInteger),
      c.add_option("--heads", heads_, "Query heads")->check(kDecimalInteger),
      c.add_option("--heads-kv", heads_kv_, "Key/value heads (GQA/MQA; default: --heads)")
          ->check(kDecimalInteger),
      c.add_option("--seqlen", seqlen_, "Sequence length of queries and keys")
          ->check(kDecimalInteger),
      c.add_option("--seqlen-q", seqlen_q_, "Query sequence length (default: --seqlen)")
          ->check(kDecimalInteger),
      c.add_option("--seqlen-k", seqlen_k_, "Key sequence length (default: --seqlen)")
          ->check(kDecimalInteger),
      c.add_option("--headdim", headdim_, "Head dimension of Q and K")->check(kDecimalInteger),
      c.add_option("--headdim-v", headdim_v_, "Head dimension of V and O (default: --headdim)")
          ->check(kDecimalInteger),
      c.add_flag("--causal", causal_, "Causal mask (bottom-right aligned when seqlens differ)"),
      c.add_option("--window", window_,
                   "Sliding window with --causal: each query sees at most this many keys, its "
                   "own included (default: none)")
          ->check(kDecimalInteger),
      c.add_option("--dtype", dtype_, "Element type: bf16, fp16 or fp8"),
  };
}

bool ShapeOptions::any_given() const {
  for (const CLI::Option* flag : flags_)
    if (flag->count() > 0) return true;
  return false;
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
  take(validate(s));
  return s;
}

}  // namespace fa4::app
