#include "reference/attention.hpp"

#include <algorithm>
#include <cmath>

#include "reference/exp2_emulation.hpp"
#include "reference/half_float.hpp"
#include "reference/parallel_chunks.hpp"

namespace fa4::reference {
namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();
constexpr float kFloatInfinity = std::numeric_limits<float>::infinity();

// One query row and the keys and values it reads.
struct RowView {
  const float* q;
  const float* k;  // visible_keys rows of headdim
  const float* v;  // visible_keys rows of headdim_v
  std::int64_t keys;
  std::int64_t headdim;
  std::int64_t headdim_v;
  double scale;
};

RowView view_row(const AttnInputs& in, RowId id) {
  const AttnShape& s = in.shape;
  const std::int64_t kv_head = id.head / (s.heads_q / s.heads_kv);
  const std::int64_t q_row = (id.batch * s.heads_q + id.head) * s.seqlen_q + id.row;
  const std::int64_t kv_first_row = (id.batch * s.heads_kv + kv_head) * s.seqlen_k;
  return RowView{.q = in.q.data() + q_row * s.headdim,
                 .k = in.k.data() + kv_first_row * s.headdim,
                 .v = in.v.data() + kv_first_row * s.headdim_v,
                 .keys = visible_keys(s, id.batch, id.row),
                 .headdim = s.headdim,
                 .headdim_v = s.headdim_v,
                 .scale = 1.0 / std::sqrt(double(s.headdim))};
}

double dot_exact(const RowView& r, std::int64_t key) {
  double sum = 0.0;
  for (std::int64_t c = 0; c < r.headdim; ++c)
    sum += double(r.q[c]) * double(r.k[key * r.headdim + c]);
  return sum;
}

float dot_float(const RowView& r, std::int64_t key) {
  float sum = 0.0f;
  for (std::int64_t c = 0; c < r.headdim; ++c) sum += r.q[c] * r.k[key * r.headdim + c];
  return sum;
}

// The online-softmax loop shared by the FA2 and FA4 references: `exp2_of(x, column_in_block)`
// evaluates 2^x, and `choose_max(block_max_scaled, reference_max_scaled, first_block)` returns
// true when O and l must move to a new reference maximum.
template <class Exp2, class ChooseRescale>
RowResult online_softmax_row(const AttnInputs& in, RowId id, int block_n, bool round_p,
                             Exp2 exp2_of, ChooseRescale rescale_needed) {
  const RowView r = view_row(in, id);
  RowResult result;
  result.o.assign(std::size_t(r.headdim_v), 0.0);
  if (r.keys == 0) return result;

  const float scale_log2 = float(r.scale * kLog2e);
  float reference_max_scaled = -kFloatInfinity;
  float row_sum = 0.0f;
  std::vector<float> acc(std::size_t(r.headdim_v), 0.0f);
  std::vector<float> scores(static_cast<std::size_t>(block_n));
  const std::int64_t last_block = (r.keys - 1) / block_n;
  for (std::int64_t block = last_block; block >= 0; --block) {
    const std::int64_t first_key = block * block_n;
    const std::int64_t end_key = std::min(first_key + block_n, r.keys);
    float block_max = -kFloatInfinity;
    for (std::int64_t j = first_key; j < end_key; ++j) {
      scores[std::size_t(j - first_key)] = dot_float(r, j);
      block_max = std::max(block_max, scores[std::size_t(j - first_key)]);
    }
    const float block_max_scaled = block_max * scale_log2;
    if (rescale_needed(block_max_scaled, reference_max_scaled, block == last_block)) {
      const float new_max_scaled = std::max(reference_max_scaled, block_max_scaled);
      const float correction = std::exp2f(reference_max_scaled - new_max_scaled);
      row_sum *= correction;
      for (float& a : acc) a *= correction;
      reference_max_scaled = new_max_scaled;
    }
    for (std::int64_t j = first_key; j < end_key; ++j) {
      const int column = int(j - first_key);
      const float p = exp2_of(
          std::fmaf(scores[std::size_t(column)], scale_log2, -reference_max_scaled), column);
      row_sum += p;
      const float p_for_pv = round_p ? round_to(p, in.shape.dtype) : p;
      for (std::int64_t c = 0; c < r.headdim_v; ++c)
        acc[std::size_t(c)] += p_for_pv * r.v[j * r.headdim_v + c];
    }
  }
  for (std::int64_t c = 0; c < r.headdim_v; ++c)
    result.o[std::size_t(c)] = double(acc[std::size_t(c)] / row_sum);
  result.lse = (double(reference_max_scaled) + std::log2(double(row_sum))) * kLn2;
  return result;
}

// A counter-based draw: entries 2i and 2i + 1 of stream `stream` are a function of (seed,
// stream, i) alone, so chunks of a tensor fill in parallel and a decode cache of billions of
// entries takes seconds. splitmix64 (Steele, Lea and Flood, "Fast splittable pseudorandom number
// generators", 2014) hashes the counter; Box-Muller turns its two 32-bit halves into two normal
// values (the cosine and the sine branch).
std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// `count` entries of stream `stream`, Normal(0, stddev) rounded to `dtype`.
std::vector<float> normal_tensor(std::int64_t count, std::uint64_t seed, std::uint64_t stream,
                                 float stddev, Dtype dtype) {
  std::vector<float> values(static_cast<std::size_t>(count));
  const std::uint64_t key = splitmix64(seed ^ (stream << 56));
  for_each_chunk(count, [&](std::int64_t begin, std::int64_t end) {
    constexpr float kTwoTo24 = 16777216.0f;
    constexpr float kTwoPi = 6.2831853071795865f;
    for (std::int64_t i = begin & ~std::int64_t{1}; i < end; i += 2) {
      const std::uint64_t bits = splitmix64(key + std::uint64_t(i / 2));
      const float u1 = (float(bits >> 40) + 1.0f) / (kTwoTo24 + 1.0f);  // (0, 1): log finite
      const float u2 = float((bits >> 8) & 0xffffffu) / kTwoTo24;
      const float radius = std::sqrt(-2.0f * std::log(u1)) * stddev;
      if (i >= begin) values[std::size_t(i)] = round_to(radius * std::cos(kTwoPi * u2), dtype);
      if (i + 1 < end) values[std::size_t(i + 1)] = round_to(radius * std::sin(kTwoPi * u2), dtype);
    }
  });
  return values;
}

// A ragged batch's cache slots past each sequence's key count were never written: NaN there, so
// a kernel that reads one without masking it fails its check.
void poison_unwritten_keys(std::vector<float>& kv, const AttnShape& shape, std::int64_t width) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (std::int64_t b = 0; b < shape.batch; ++b)
    for (std::int64_t h = 0; h < shape.heads_kv; ++h) {
      const std::int64_t first_row = (b * shape.heads_kv + h) * shape.seqlen_k;
      std::fill(kv.begin() + (first_row + keys_of(shape, b)) * width,
                kv.begin() + (first_row + shape.seqlen_k) * width, nan);
    }
}

}  // namespace

