// One forward launch checked against the CPU float64 oracle on fresh random inputs: upload with
// the outputs poisoned (NaN), launch, fetch, compare the sampled rows. Shared by the registry's
// GPU tests and the decode tests, which launch with a given split count.
#pragma once

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <random>
#include <string>

#include "bench/attention_check.hpp"
#include "kernels/registry.hpp"
#include "reference/attention.hpp"

namespace fa4::bench {

inline constexpr std::size_t kMaxCheckedRows = 256;

// `launch(buffers)` enqueues the kernel on the default stream and returns its Status.
template <class Launch>
void expect_matches_oracle(const AttnShape& shape, std::size_t workspace_bytes, Launch launch,
                           float input_stddev = 1.0f) {
  const std::uint64_t seed = std::random_device{}();
  SCOPED_TRACE("seed " + std::to_string(seed) + ", " + describe(shape));
  const reference::AttnInputs in = reference::random_inputs(shape, seed, input_stddev);
  Result<DeviceProblem> problem = DeviceProblem::upload(in, workspace_bytes, seed);
  ASSERT_TRUE(problem.ok()) << problem.error().message;
  ASSERT_TRUE(problem->poison_outputs().ok());
  const Status launched = launch(problem->buffers());
  ASSERT_TRUE(launched.ok()) << launched.error().message;
  const Result<HostOutputs> out = fetch_outputs(*problem, shape);
  ASSERT_TRUE(out.ok()) << out.error().message;
  const CheckResult check =
      check_against_oracle(in, *out, sample_rows(shape, kMaxCheckedRows, seed));
  EXPECT_TRUE(check.passed()) << check.summary();
}

}  // namespace fa4::bench
