#include "core/shape.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace fa4 {

std::string_view to_string(Dtype dtype) {
  switch (dtype) {
    case Dtype::bf16: return "bf16";
    case Dtype::fp16: return "fp16";
    case Dtype::fp8: return "fp8";
  }
  return "?";
}

std::string_view to_string(Pass pass) { return pass == Pass::fwd ? "fwd" : "bwd"; }

Result<Dtype> parse_dtype(std::string_view text) {
  if (text == "bf16") return Dtype::bf16;
  if (text == "fp16") return Dtype::fp16;
  if (text == "fp8") return Dtype::fp8;
  return Error{fmt::format("unknown dtype '{}': use bf16, fp16 or fp8", text)};
}

Result<Pass> parse_pass(std::string_view text) {
  if (text == "fwd") return Pass::fwd;
  if (text == "bwd") return Pass::bwd;
  return Error{fmt::format("unknown pass '{}': use fwd or bwd", text)};
}

int element_bytes(Dtype dtype) { return dtype == Dtype::fp8 ? 1 : 2; }

std::int64_t side_seqlen(std::int64_t side, std::int64_t both) { return side != 0 ? side : both; }

std::int64_t keys_of(const AttnShape& shape, std::int64_t b) {
  return shape.seqlens_k.empty() ? shape.seqlen_k : shape.seqlens_k[std::size_t(b)];
}

double total_keys(const AttnShape& shape) {
  if (shape.seqlens_k.empty()) return double(shape.batch) * double(shape.seqlen_k);
  double sum = 0.0;
  for (const std::int64_t keys : shape.seqlens_k) sum += double(keys);
  return sum;
}

namespace {

// The serving fields: pages, ragged key counts, a forced split count.
Status validate_serving(const AttnShape& s) {
  if (s.page_size < 0)
    return Error{fmt::format(
        "impossible shape: page-size = {}; give the tokens per KV-cache page (a positive integer), "
        "or 0 for a contiguous cache",
        s.page_size)};
  if (s.splits < 0)
    return Error{fmt::format(
        "impossible shape: splits = {}; give the key-range parts (a positive integer), or 0 to "
        "let the kernel choose",
        s.splits)};
  if (s.seqlens_k.empty()) return Ok{};
  if (std::int64_t(s.seqlens_k.size()) != s.batch)
    return Error{
        fmt::format("ragged batch: {} key counts for batch = {}; give one count per sequence",
                    s.seqlens_k.size(), s.batch)};
  for (std::size_t b = 0; b < s.seqlens_k.size(); ++b) {
    const std::int64_t keys = s.seqlens_k[b];
    if (keys < 0 || keys > s.seqlen_k)
      return Error{fmt::format(
          "ragged batch: sequence {} has {} keys; each count must be 0 to seqlen-k = {} (the "
          "longest sequence's capacity)",
          b, keys, s.seqlen_k)};
  }
  return Ok{};
}

}  // namespace

Status validate(const AttnShape& s) {
  constexpr std::int64_t kMaxElements = std::int64_t{1} << 40;  // 2 TB of bf16: no GPU holds it
  const std::pair<const char*, std::int64_t> sizes[] = {
      {"batch", s.batch},         {"heads", s.heads_q},      {"heads-kv", s.heads_kv},
      {"seqlen-q", s.seqlen_q},   {"seqlen-k", s.seqlen_k},  {"headdim", s.headdim},
      {"headdim-v", s.headdim_v}};
  for (const auto& [name, value] : sizes) {
    if (value <= 0)
      return Error{fmt::format("impossible shape: {} = {}; every size must be a positive integer",
                               name, value)};
  }
  if (s.heads_q % s.heads_kv != 0)
    return Error{fmt::format(
        "impossible shape: heads = {} is not divisible by heads-kv = {}; GQA/MQA needs each KV "
        "head shared by a whole number of query heads",
        s.heads_q, s.heads_kv)};
  if (s.window < 0)
    return Error{fmt::format(
        "impossible shape: window = {}; give the keys each query sees (a positive integer), or 0 "
        "for no sliding window",
        s.window)};
  if (s.window > 0 && !s.causal)
    return Error{fmt::format(
        "window = {} needs the causal mask: a sliding window here is the causal band of the last "
        "{} keys; add causal",
        s.window, s.window)};
  if (s.headdim > 1024 || s.headdim_v > 1024)
    return Error{fmt::format("impossible shape: headdim {} / headdim-v {} exceeds 1024",
                             s.headdim, s.headdim_v)};
  const double q_elems = double(s.batch) * double(s.heads_q) * double(s.seqlen_q) *
                         double(std::max(s.headdim, s.headdim_v));
  const double k_elems = double(s.batch) * double(s.heads_kv) * double(s.seqlen_k) *
                         double(std::max(s.headdim, s.headdim_v));
  if (q_elems > double(kMaxElements) || k_elems > double(kMaxElements))
    return Error{fmt::format(
        "absurd shape: {} has a tensor of more than 2^40 elements; reduce batch, heads or seqlen",
        describe(s))};
  return validate_serving(s);
}