AttnInputs random_inputs(const AttnShape& shape, std::uint64_t seed, float stddev) {
  AttnInputs in;
  in.shape = shape;
  in.q = normal_tensor(shape.batch * shape.heads_q * shape.seqlen_q * shape.headdim, seed, 0,
                       stddev, shape.dtype);
  in.k = normal_tensor(shape.batch * shape.heads_kv * shape.seqlen_k * shape.headdim, seed, 1,
                       stddev, shape.dtype);
  in.v = normal_tensor(shape.batch * shape.heads_kv * shape.seqlen_k * shape.headdim_v, seed, 2,
                       stddev, shape.dtype);
  if (!shape.seqlens_k.empty()) {
    poison_unwritten_keys(in.k, shape, shape.headdim);
    poison_unwritten_keys(in.v, shape, shape.headdim_v);
  }
  return in;
}

std::int64_t visible_keys(const AttnShape& shape, std::int64_t batch, std::int64_t row) {
  const std::int64_t keys = keys_of(shape, batch);
  if (!shape.causal) return keys;
  return std::clamp<std::int64_t>(row + keys - shape.seqlen_q + 1, 0, keys);
}

RowResult oracle_row(const AttnInputs& in, RowId id) {
  const RowView r = view_row(in, id);
  RowResult result;
  result.o.assign(std::size_t(r.headdim_v), 0.0);
  if (r.keys == 0) return result;
  std::vector<double> scores(std::size_t(r.keys));
  double max_score = -kInfinity;
  for (std::int64_t j = 0; j < r.keys; ++j) {
    scores[std::size_t(j)] = dot_exact(r, j) * r.scale;
    max_score = std::max(max_score, scores[std::size_t(j)]);
  }
  double sum = 0.0;
  for (std::int64_t j = 0; j < r.keys; ++j) {
    const double p = std::exp(scores[std::size_t(j)] - max_score);
    sum += p;
    for (std::int64_t c = 0; c < r.headdim_v; ++c)
      result.o[std::size_t(c)] += p * double(r.v[j * r.headdim_v + c]);
  }
  for (double& o : result.o) o /= sum;
  result.lse = max_score + std::log(sum);
  return result;
}

