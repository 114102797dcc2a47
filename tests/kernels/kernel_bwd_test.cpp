// Every registered backward kernel against the CPU float64 backward oracle on fresh random inputs
// (O and LSE from the CPU forward oracle), over a grid of shapes that includes the awkward ones:
// dQ on sampled query rows, dK and dV on sampled key rows, with FlashAttention-3's tolerances
// (twice the plain low-precision computation's error plus a rounding floor). Gradients are
// poisoned (NaN) first; NaN never passes. And every deterministic variant (a backward kernel named
// *_deterministic) gives bitwise-identical gradients over repeated runs. Without a CUDA device
// each test skips; a kernel that does not support a shape skips with its reason.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <ostream>
#include <random>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "bench/attention_bwd_check.hpp"
#include "kernel_cases.hpp"
#include "kernels/registry.hpp"
#include "reference/attention_backward.hpp"

namespace fa4::bench {
namespace {

constexpr std::size_t kMaxCheckedRows = 256;  // query rows (dQ), and key rows (dK, dV)
constexpr int kDeterminismRuns = 10;

std::vector<ShapeCase> shape_cases() {
  std::vector<ShapeCase> cases;
  for (Dtype dtype : {Dtype::bf16, Dtype::fp16}) {
    const std::string type(to_string(dtype));
    for (std::int64_t d : {64, 128, 256})
      for (bool causal : {false, true})
        cases.push_back({"d" + std::to_string(d) + (causal ? "_s1000_causal_" : "_s1000_") + type,
                         shape_of(2, 4, 4, 1000, 1000, d, causal, dtype)});
    cases.push_back({"gqa16to2_s100_" + type, shape_of(1, 16, 2, 100, 100, 128, false, dtype)});
    cases.push_back(
        {"gqa16to2_s300_causal_" + type, shape_of(2, 16, 2, 300, 300, 256, true, dtype)});
    cases.push_back(
        {"mqa16to1_s1000_causal_" + type, shape_of(1, 16, 1, 1000, 1000, 64, true, dtype)});
    cases.push_back({"s1_" + type, shape_of(2, 4, 4, 1, 1, 128, false, dtype)});
    cases.push_back({"s1_causal_" + type, shape_of(2, 4, 4, 1, 1, 256, true, dtype)});
    cases.push_back({"q1_k1000_causal_" + type, shape_of(2, 4, 2, 1, 1000, 128, true, dtype)});
    cases.push_back({"q100_k1000_causal_" + type, shape_of(1, 4, 4, 100, 1000, 64, true, dtype)});
    // Causal with seqlen_q > seqlen_k: the first 900 query rows see no key (dQ = 0).
    cases.push_back({"q1000_k100_causal_" + type, shape_of(1, 4, 4, 1000, 100, 128, true, dtype)});
    cases.push_back({"q1000_k100_" + type, shape_of(1, 4, 4, 1000, 100, 256, false, dtype)});
    cases.push_back({"q300_k2000_" + type, shape_of(1, 4, 1, 300, 2000, 128, false, dtype)});
    cases.push_back({"q2000_k300_causal_" + type, shape_of(1, 2, 2, 2000, 300, 64, true, dtype)});
    cases.push_back({"s4096_causal_" + type, shape_of(1, 2, 2, 4096, 4096, 128, true, dtype)});
    cases.push_back({"d128_dv64_" + type, shape_of(1, 4, 2, 200, 300, 128, false, dtype, 64)});
    cases.push_back({"one_head_s777_" + type, shape_of(1, 1, 1, 777, 777, 128, true, dtype)});
    // Causal GQA long enough that fa3_bwd and fa2_bwd split the groups (core/fa3_tiles.hpp,
    // core/fa2_bwd_tiles.hpp).
    cases.push_back(
        {"gqa8to2_q4100_k4200_causal_" + type, shape_of(1, 8, 2, 4100, 4200, 128, true, dtype)});
    cases.push_back(
        {"gqa4to1_s4100_causal_" + type, shape_of(1, 4, 1, 4100, 4100, 256, true, dtype)});
    // Batches where fa2_bwd_deterministic walks several key blocks per dQ slot on a Hopper's 132
    // SMs (core/fa2_bwd_tiles.hpp's deterministic_dq_slots): 4 slots for 14 key blocks, causal
    // (the snake's last round partial), and 8 slots for 16 key blocks.
    cases.push_back({"batch16_gqa4to2_q1500_k1700_causal_" + type,
                     shape_of(16, 4, 2, 1500, 1700, 64, true, dtype)});
    cases.push_back(
        {"batch8_gqa4to2_s1000_d256_" + type, shape_of(8, 4, 2, 1000, 1000, 256, false, dtype)});
    cases.push_back(
        {"gqa8to1_s8200_causal_" + type, shape_of(1, 8, 1, 8200, 8200, 128, true, dtype)});
    cases.push_back({"batch256_s40_" + type, shape_of(256, 2, 2, 40, 40, 64, true, dtype)});
  }
  return cases;
}

using KernelCase = std::tuple<const kernels::Kernel*, ShapeCase>;

class BwdKernelMatchesOracle : public ::testing::TestWithParam<KernelCase> {};

TEST_P(BwdKernelMatchesOracle, OnRandomInputs) {
  const Result<kernels::DeviceCaps> device = kernels::query_device();
  if (!device) GTEST_SKIP() << "no CUDA device";
  const auto& [kernel, shape_case] = GetParam();
  const AttnShape& shape = shape_case.shape;
  if (auto reason = kernels::why_unsupported(*kernel, shape, *device)) GTEST_SKIP() << *reason;

  const std::uint64_t seed = std::random_device{}();
  SCOPED_TRACE("seed " + std::to_string(seed) + ", " + describe(shape));
  const reference::BwdInputs in =
      reference::random_bwd_inputs(shape, seed, shape_case.input_stddev);
  Result<DeviceBwdProblem> problem =
      DeviceBwdProblem::upload(in, kernel->workspace_bytes(shape, *device));
  ASSERT_TRUE(problem.ok()) << problem.error().message;
  ASSERT_TRUE(problem->poison_gradients().ok());
  const Status launched = kernel->launch(shape, problem->buffers(), nullptr);
  ASSERT_TRUE(launched.ok()) << launched.error().message;
  const Result<HostGradients> out = fetch_gradients(*problem, shape);
  ASSERT_TRUE(out.ok()) << out.error().message;

  const BwdCheckResult check =
      check_bwd_against_oracle(in, *out, sample_rows(shape, kMaxCheckedRows, seed),
                               sample_key_rows(shape, kMaxCheckedRows, seed));
  EXPECT_TRUE(check.passed()) << check.summary();
}

std::vector<KernelCase> kernel_cases() {
  std::vector<KernelCase> cases;
  for (const kernels::Kernel* kernel : kernels::kernels_for(Pass::bwd))
    for (const ShapeCase& shape_case : shape_cases()) cases.emplace_back(kernel, shape_case);
  return cases;
}

std::string case_name(const ::testing::TestParamInfo<KernelCase>& info) {
  return std::string(std::get<0>(info.param)->name) + "_" + std::get<1>(info.param).name;
}

INSTANTIATE_TEST_SUITE_P(Registry, BwdKernelMatchesOracle, ::testing::ValuesIn(kernel_cases()),
                         case_name);
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(BwdKernelMatchesOracle);

// Deterministic variants: kDeterminismRuns runs on the same inputs (gradients poisoned before
// each) give the same bits in dQ, dK and dV. The shape has GQA, causal masking, ragged lengths,
// many key blocks per query row and, on a Hopper's 132 SMs, several per dQ slot of
// fa2_bwd_deterministic, where an unordered dQ reduction would show.
class DeterministicKernel : public ::testing::TestWithParam<const kernels::Kernel*> {};

TEST_P(DeterministicKernel, GivesIdenticalBitsOverRuns) {
  const Result<kernels::DeviceCaps> device = kernels::query_device();
  if (!device) GTEST_SKIP() << "no CUDA device";
  const kernels::Kernel* kernel = GetParam();
  const AttnShape shape = shape_of(16, 8, 2, 1500, 1700, 128, true, Dtype::bf16);
  if (auto reason = kernels::why_unsupported(*kernel, shape, *device)) GTEST_SKIP() << *reason;

  const reference::BwdInputs in = reference::random_bwd_inputs(shape, 2024);
  Result<DeviceBwdProblem> problem =
      DeviceBwdProblem::upload(in, kernel->workspace_bytes(shape, *device));
  ASSERT_TRUE(problem.ok()) << problem.error().message;
  std::vector<HostGradients> runs;
  for (int run = 0; run < kDeterminismRuns; ++run) {
    ASSERT_TRUE(problem->poison_gradients().ok());
    const Status launched = kernel->launch(shape, problem->buffers(), nullptr);
    ASSERT_TRUE(launched.ok()) << launched.error().message;
    Result<HostGradients> out = fetch_gradients(*problem, shape);
    ASSERT_TRUE(out.ok()) << out.error().message;
    runs.push_back(std::move(*out));
  }
  // Bitwise: float compares of values converted from 16-bit patterns, NaN (unequal to itself)
  // included as a failure.
  auto same_bits = [](const std::vector<float>& a, const std::vector<float>& b) {
    return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](float x, float y) {
      return std::memcmp(&x, &y, sizeof(float)) == 0 && x == x;
    });
  };
  for (int run = 1; run < kDeterminismRuns; ++run) {
    EXPECT_TRUE(same_bits(runs[0].dq, runs[std::size_t(run)].dq)) << "dQ of run " << run;
    EXPECT_TRUE(same_bits(runs[0].dk, runs[std::size_t(run)].dk)) << "dK of run " << run;
    EXPECT_TRUE(same_bits(runs[0].dv, runs[std::size_t(run)].dv)) << "dV of run " << run;
  }
}

std::vector<const kernels::Kernel*> deterministic_kernels() {
  std::vector<const kernels::Kernel*> found;
  for (const kernels::Kernel* kernel : kernels::kernels_for(Pass::bwd))
    if (kernel->name.ends_with("_deterministic")) found.push_back(kernel);
  return found;
}

INSTANTIATE_TEST_SUITE_P(Registry, DeterministicKernel,
                         ::testing::ValuesIn(deterministic_kernels()),
                         [](const ::testing::TestParamInfo<const kernels::Kernel*>& info) {
                           return std::string(info.param->name);
                         });
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(DeterministicKernel);

}  // namespace
}  // namespace fa4::bench