ServingFields serving_fields(const AttnShape& s) { return {s.page_size, s.seqlens_k, s.splits}; }

std::string describe_serving(const ServingFields& s) {
  std::string serving;
  if (s.page_size) serving += fmt::format(" paged{}", s.page_size);
  if (!s.seqlens_k.empty()) {
    const auto [shortest, longest] = std::minmax_element(s.seqlens_k.begin(), s.seqlens_k.end());
    std::int64_t sum = 0;
    for (const std::int64_t keys : s.seqlens_k) sum += keys;
    serving += fmt::format(" ragged{}-{}(sum {})", *shortest, *longest, sum);
  }
  if (s.splits) serving += fmt::format(" splits{}", s.splits);
  return serving;
}

std::string describe(const AttnShape& s) {
  std::string heads = s.heads_q == s.heads_kv ? fmt::format("h{}", s.heads_q)
                                              : fmt::format("h{}/{}", s.heads_q, s.heads_kv);
  std::string seq = s.seqlen_q == s.seqlen_k ? fmt::format("s{}", s.seqlen_q)
                                             : fmt::format("s{}x{}", s.seqlen_q, s.seqlen_k);
  std::string dim = s.headdim == s.headdim_v ? fmt::format("d{}", s.headdim)
                                             : fmt::format("d{}/{}", s.headdim, s.headdim_v);
  return fmt::format("b{} {} {} {} {}{}{}{}", s.batch, heads, seq, dim, to_string(s.dtype),
                     s.causal ? " causal" : "", s.window ? fmt::format(" w{}", s.window) : "",
                     describe_serving(serving_fields(s)));
}

namespace {

// The area under min(window, x) from 0 to x: the keys seen by the query rows whose diagonal keys
// run from 0 to x (no window: x^2 / 2).
double causal_area(double x, double window) {
  if (window <= 0 || x <= window) return x * x / 2.0;
  return window * window / 2.0 + (x - window) * window;
}

// The pairs of one sequence of `keys` keys.
double sequence_pairs(const AttnShape& s, double keys) {
  const double sq = double(s.seqlen_q);
  if (!s.causal) return sq * keys;
  // Rows' diagonal keys run from max(0, keys - sq) to keys (bottom-right aligned; rows before key
  // 0 see nothing).
  const double w = double(s.window);
  return causal_area(keys, w) - causal_area(std::max(0.0, keys - sq), w);
}

}  // namespace

double unmasked_pairs(const AttnShape& s) {
  if (s.seqlens_k.empty()) return sequence_pairs(s, double(s.seqlen_k));
  double sum = 0.0;
  for (const std::int64_t keys : s.seqlens_k) sum += sequence_pairs(s, double(keys));
  return sum / double(s.batch);
}

double attention_flops(const AttnShape& s, Pass pass) {
  const double fwd =
      2.0 * double(s.batch) * double(s.heads_q) * unmasked_pairs(s) * double(s.headdim + s.headdim_v);
  return pass == Pass::fwd ? fwd : 2.5 * fwd;
}

double attention_min_hbm_bytes(const AttnShape& s, Pass pass) {
  const double e = element_bytes(s.dtype);
  const double q = double(s.batch * s.heads_q * s.seqlen_q * s.headdim) * e;
  const double k = total_keys(s) * double(s.heads_kv * s.headdim) * e;
  const double v = total_keys(s) * double(s.heads_kv * s.headdim_v) * e;
  const double o = double(s.batch * s.heads_q * s.seqlen_q * s.headdim_v) * e;
  const double lse = double(s.batch * s.heads_q * s.seqlen_q) * 4.0;
  if (pass == Pass::fwd) return q + k + v + o + lse;
  // backward: read Q K V O dO LSE, write dQ dK dV
  return (q + k + v + o + o + lse) + (q + k + v);
}

}  // namespace fa4
