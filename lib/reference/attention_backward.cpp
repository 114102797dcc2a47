#include "reference/attention_backward.hpp"

#include <algorithm>
#include <cmath>
#include <random>
#include <sstream>
#include <thread>

#include "reference/half_float.hpp"

namespace fa4::reference {
namespace {

// Separates dO's random stream from the one random_inputs draws Q, K and V from.
constexpr std::uint64_t kDoutSeedOffset = 0x9e3779b97f4a7c15ull;

// The oracle keeps every quantity in float64; the plain computation rounds S, dP, P, dS and the
// results to the input dtype.
enum class Precision { exact, input_dtype };

// Offsets into the contiguous tensors, in rows of headdim (Q, K) or headdim_v (V, O, dO) entries.
std::int64_t query_row_index(const AttnShape& s, std::int64_t batch, std::int64_t head,
                             std::int64_t row) {
  return (batch * s.heads_q + head) * s.seqlen_q + row;
}
std::int64_t key_row_index(const AttnShape& s, std::int64_t batch, std::int64_t head_kv,
                           std::int64_t key) {
  return (batch * s.heads_kv + head_kv) * s.seqlen_k + key;
}

double dot(const float* a, const float* b, std::int64_t n) {
  double sum = 0.0;
  for (std::int64_t c = 0; c < n; ++c) sum += double(a[c]) * double(b[c]);
  return sum;
}

// The gradient of the row loss dO_i.O_i with respect to the scaled score of one (query, key) pair,
// dS_ij, next to P_ij; both are what the GEMMs after them consume.
struct PairGradient {
  double p;
  double ds;
};

// The backward's view of one query row: its Q, O, dO rows, D_i and LSE_i.
struct QueryRow {
  const float* q;
  const float* dout;
  double lse;
  double d;  // D_i = dO_i.O_i
};

class Backward {
 public:
  Backward(const BwdInputs& in, Precision precision)
      : in_(in),
        s_(in.attn.shape),
        precision_(precision),
        scale_(1.0 / std::sqrt(double(s_.headdim))) {}

  double round(double x) const {
    return precision_ == Precision::exact ? x : double(round_to(float(x), s_.dtype));
  }

  QueryRow query_row(std::int64_t batch, std::int64_t head, std::int64_t row) const {
    const std::int64_t index = query_row_index(s_, batch, head, row);
    const float* dout = in_.dout.data() + index * s_.headdim_v;
    return QueryRow{.q = in_.attn.q.data() + index * s_.headdim,
                    .dout = dout,
                    .lse = double(in_.lse[std::size_t(index)]),
                    .d = dot(dout, in_.o.data() + index * s_.headdim_v, s_.headdim_v)};
  }

  PairGradient pair(const QueryRow& query, const float* k, const float* v) const {
    const double score = round(dot(query.q, k, s_.headdim));
    const double p = round(std::exp(scale_ * score - query.lse));
    const double dp = round(dot(query.dout, v, s_.headdim_v));
    return PairGradient{.p = p, .ds = round(p * (dp - query.d))};
  }

  std::vector<double> dq_row(RowId id) const {
    std::vector<double> dq(std::size_t(s_.headdim), 0.0);
    const QueryRow query = query_row(id.batch, id.head, id.row);
    const std::int64_t head_kv = id.head / (s_.heads_q / s_.heads_kv);
    const std::int64_t first_key = key_row_index(s_, id.batch, head_kv, 0);
    const float* k = in_.attn.k.data() + first_key * s_.headdim;
    const float* v = in_.attn.v.data() + first_key * s_.headdim_v;
    for (std::int64_t j = 0; j < visible_keys(s_, id.batch, id.row); ++j) {
      const double ds = pair(query, k + j * s_.headdim, v + j * s_.headdim_v).ds;
      for (std::int64_t c = 0; c < s_.headdim; ++c)
        dq[std::size_t(c)] += ds * k[j * s_.headdim + c];
    }
    for (double& x : dq) x = round(scale_ * x);
    return dq;
  }

  KeyGrads dkv_row(KeyRowId id) const {
    KeyGrads grads{.dk = std::vector<double>(std::size_t(s_.headdim), 0.0),
                   .dv = std::vector<double>(std::size_t(s_.headdim_v), 0.0)};
    const std::int64_t key = key_row_index(s_, id.batch, id.head_kv, id.key);
    const float* k = in_.attn.k.data() + key * s_.headdim;
    const float* v = in_.attn.v.data() + key * s_.headdim_v;
    const std::int64_t group = s_.heads_q / s_.heads_kv;
    for (std::int64_t head = id.head_kv * group; head < (id.head_kv + 1) * group; ++head)
      for (std::int64_t i = 0; i < s_.seqlen_q; ++i) {
        if (visible_keys(s_, id.batch, i) <= id.key) continue;
        const QueryRow query = query_row(id.batch, head, i);
        const PairGradient g = pair(query, k, v);
        for (std::int64_t c = 0; c < s_.headdim; ++c) grads.dk[std::size_t(c)] += g.ds * query.q[c];
        for (std::int64_t c = 0; c < s_.headdim_v; ++c)
          grads.dv[std::size_t(c)] += g.p * query.dout[c];
      }
    for (double& x : grads.dk) x = round(scale_ * x);
    for (double& x : grads.dv) x = round(x);
    return grads;
  }