RowResult low_precision_row(const AttnInputs& in, RowId id) {
  const RowView r = view_row(in, id);
  const Dtype dtype = in.shape.dtype;
  RowResult result;
  result.o.assign(std::size_t(r.headdim_v), 0.0);
  if (r.keys == 0) return result;
  std::vector<double> scores(std::size_t(r.keys));
  double max_score = -kInfinity;
  for (std::int64_t j = 0; j < r.keys; ++j) {
    scores[std::size_t(j)] = double(round_to(float(dot_exact(r, j)), dtype)) * r.scale;
    max_score = std::max(max_score, scores[std::size_t(j)]);
  }
  double sum = 0.0;
  for (double s : scores) sum += std::exp(s - max_score);
  for (std::int64_t j = 0; j < r.keys; ++j) {
    const double p = round_to(float(std::exp(scores[std::size_t(j)] - max_score) / sum), dtype);
    for (std::int64_t c = 0; c < r.headdim_v; ++c)
      result.o[std::size_t(c)] += p * double(r.v[j * r.headdim_v + c]);
  }
  for (double& o : result.o) o = round_to(float(o), dtype);
  result.lse = max_score + std::log(sum);
  return result;
}

RowResult fa2_row(const AttnInputs& in, RowId id, const Fa2Options& options) {
  return online_softmax_row(
      in, id, options.block_n, options.round_p, [](float x, int) { return std::exp2f(x); },
      [](float block_max, float reference_max, bool) { return block_max > reference_max; });
}

RowResult fa4_row(const AttnInputs& in, RowId id, const Fa4Options& options,
                  RescaleCounts* counts) {
  const int first_emulated_column =
      int(std::ceil(double(options.block_n) * (1.0 - options.emulated_share)));
  auto exp2_of = [first_emulated_column](float x, int column) {
    return column >= first_emulated_column ? exp2_emulation::software_exp2(x) : std::exp2f(x);
  };
  auto rescale_needed = [&](float block_max, float reference_max, bool first_block) {
    if (first_block) return true;  // sets the first reference maximum; not counted
    const bool rescale =
        !options.conditional_rescale || block_max - reference_max > options.rescale_threshold;
    if (counts) ++(rescale ? counts->done : counts->skipped);
    return rescale;
  };
  return online_softmax_row(in, id, options.block_n, options.round_p, exp2_of, rescale_needed);
}

double max_abs_diff(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.size() != b.size()) return kInfinity;
  double worst = 0.0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const double d = std::abs(a[i] - b[i]);
    if (std::isnan(d)) return kInfinity;  // NaN never passes
    worst = std::max(worst, d);
  }
  return worst;
}

double lse_abs_diff(double a, double b) {
  if (std::isinf(a) && std::isinf(b) && (a > 0) == (b > 0)) return 0.0;
  const double d = std::abs(a - b);
  return std::isnan(d) ? kInfinity : d;
}

void ErrorSummary::add(const RowResult& candidate, const RowResult& oracle) {
  o = std::max(o, max_abs_diff(candidate.o, oracle.o));
  lse = std::max(lse, lse_abs_diff(candidate.lse, oracle.lse));
}

}  // namespace fa4::reference
