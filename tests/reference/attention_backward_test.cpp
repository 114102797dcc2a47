// The backward references: the float64 oracle against central finite differences of the forward
// oracle, fully masked rows, the low-precision reference's distance from the oracle, the gradient
// check's pass/fail rule, and determinism.
#include "reference/attention_backward.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <ostream>
#include <string>

#include "reference/half_float.hpp"
#include "reference_cases.hpp"

namespace fa4::reference {
namespace {

using testing::for_each_row;
using testing::fresh_seed;
using testing::make_shape;

AttnShape with_batch(AttnShape shape, std::int64_t batch) {
  shape.batch = batch;
  return shape;
}

void for_each_key_row(const AttnShape& s, const std::function<void(KeyRowId)>& visit) {
  for (std::int64_t b = 0; b < s.batch; ++b)
    for (std::int64_t h = 0; h < s.heads_kv; ++h)
      for (std::int64_t j = 0; j < s.seqlen_k; ++j) visit(KeyRowId{b, h, j});
}

std::int64_t query_row_index(const AttnShape& s, RowId id) {
  return (id.batch * s.heads_q + id.head) * s.seqlen_q + id.row;
}

bool all_finite(const std::vector<double>& values) {
  return std::all_of(values.begin(), values.end(), [](double x) { return std::isfinite(x); });
}

// ---- Finite differences of the forward oracle ------------------------------------------------

// Backward inputs whose O is the forward oracle's kept in float32 (not rounded to the dtype), so
// the oracle's gradients are those of loss = sum(dO o O) up to float32 rounding of O and LSE.
BwdInputs inputs_with_float32_forward(const AttnShape& shape, std::uint64_t seed) {
  BwdInputs in = random_bwd_inputs(shape, seed);
  for_each_row(shape, [&](RowId id) {
    const std::vector<double> o = oracle_row(in.attn, id).o;
    const std::int64_t first = query_row_index(shape, id) * shape.headdim_v;
    for (std::size_t c = 0; c < o.size(); ++c) in.o[std::size_t(first) + c] = float(o[c]);
  });
  return in;
}

// The part of sum(dO o O) that the query rows of heads [first_head, end_head) and rows
// [first_row, end_row) of one batch contribute, O from the forward oracle.
double partial_loss(const AttnInputs& attn, const std::vector<float>& dout, std::int64_t batch,
                    std::int64_t first_head, std::int64_t end_head, std::int64_t first_row,
                    std::int64_t end_row) {
  const AttnShape& s = attn.shape;
  double loss = 0.0;
  for (std::int64_t h = first_head; h < end_head; ++h)
    for (std::int64_t i = first_row; i < end_row; ++i) {
      const RowId id{batch, h, i};
      const std::vector<double> o = oracle_row(attn, id).o;
      const std::int64_t first = query_row_index(s, id) * s.headdim_v;
      for (std::size_t c = 0; c < o.size(); ++c)
        loss += double(dout[std::size_t(first) + c]) * o[c];
    }
  return loss;
}

// Step 2^-10: inputs are bf16 values below 2^8 in magnitude, so x +- h is exact in float32.
// Central differences are then off by h^2/6 times a third derivative (~1e-7 here) plus float64
// cancellation (~1e-13); the oracle is off by the float32 rounding of O and LSE (~1e-7 relative).
constexpr float kStep = 0x1p-10f;
constexpr double kFiniteDifferenceTolerance = 1e-5;

// d(loss)/d(values[index]) by central differences, `loss` re-evaluated on the perturbed inputs.
double central_difference(std::vector<float>& values, std::size_t index,
                          const std::function<double()>& loss) {
  const float original = values[index];
  values[index] = original + kStep;
  const double up = loss();
  values[index] = original - kStep;
  const double down = loss();
  values[index] = original;
  return (up - down) / (2.0 * double(kStep));
}

struct FdCase {
  std::string name;
  AttnShape shape;
};

void PrintTo(const FdCase& c, std::ostream* os) {
  *os << c.name << " (" << describe(c.shape) << ")";
}

class OracleMatchesFiniteDifferences : public ::testing::TestWithParam<FdCase> {};

TEST_P(OracleMatchesFiniteDifferences, ForDqDkDv) {
  const AttnShape& s = GetParam().shape;
  const std::int64_t group = s.heads_q / s.heads_kv;
  for (int trial = 0; trial < 3; ++trial) {
    const std::uint64_t seed = fresh_seed();
    SCOPED_TRACE("seed " + std::to_string(seed) + ", " + describe(s));
    BwdInputs in = inputs_with_float32_forward(s, seed);
    double worst_dq = 0.0, worst_dk = 0.0, worst_dv = 0.0;

    for_each_row(s, [&](RowId id) {
      const std::vector<double> dq = oracle_dq_row(in, id);
      ASSERT_EQ(dq.size(), std::size_t(s.headdim));
      for (std::int64_t c = 0; c < s.headdim; ++c) {
        const double fd =
            central_difference(in.attn.q, std::size_t(query_row_index(s, id) * s.headdim + c), [&] {
              return partial_loss(in.attn, in.dout, id.batch, id.head, id.head + 1, id.row,
                                  id.row + 1);
            });
        worst_dq = std::max(worst_dq, std::abs(fd - dq[std::size_t(c)]));
      }
    });

    for_each_key_row(s, [&](KeyRowId id) {
      const KeyGrads grads = oracle_dkv_row(in, id);
      ASSERT_EQ(grads.dk.size(), std::size_t(s.headdim));
      ASSERT_EQ(grads.dv.size(), std::size_t(s.headdim_v));
      // The rows that read this kv head: every query head of its group.
      auto group_loss = [&] {
        return partial_loss(in.attn, in.dout, id.batch, id.head_kv * group,
                            (id.head_kv + 1) * group, 0, s.seqlen_q);
      };
      const std::int64_t key = (id.batch * s.heads_kv + id.head_kv) * s.seqlen_k + id.key;
      for (std::int64_t c = 0; c < s.headdim; ++c) {
        const double fd =
            central_difference(in.attn.k, std::size_t(key * s.headdim + c), group_loss);
        worst_dk = std::max(worst_dk, std::abs(fd - grads.dk[std::size_t(c)]));
      }
      for (std::int64_t c = 0; c < s.headdim_v; ++c) {
        const double fd =
            central_difference(in.attn.v, std::size_t(key * s.headdim_v + c), group_loss);
        worst_dv = std::max(worst_dv, std::abs(fd - grads.dv[std::size_t(c)]));
      }
    });
    EXPECT_LE(worst_dq, kFiniteDifferenceTolerance);
    EXPECT_LE(worst_dk, kFiniteDifferenceTolerance);
    EXPECT_LE(worst_dv, kFiniteDifferenceTolerance);
  }
}

INSTANTIATE_TEST_SUITE_P(
    SmallShapes, OracleMatchesFiniteDifferences,
    ::testing::Values(
        FdCase{"noncausal_q_shorter_dv_differs",
               with_batch(make_shape(2, 2, 7, 13, 16, 8, false, Dtype::bf16), 2)},
        FdCase{"noncausal_q_longer", make_shape(2, 2, 20, 6, 8, 8, false, Dtype::bf16)},
        FdCase{"causal_square", make_shape(2, 2, 12, 12, 8, 12, true, Dtype::bf16)},
        FdCase{"causal_q_shorter", make_shape(2, 2, 9, 17, 12, 12, true, Dtype::bf16)},
        FdCase{"causal_q_longer_masked_rows", make_shape(2, 2, 17, 9, 8, 8, true, Dtype::bf16)},
        FdCase{"gqa_causal", make_shape(4, 2, 10, 14, 8, 8, true, Dtype::bf16)},
        FdCase{"mqa_noncausal", with_batch(make_shape(3, 1, 8, 5, 16, 16, false, Dtype::bf16), 2)},
        FdCase{"mqa_causal_q_longer", make_shape(3, 1, 15, 10, 8, 8, true, Dtype::bf16)}),
    [](const auto& info) { return info.param.name; });

// ---- Fully masked rows -----------------------------------------------------------------------

// Causal with seqlen_q > seqlen_k: the first seqlen_q - seqlen_k rows see no key. They get dQ = 0
// from both references, nothing is NaN, and their Q, O, dO do not reach dK or dV: poisoning them
// with NaN leaves every dK and dV row bit for bit as it was.
TEST(BackwardMaskedRows, GetZeroDqAndDoNotReachDkDv) {
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const AttnShape s = make_shape(4, 2, 20, 8, 16, 16, true, Dtype::bf16);
  const std::int64_t masked_rows = s.seqlen_q - s.seqlen_k;
  const BwdInputs in = random_bwd_inputs(s, seed);

  for_each_row(s, [&](RowId id) {
    for (const std::vector<double>& dq : {oracle_dq_row(in, id), low_precision_dq_row(in, id)}) {
      if (id.row < masked_rows) {
        EXPECT_EQ(in.lse[std::size_t(query_row_index(s, id))], -INFINITY);
        for (double x : dq) ASSERT_EQ(x, 0.0) << "head " << id.head << " row " << id.row;
      } else {
        ASSERT_TRUE(all_finite(dq)) << "head " << id.head << " row " << id.row;
      }
    }
  });

  BwdInputs poisoned = in;
  constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
  for_each_row(s, [&](RowId id) {
    if (id.row >= masked_rows) return;
    const std::int64_t row = query_row_index(s, id);
    std::fill_n(poisoned.attn.q.begin() + row * s.headdim, s.headdim, kNaN);
    std::fill_n(poisoned.o.begin() + row * s.headdim_v, s.headdim_v, kNaN);
    std::fill_n(poisoned.dout.begin() + row * s.headdim_v, s.headdim_v, kNaN);
  });
  for_each_key_row(s, [&](KeyRowId id) {
    const KeyGrads oracle = oracle_dkv_row(in, id);
    const KeyGrads plain = low_precision_dkv_row(in, id);
    ASSERT_TRUE(all_finite(oracle.dk) && all_finite(oracle.dv)) << "key " << id.key;
    ASSERT_TRUE(all_finite(plain.dk) && all_finite(plain.dv)) << "key " << id.key;
    const KeyGrads oracle_poisoned = oracle_dkv_row(poisoned, id);
    const KeyGrads plain_poisoned = low_precision_dkv_row(poisoned, id);
    EXPECT_EQ(oracle_poisoned.dk, oracle.dk) << "key " << id.key;
    EXPECT_EQ(oracle_poisoned.dv, oracle.dv) << "key " << id.key;
    EXPECT_EQ(plain_poisoned.dk, plain.dk) << "key " << id.key;
    EXPECT_EQ(plain_poisoned.dv, plain.dv) << "key " << id.key;
  });
}

// ---- The low-precision reference --------------------------------------------------------------

struct Distances {
  double dq = 0.0, dk = 0.0, dv = 0.0;
  double largest_dq = 0.0, largest_dk = 0.0, largest_dv = 0.0;
};

double largest_magnitude(const std::vector<double>& values) {
  double largest = 0.0;
  for (double x : values) largest = std::max(largest, std::abs(x));
  return largest;
}

Distances low_precision_distances(const BwdInputs& in) {
  Distances d;
  for_each_row(in.attn.shape, [&](RowId id) {
    const std::vector<double> oracle = oracle_dq_row(in, id);
    d.dq = std::max(d.dq, max_abs_diff(low_precision_dq_row(in, id), oracle));
    d.largest_dq = std::max(d.largest_dq, largest_magnitude(oracle));
  });
  for_each_key_row(in.attn.shape, [&](KeyRowId id) {
    const KeyGrads oracle = oracle_dkv_row(in, id);
    const KeyGrads plain = low_precision_dkv_row(in, id);
    d.dk = std::max(d.dk, max_abs_diff(plain.dk, oracle.dk));
    d.dv = std::max(d.dv, max_abs_diff(plain.dv, oracle.dv));
    d.largest_dk = std::max(d.largest_dk, largest_magnitude(oracle.dk));
    d.largest_dv = std::max(d.largest_dv, largest_magnitude(oracle.dv));
  });
  return d;
}

class LowPrecisionDistance : public ::testing::TestWithParam<Dtype> {};

// Its error must be non-zero (else the tolerance it sets would demand exactness) and a few
// roundings to the dtype of the largest entry at most. Each entry goes through about five
// roundings (S, P, dP, dS, the result), S's relative rounding u amplified by the scaled score's
// magnitude (a few units at unit-variance inputs) in P; kRoundings bounds the sum with margin.
TEST_P(LowPrecisionDistance, IsNonZeroAndAFewRoundingsAtMost) {
  const Dtype dtype = GetParam();
  const double unit_roundoff = dtype == Dtype::bf16 ? 0x1p-8 : 0x1p-11;
  constexpr double kRoundings = 16.0;
  for (bool causal : {false, true}) {
    const std::uint64_t seed = fresh_seed();
    const AttnShape s = make_shape(4, 2, 48, 64, 32, 32, causal, dtype);
    SCOPED_TRACE("seed " + std::to_string(seed) + ", " + describe(s));
    const Distances d = low_precision_distances(random_bwd_inputs(s, seed));
    EXPECT_GT(d.dq, 0.0);
    EXPECT_GT(d.dk, 0.0);
    EXPECT_GT(d.dv, 0.0);
    EXPECT_LE(d.dq, kRoundings * unit_roundoff * d.largest_dq);
    EXPECT_LE(d.dk, kRoundings * unit_roundoff * d.largest_dk);
    EXPECT_LE(d.dv, kRoundings * unit_roundoff * d.largest_dv);
  }
}

INSTANTIATE_TEST_SUITE_P(Dtypes, LowPrecisionDistance, ::testing::Values(Dtype::bf16, Dtype::fp16),
                         [](const auto& info) { return std::string(to_string(info.param)); });

// ---- The gradient check ------------------------------------------------------------------------

std::vector<float> to_float(const std::vector<double>& values, Dtype dtype) {
  std::vector<float> out;
  for (double x : values) out.push_back(round_to(float(x), dtype));
  return out;
}

// A kernel that returns the oracle rounded to the dtype, or the plain computation itself, passes;
// one off by more than the tolerance, with a NaN, or checked against a plain row with a NaN, fails.
TEST(GradCheck, PassesRoundedOracleAndPlainFailsLargeErrorsAndNaN) {
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const AttnShape s = make_shape(2, 1, 24, 30, 16, 16, true, Dtype::bf16);
  const BwdInputs in = random_bwd_inputs(s, seed);
  GradCheck rounded_oracle, plain_as_kernel, off_by_much, with_nan;
  double largest = 0.0, worst_plain = 0.0;
  for_each_row(s, [&](RowId id) {
    const std::vector<double> oracle = oracle_dq_row(in, id);
    const std::vector<double> plain = low_precision_dq_row(in, id);
    largest = std::max(largest, largest_magnitude(oracle));
    worst_plain = std::max(worst_plain, max_abs_diff(plain, oracle));
    rounded_oracle.add(to_float(oracle, s.dtype), plain, oracle);
    plain_as_kernel.add(to_float(plain, s.dtype), plain, oracle);
  });
  EXPECT_EQ(rounded_oracle.rows, std::size_t(s.heads_q * s.seqlen_q));
  EXPECT_EQ(rounded_oracle.plain_error, worst_plain);
  EXPECT_EQ(rounded_oracle.largest_oracle, largest);
  EXPECT_EQ(rounded_oracle.tolerance(s.dtype), gradient_tolerance(worst_plain, largest, s.dtype));
  EXPECT_TRUE(rounded_oracle.passed(s.dtype)) << rounded_oracle.summary("dQ", s.dtype);
  EXPECT_TRUE(plain_as_kernel.passed(s.dtype)) << plain_as_kernel.summary("dQ", s.dtype);

  const RowId last{0, 1, s.seqlen_q - 1};
  const std::vector<double> oracle = oracle_dq_row(in, last);
  const std::vector<double> plain = low_precision_dq_row(in, last);
  std::vector<float> kernel = to_float(oracle, s.dtype);
  kernel[3] += float(2.0 * rounded_oracle.tolerance(s.dtype));
  off_by_much = rounded_oracle;
  off_by_much.add(kernel, plain, oracle);
  EXPECT_FALSE(off_by_much.passed(s.dtype));
  EXPECT_NE(off_by_much.summary("dQ", s.dtype).find("dQ FAILED"), std::string::npos);
  kernel = to_float(oracle, s.dtype);
  kernel[0] = std::numeric_limits<float>::quiet_NaN();
  with_nan.add(kernel, plain, oracle);
  EXPECT_FALSE(with_nan.passed(s.dtype));

  // A plain row with a NaN (an overflow in the dtype) leaves nothing to calibrate against.
  GradCheck uncalibrated;
  std::vector<double> broken_plain = plain;
  broken_plain[0] = std::numeric_limits<double>::quiet_NaN();
  uncalibrated.add(to_float(oracle, s.dtype), broken_plain, oracle);
  EXPECT_FALSE(uncalibrated.passed(s.dtype)) << uncalibrated.summary("dQ", s.dtype);
}

TEST(GradCheck, ToleranceIsTwicePlainPlusOneRoundingOfTheLargestEntry) {
  EXPECT_EQ(gradient_tolerance(0.01, 2.0, Dtype::bf16), 0.02 + 2.0 * 0x1p-8);
  EXPECT_EQ(gradient_tolerance(0.01, 2.0, Dtype::fp16), 0.02 + 2.0 * 0x1p-11);
  EXPECT_EQ(gradient_tolerance(0.0, 0.0, Dtype::bf16), 0.0);
}

// ---- Inputs and determinism --------------------------------------------------------------------

// Q, K, V are random_inputs' for the same seed, dO is a different draw rounded to the dtype, O and
// LSE are the forward oracle's (O rounded to the dtype); equal seeds give equal inputs and equal
// gradients, bit for bit.
TEST(BackwardInputs, ComeFromTheForwardOracleAndAreDeterministic) {
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const AttnShape s = with_batch(make_shape(4, 2, 11, 19, 16, 8, true, Dtype::fp16), 2);
  const BwdInputs in = random_bwd_inputs(s, seed);
  const AttnInputs attn = random_inputs(s, seed);
  EXPECT_EQ(in.attn.q, attn.q);
  EXPECT_EQ(in.attn.k, attn.k);
  EXPECT_EQ(in.attn.v, attn.v);
  ASSERT_EQ(in.dout.size(), std::size_t(s.batch * s.heads_q * s.seqlen_q * s.headdim_v));
  ASSERT_EQ(in.o.size(), in.dout.size());
  ASSERT_EQ(in.lse.size(), std::size_t(s.batch * s.heads_q * s.seqlen_q));
  for (float x : in.dout) ASSERT_EQ(x, round_to(x, s.dtype));
  EXPECT_NE(std::vector<float>(in.dout.begin(), in.dout.begin() + 8),
            std::vector<float>(attn.q.begin(), attn.q.begin() + 8));
  for_each_row(s, [&](RowId id) {
    const RowResult forward = oracle_row(in.attn, id);
    const std::int64_t row = query_row_index(s, id);
    EXPECT_EQ(in.lse[std::size_t(row)], float(forward.lse));
    for (std::int64_t c = 0; c < s.headdim_v; ++c)
      ASSERT_EQ(in.o[std::size_t(row * s.headdim_v + c)],
                round_to(float(forward.o[std::size_t(c)]), s.dtype));
  });

  const BwdInputs again = random_bwd_inputs(s, seed);
  EXPECT_EQ(again.dout, in.dout);
  EXPECT_EQ(again.o, in.o);
  EXPECT_EQ(again.lse, in.lse);
  EXPECT_NE(random_bwd_inputs(s, seed + 1).dout, in.dout);
  for_each_row(s, [&](RowId id) {
    EXPECT_EQ(oracle_dq_row(again, id), oracle_dq_row(in, id));
    EXPECT_EQ(low_precision_dq_row(again, id), low_precision_dq_row(in, id));
  });
  for_each_key_row(s, [&](KeyRowId id) {
    EXPECT_EQ(oracle_dkv_row(again, id).dk, oracle_dkv_row(in, id).dk);
    EXPECT_EQ(low_precision_dkv_row(again, id).dv, low_precision_dkv_row(in, id).dv);
  });
}

}  // namespace
}  // namespace fa4::reference
