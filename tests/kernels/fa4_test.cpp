// fa4's conditional rescaling on the GPU: with normal(0, 1) inputs the scaled scores have a
// standard deviation of about 1.44 (log2 units), so after a tile's first key block a later
// block almost never raises a row's maximum by more than 8: nearly every rescale is skipped, and
// the output must still match the float64 oracle. The counters (fa4/fa4.hpp) are read from the
// workspace: one decision per warp and key block after the first, for every tile.
#include "kernels/fa4/fa4.hpp"

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <random>
#include <string>

#include "bench/attention_check.hpp"
#include "kernels/registry.hpp"
#include "reference/attention.hpp"

namespace fa4::bench {
namespace {

using kernels::fa4_softmax::RescaleCounts;

struct Counted {
  RescaleCounts counts;
  CheckResult check;
};

Counted run_counted(const char* name, const AttnShape& shape, std::uint64_t seed,
                    const kernels::DeviceCaps& device) {
  const kernels::Kernel* kernel = kernels::find_kernel(name);
  EXPECT_NE(kernel, nullptr) << name;
  const reference::AttnInputs in = reference::random_inputs(shape, seed);
  Result<DeviceProblem> problem = DeviceProblem::upload(in, kernel->workspace_bytes(shape, device));
  EXPECT_TRUE(problem.ok()) << problem.error().message;
  EXPECT_TRUE(problem->poison_outputs().ok());
  EXPECT_EQ(kernel->workspace_bytes(shape, device), sizeof(RescaleCounts));
  EXPECT_EQ(cudaMemset(problem->workspace.get(), 0, sizeof(RescaleCounts)), cudaSuccess);
  const Status launched = kernel->launch(shape, problem->buffers(), nullptr);
  EXPECT_TRUE(launched.ok()) << launched.error().message;
  const Result<HostOutputs> out = fetch_outputs(*problem, shape);
  EXPECT_TRUE(out.ok()) << out.error().message;
  Counted result;
  EXPECT_EQ(cudaMemcpy(&result.counts, problem->workspace.get(), sizeof(RescaleCounts),
                       cudaMemcpyDeviceToHost),
            cudaSuccess);
  result.check = check_against_oracle(in, *out, sample_rows(shape, 256, seed));
  return result;
}

AttnShape shape_2048(bool causal) {
  return AttnShape{.batch = 1,
                   .heads_q = 4,
                   .heads_kv = 4,
                   .seqlen_q = 2048,
                   .seqlen_k = 2048,
                   .headdim = 128,
                   .headdim_v = 128,
                   .causal = causal,
                   .dtype = Dtype::bf16};
}

TEST(Fa4ConditionalRescale, MostRescalesSkippedOnNormalInputsAndOutputMatchesOracle) {
  const Result<kernels::DeviceCaps> device = kernels::query_device();
  if (!device) GTEST_SKIP() << "no CUDA device";
  for (bool causal : {false, true}) {
    const AttnShape shape = shape_2048(causal);
    if (auto reason = kernels::why_unsupported(*kernels::find_kernel("fa4"), shape, *device))
      GTEST_SKIP() << *reason;
    const std::uint64_t seed = std::random_device{}();
    SCOPED_TRACE("seed " + std::to_string(seed) + ", " + describe(shape));
    // 128-row tiles of 128-key blocks, 8 consumer warps per tile, one decision per warp and
    // block after the first: 4 heads x 16 tiles x 8 warps x (n - 1), n = 16 (non-causal) or
    // m + 1 for query block m (causal).
    const std::uint64_t expected = causal ? 4ull * 8 * (15 * 16 / 2) : 4ull * 16 * 8 * 15;
    for (const char* name : {"fa4_e0_r1", "fa4_e25_r1"}) {
      SCOPED_TRACE(name);
      const Counted on = run_counted(name, shape, seed, *device);
      EXPECT_TRUE(on.check.passed()) << on.check.summary();
      EXPECT_EQ(on.counts.blocks, expected);
      EXPECT_GE(double(on.counts.skipped), 0.9 * double(on.counts.blocks))
          << on.counts.skipped << " of " << on.counts.blocks << " rescales skipped";
    }
    const Counted off = run_counted("fa4_e0_r0", shape, seed, *device);
    EXPECT_TRUE(off.check.passed()) << off.check.summary();
    EXPECT_EQ(off.counts.blocks, expected);
    EXPECT_EQ(off.counts.skipped, 0u) << "rescaling is unconditional in fa4_e0_r0";
  }
}

// fa4 picks its softmax by sequence length (fa4.cu: launch_fa4_best): conditional rescaling from
// seqlen_k 4096, where every warp's decisions are counted; fa3's softmax below, which counts
// nothing. Both match the oracle.
TEST(Fa4ConditionalRescale, Fa4RescalesConditionallyFromSeqlen4096Only) {
  const Result<kernels::DeviceCaps> device = kernels::query_device();
  if (!device) GTEST_SKIP() << "no CUDA device";
  for (bool causal : {false, true}) {
    AttnShape long_shape = shape_2048(causal);
    long_shape.heads_q = long_shape.heads_kv = 2;
    long_shape.seqlen_q = long_shape.seqlen_k = 4096;
    if (auto reason = kernels::why_unsupported(*kernels::find_kernel("fa4"), long_shape, *device))
      GTEST_SKIP() << *reason;
    const std::uint64_t seed = std::random_device{}();
    SCOPED_TRACE("seed " + std::to_string(seed) + ", " + describe(long_shape));
    // 2 heads x 32 tiles x 8 warps x (n - 1) decisions, n = 32 or m + 1 for query block m.
    const std::uint64_t expected = causal ? 2ull * 8 * (31 * 32 / 2) : 2ull * 32 * 8 * 31;
    const Counted on = run_counted("fa4", long_shape, seed, *device);
    EXPECT_TRUE(on.check.passed()) << on.check.summary();
    EXPECT_EQ(on.counts.blocks, expected);
    EXPECT_GE(double(on.counts.skipped), 0.9 * double(on.counts.blocks));
    const Counted plain = run_counted("fa4", shape_2048(causal), seed, *device);
    EXPECT_TRUE(plain.check.passed()) << plain.check.summary();
    EXPECT_EQ(plain.counts.blocks, 0u) << "below seqlen_k 4096 fa4 runs fa3's softmax";
  }
}

// Inputs with a large spread (stddev 3: scaled scores spread over ~13 log2 units per sigma) make
// later blocks raise the maximum by more than 8 often; the kernel must rescale then and still
// match the oracle.
TEST(Fa4ConditionalRescale, RescalesWhenTheMaximumJumpsAndStillMatchesOracle) {
  const Result<kernels::DeviceCaps> device = kernels::query_device();
  if (!device) GTEST_SKIP() << "no CUDA device";
  const AttnShape shape = shape_2048(false);
  const kernels::Kernel* kernel = kernels::find_kernel("fa4_e25_r1");
  ASSERT_NE(kernel, nullptr);
  if (auto reason = kernels::why_unsupported(*kernel, shape, *device)) GTEST_SKIP() << *reason;
  const std::uint64_t seed = std::random_device{}();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const reference::AttnInputs in = reference::random_inputs(shape, seed, 3.0f);
  Result<DeviceProblem> problem =
      DeviceProblem::upload(in, kernel->workspace_bytes(shape, *device));
  ASSERT_TRUE(problem.ok()) << problem.error().message;
  ASSERT_TRUE(problem->poison_outputs().ok());
  ASSERT_EQ(cudaMemset(problem->workspace.get(), 0, sizeof(RescaleCounts)), cudaSuccess);
  ASSERT_TRUE(kernel->launch(shape, problem->buffers(), nullptr).ok());
  const Result<HostOutputs> out = fetch_outputs(*problem, shape);
  ASSERT_TRUE(out.ok()) << out.error().message;
  RescaleCounts counts;
  ASSERT_EQ(cudaMemcpy(&counts, problem->workspace.get(), sizeof counts, cudaMemcpyDeviceToHost),
            cudaSuccess);
  const CheckResult check = check_against_oracle(in, *out, sample_rows(shape, 256, seed));
  EXPECT_TRUE(check.passed()) << check.summary();
  EXPECT_GT(counts.blocks, counts.skipped) << "some blocks must rescale at stddev 3";
}

}  // namespace
}  // namespace fa4::bench
