#include "reference/attention.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <string>

#include "reference_cases.hpp"

namespace fa4::reference {
namespace {

using testing::for_each_row;
using testing::fresh_seed;
using testing::make_shape;

using RowAlgorithm = std::function<RowResult(const AttnInputs&, RowId)>;

// Tolerances follow FlashAttention-3's tests: a candidate may be off the float64 oracle by twice
// what a plain computation in the input dtype (low_precision_row: S, P and O rounded to bf16 or
// fp16) is off on the same rows, plus a floor. The floor covers rows where the plain computation
// happens to be exact (one visible key: P = 1 and O = V) while float32 paths still round; 1e-5 is
// far above float32 rounding of O values of order 1.
constexpr double kErrorFactor = 2.0;
constexpr double kOutputFloor = 1e-5;
constexpr double kLseFloor = 1e-5;

void expect_close_to_oracle(const AttnInputs& in, const RowAlgorithm& candidate,
                            double output_floor = kOutputFloor) {
  ErrorSummary candidate_error, plain_error;
  for_each_row(in.shape, [&](RowId id) {
    const RowResult oracle = oracle_row(in, id);
    candidate_error.add(candidate(in, id), oracle);
    plain_error.add(low_precision_row(in, id), oracle);
  });
  EXPECT_LE(candidate_error.o, kErrorFactor * plain_error.o + output_floor)
      << describe(in.shape) << ": plain low-precision error " << plain_error.o;
  EXPECT_LE(candidate_error.lse, kErrorFactor * plain_error.lse + kLseFloor)
      << describe(in.shape) << ": plain low-precision error " << plain_error.lse;
}

const RowAlgorithm kFa2 = [](const AttnInputs& in, RowId id) { return fa2_row(in, id); };
const RowAlgorithm kFa4 = [](const AttnInputs& in, RowId id) { return fa4_row(in, id); };
const RowAlgorithm kFa4AllSoftware = [](const AttnInputs& in, RowId id) {
  return fa4_row(in, id, Fa4Options{.emulated_share = 1.0});
};

struct Case {
  std::string name;
  AttnShape shape;
};

class ReferenceAgreement : public ::testing::TestWithParam<Case> {};

TEST_P(ReferenceAgreement, Fa2AndFa4MatchOracleWithinBf16DerivedTolerance) {
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const AttnInputs in = random_inputs(GetParam().shape, seed);
  {
    SCOPED_TRACE("fa2");
    expect_close_to_oracle(in, kFa2);
  }
  {
    SCOPED_TRACE("fa4, 12.5% software exp2");
    expect_close_to_oracle(in, kFa4);
  }
  {
    SCOPED_TRACE("fa4, all software exp2");
    expect_close_to_oracle(in, kFa4AllSoftware);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, ReferenceAgreement,
    ::testing::Values(
        Case{"d64_bf16", make_shape(2, 2, 300, 300, 64, 64, false, Dtype::bf16)},
        Case{"d128_causal_fp16", make_shape(2, 2, 260, 260, 128, 128, true, Dtype::fp16)},
        Case{"gqa_causal_q_shorter", make_shape(4, 2, 100, 333, 128, 128, true, Dtype::bf16)},
        Case{"mqa_causal_q_longer", make_shape(4, 1, 333, 100, 64, 64, true, Dtype::bf16)},
        Case{"dv_differs", make_shape(2, 1, 150, 250, 128, 64, false, Dtype::bf16)}),
    [](const auto& info) { return info.param.name; });

bool all_finite(const RowResult& r) {
  if (!std::isfinite(r.lse)) return false;
  for (double x : r.o)
    if (!std::isfinite(x)) return false;
  return true;
}

// The float32 paths compute p = 2^(x - m) with x and m scaled logits (log2 units) rounded to
// float32, so x - m carries up to 2^-24 |x| of rounding and p a relative error of up to
// ln2 * 2^-24 |x|; O inherits it times |V|. The row maximum's own p (1 up to that rounding) is
// rounded to exactly 1 for P V while the row sum keeps it, so the error shows even on rows where
// one key takes all the weight, which is where the plain low-precision computation is exact (O = V,
// already a bf16 value) and gives the tolerance nothing. At unit-scale inputs (|x| ~ 20) this is
// far below kOutputFloor; at |x| ~ 10^4 it is ~4e-4 |V|. The floor is twice the bound with ln2
// taken as 1, and never below kOutputFloor.
double exponent_rounding_floor(const AttnInputs& in) {
  double largest_logit_log2 = 0.0, largest_v = 0.0;
  for_each_row(in.shape, [&](RowId id) {
    const double lse = oracle_row(in, id).lse;
    if (std::isfinite(lse))
      largest_logit_log2 = std::max(largest_logit_log2, std::abs(lse) * kLog2e);
  });
  for (float v : in.v) largest_v = std::max(largest_v, double(std::abs(v)));
  return std::max(kOutputFloor, std::ldexp(2.0, -24) * largest_logit_log2 * largest_v);
}

TEST(ReferenceEdgeCases, ExtremeLogitsStayFinite) {
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  constexpr float kExtremeScale = 50.0f;  // scores of order 50^2 = 2500 after the softmax scale
  const AttnInputs in =
      random_inputs(make_shape(2, 1, 130, 300, 64, 64, true, Dtype::bf16), seed, kExtremeScale);
  for_each_row(in.shape, [&](RowId id) {
    ASSERT_TRUE(all_finite(oracle_row(in, id)));
    ASSERT_TRUE(all_finite(low_precision_row(in, id)));
    ASSERT_TRUE(all_finite(fa2_row(in, id)));
    ASSERT_TRUE(all_finite(fa4_row(in, id)));
    ASSERT_TRUE(all_finite(fa4_row(in, id, Fa4Options{.emulated_share = 1.0})));
  });
  const double floor = exponent_rounding_floor(in);
  expect_close_to_oracle(in, kFa2, floor);
  expect_close_to_oracle(in, kFa4, floor);
}

TEST(ReferenceEdgeCases, FullyMaskedRowsGiveZeroOutputAndMinusInfinityLse) {
  const AttnInputs in =
      random_inputs(make_shape(2, 2, 50, 20, 64, 64, true, Dtype::bf16), fresh_seed());
  const std::int64_t masked_rows = in.shape.seqlen_q - in.shape.seqlen_k;
  for (std::int64_t i = 0; i < in.shape.seqlen_q; ++i) {
    const RowId id{0, 1, i};
    for (const RowResult& r :
         {oracle_row(in, id), low_precision_row(in, id), fa2_row(in, id), fa4_row(in, id)}) {
      if (i < masked_rows) {
        EXPECT_EQ(r.lse, -INFINITY) << "row " << i;
        for (double x : r.o) ASSERT_EQ(x, 0.0) << "row " << i;
      } else {
        EXPECT_TRUE(all_finite(r)) << "row " << i;
      }
    }
  }
}

// One head, one query, one key (and a large batch of such problems): the softmax of a single score
// is 1, so every path returns V's row as it is and LSE = the scaled score, finite.
TEST(ReferenceEdgeCases, OneHeadOneQueryOneKeyReturnsVExactly) {
  constexpr std::int64_t kBatch = 64;
  AttnShape shape = make_shape(1, 1, 1, 1, 64, 64, false, Dtype::bf16);
  shape.batch = kBatch;
  const AttnInputs in = random_inputs(shape, fresh_seed());
  const double scale = 1.0 / std::sqrt(64.0);
  for (std::int64_t b = 0; b < kBatch; ++b) {
    const RowId id{b, 0, 0};
    double score = 0;
    for (int j = 0; j < 64; ++j) score += double(in.q[b * 64 + j]) * double(in.k[b * 64 + j]);
    for (const RowResult& r : {oracle_row(in, id), fa2_row(in, id), fa4_row(in, id)}) {
      ASSERT_EQ(r.o.size(), 64u);
      for (int j = 0; j < 64; ++j) EXPECT_NEAR(r.o[j], in.v[b * 64 + j], 1e-6) << "batch " << b;
      EXPECT_NEAR(r.lse, score * scale, 1e-4) << "batch " << b;
    }
  }
}

// Conditional rescaling keeps O and l on one reference maximum, so it changes O by float rounding
// only: compare FA4 with and without it, P kept in float32 so no bf16 rounding hides the check.
// Keys in the first half are scaled x8 (exact in bf16): visited last, their blocks raise the
// maximum by more than the threshold, so some rescales must still happen.
TEST(ReferenceEdgeCases, ConditionalRescalingChangesOutputByRoundingOnly) {
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  AttnInputs in = random_inputs(make_shape(2, 2, 64, 1024, 64, 64, false, Dtype::bf16), seed);
  const std::int64_t keys = in.shape.seqlen_k;
  for (std::int64_t head = 0; head < in.shape.heads_kv; ++head)
    for (std::int64_t j = 0; j < keys / 2; ++j)
      for (std::int64_t c = 0; c < in.shape.headdim; ++c)
        in.k[std::size_t((head * keys + j) * in.shape.headdim + c)] *= 8.0f;

  // Float rounding bound: each O entry is a float32 sum over `keys` terms p_j v_j / l whose
  // magnitudes add up to at most max|v|, so each computation is within gamma_n * max|v| of exact
  // (gamma_n = n u / (1 - n u), u = 2^-24); the exp2 and scaling steps add a few u per term
  // (kPerTermRoundings). The two computations differ by at most twice that.
  constexpr double kUnitRoundoff = 0x1p-24;
  constexpr double kPerTermRoundings = 8.0;
  double max_abs_v = 0.0;
  for (float v : in.v) max_abs_v = std::max(max_abs_v, double(std::abs(v)));
  const double n_u = (double(keys) + kPerTermRoundings) * kUnitRoundoff;
  const double o_tolerance = 2.0 * n_u / (1.0 - n_u) * max_abs_v;

  RescaleCounts conditional, always;
  double worst_o = 0.0, worst_lse = 0.0;
  for_each_row(in.shape, [&](RowId id) {
    const RowResult with = fa4_row(in, id, Fa4Options{.round_p = false}, &conditional);
    const RowResult without =
        fa4_row(in, id, Fa4Options{.conditional_rescale = false, .round_p = false}, &always);
    worst_o = std::max(worst_o, max_abs_diff(with.o, without.o));
    worst_lse = std::max(
        worst_lse, lse_abs_diff(with.lse, without.lse) / std::max(1.0, std::abs(without.lse)));
  });
  EXPECT_LE(worst_o, o_tolerance);
  EXPECT_LE(worst_lse, 2.0 * n_u);
  const std::int64_t rows = in.shape.heads_q * in.shape.seqlen_q;
  const std::int64_t later_blocks = rows * (keys / Fa4Options{}.block_n - 1);
  EXPECT_EQ(conditional.done + conditional.skipped, later_blocks);
  EXPECT_EQ(always.done, later_blocks);
  EXPECT_GT(conditional.done, 0);
  EXPECT_GT(conditional.skipped, conditional.done);
}

TEST(ReferenceEdgeCases, VisibleKeysAreBottomRightAligned) {
  AttnShape s = make_shape(1, 1, 3, 5, 64, 64, true, Dtype::bf16);
  EXPECT_EQ(visible_keys(s, 0, 0), 3);
  EXPECT_EQ(visible_keys(s, 0, 2), 5);
  s.seqlen_q = 5;
  s.seqlen_k = 3;
  EXPECT_EQ(visible_keys(s, 0, 0), 0);
  EXPECT_EQ(visible_keys(s, 0, 1), 0);
  EXPECT_EQ(visible_keys(s, 0, 2), 1);
  EXPECT_EQ(visible_keys(s, 0, 4), 3);
  s.causal = false;
  EXPECT_EQ(visible_keys(s, 0, 0), 3);
}

// The inputs are a function of the seed alone (the parallel fill draws each entry from its index),
// Normal(0, stddev) in every tensor, and the three tensors are distinct draws.
TEST(RandomInputs, AreReproducibleNormalAndDistinctPerTensor) {
  // 2^21 K entries: past the size from which the fill runs on several threads.
  const AttnShape s = make_shape(1, 2, 64, 8192, 128, 128, false, Dtype::bf16);
  const std::uint64_t seed = fresh_seed();
  const AttnInputs a = random_inputs(s, seed, 2.0f);
  const AttnInputs b = random_inputs(s, seed, 2.0f);
  EXPECT_EQ(a.k, b.k);
  EXPECT_EQ(a.q, b.q);
  EXPECT_NE(random_inputs(s, seed + 1, 2.0f).k, a.k);
  double sum = 0, squares = 0;
  for (float x : a.k) {
    sum += x;
    squares += double(x) * x;
  }
  const double n = double(a.k.size());
  EXPECT_NEAR(sum / n, 0.0, 0.01);
  EXPECT_NEAR(std::sqrt(squares / n), 2.0, 0.02);
  EXPECT_NE(std::vector<float>(a.k.begin(), a.k.begin() + 1000),
            std::vector<float>(a.v.begin(), a.v.begin() + 1000));
}

// A ragged batch: the slots past each sequence's keys are NaN, and the oracle reads only the
// sequence's own keys (an empty one gives O = 0, LSE = -inf).
TEST(Ragged, UnwrittenSlotsAreNaNAndTheOracleNeverReadsThem) {
  AttnShape s;
  s.batch = 2;
  s.heads_q = s.heads_kv = 1;
  s.seqlen_q = 1;
  s.seqlen_k = 8;
  s.headdim = s.headdim_v = 4;
  s.seqlens_k = {3, 0};
  const AttnInputs in = random_inputs(s, 11);
  EXPECT_FALSE(std::isnan(in.k[2 * 4]));
  EXPECT_TRUE(std::isnan(in.k[3 * 4]));
  EXPECT_TRUE(std::isnan(in.v[8 * 4]));
  EXPECT_EQ(visible_keys(s, 0, 0), 3);
  const RowResult first = oracle_row(in, {0, 0, 0});
  EXPECT_TRUE(std::isfinite(first.lse));
  for (double x : first.o) EXPECT_TRUE(std::isfinite(x));
  const RowResult empty = oracle_row(in, {1, 0, 0});
  EXPECT_EQ(empty.lse, -std::numeric_limits<double>::infinity());
  for (double x : empty.o) EXPECT_EQ(x, 0.0);
}

}  // namespace
}  // namespace fa4::reference