 private:
  const BwdInputs& in_;
  const AttnShape& s_;
  Precision precision_;
  double scale_;
};

// Calls visit(r) for r in [0, count), spread over the machine's cores.
template <class Visit>
void for_each_index_in_parallel(std::int64_t count, const Visit& visit) {
  const std::int64_t workers =
      std::clamp<std::int64_t>(std::int64_t(std::thread::hardware_concurrency()), 1, count);
  std::vector<std::jthread> threads;
  for (std::int64_t w = 0; w < workers; ++w)
    threads.emplace_back([&visit, w, workers, count] {
      for (std::int64_t r = w; r < count; r += workers) visit(r);
    });
}

double unit_roundoff(Dtype dtype) {
  require_16_bit(dtype);
  return dtype == Dtype::bf16 ? 0x1p-8 : 0x1p-11;
}

}  // namespace

BwdInputs random_bwd_inputs(const AttnShape& shape, std::uint64_t seed, float stddev) {
  BwdInputs in;
  in.attn = random_inputs(shape, seed, stddev);
  const std::int64_t rows = shape.batch * shape.heads_q * shape.seqlen_q;
  std::mt19937_64 rng(seed + kDoutSeedOffset);
  std::normal_distribution<float> normal(0.0f, stddev);
  in.dout.resize(std::size_t(rows * shape.headdim_v));
  for (float& x : in.dout) x = round_to(normal(rng), shape.dtype);

  in.o.resize(in.dout.size());
  in.lse.resize(std::size_t(rows));
  for_each_index_in_parallel(rows, [&](std::int64_t r) {
    const RowId id{.batch = r / (shape.heads_q * shape.seqlen_q),
                   .head = r / shape.seqlen_q % shape.heads_q,
                   .row = r % shape.seqlen_q};
    const RowResult forward = oracle_row(in.attn, id);
    for (std::int64_t c = 0; c < shape.headdim_v; ++c)
      in.o[std::size_t(r * shape.headdim_v + c)] =
          round_to(float(forward.o[std::size_t(c)]), shape.dtype);
    in.lse[std::size_t(r)] = float(forward.lse);
  });
  return in;
}

std::vector<double> oracle_dq_row(const BwdInputs& in, RowId id) {
  return Backward(in, Precision::exact).dq_row(id);
}

KeyGrads oracle_dkv_row(const BwdInputs& in, KeyRowId id) {
  return Backward(in, Precision::exact).dkv_row(id);
}

std::vector<double> low_precision_dq_row(const BwdInputs& in, RowId id) {
  return Backward(in, Precision::input_dtype).dq_row(id);
}

KeyGrads low_precision_dkv_row(const BwdInputs& in, KeyRowId id) {
  return Backward(in, Precision::input_dtype).dkv_row(id);
}

double gradient_tolerance(double plain_error, double largest_oracle_entry, Dtype dtype) {
  return kGradErrorFactor * plain_error + unit_roundoff(dtype) * largest_oracle_entry;
}

void GradCheck::add(std::span<const float> kernel, const std::vector<double>& plain,
                    const std::vector<double>& oracle) {
  kernel_error = std::max(kernel_error,
                          max_abs_diff(std::vector<double>(kernel.begin(), kernel.end()), oracle));
  plain_error = std::max(plain_error, max_abs_diff(plain, oracle));
  for (double x : oracle) largest_oracle = std::max(largest_oracle, std::abs(x));
  ++rows;
}

double GradCheck::tolerance(Dtype dtype) const {
  return gradient_tolerance(plain_error, largest_oracle, dtype);
}

bool GradCheck::passed(Dtype dtype) const {
  const double limit = tolerance(dtype);
  return std::isfinite(limit) && kernel_error <= limit;
}

std::string GradCheck::summary(std::string_view name, Dtype dtype) const {
  std::ostringstream text;
  text << name << (passed(dtype) ? " ok" : " FAILED") << ": " << rows << " rows, error "
       << kernel_error << " (tolerance " << tolerance(dtype) << ", plain " << plain_error << ")";
  return text.str();
}

}  // namespace fa4::reference
