// Every registered kernel against the CPU float64 oracle on fresh random inputs, over a grid of
// shapes that includes the awkward ones. Outputs are poisoned (NaN) first; NaN never passes.
// Without a CUDA device each test skips; a kernel that does not support a shape skips with its
// reason.
#include <gtest/gtest.h>

#include <ostream>
#include <string>
#include <tuple>
#include <vector>

#include "kernel_cases.hpp"
#include "oracle_check.hpp"
#include "kernels/registry.hpp"

namespace fa4::bench {
namespace {

std::vector<ShapeCase> shape_cases() {
  std::vector<ShapeCase> cases;
  for (Dtype dtype : {Dtype::bf16, Dtype::fp16}) {
    const std::string type(to_string(dtype));
    for (std::int64_t d : {64, 128, 256})
      for (bool causal : {false, true})
        cases.push_back({std::string("d")
                                 .append(std::to_string(d))
                                 .append(causal ? "_s1000_causal_" : "_s1000_") +
                             type,
                         shape_of(2, 4, 4, 1000, 1000, d, causal, dtype)});
    cases.push_back({"gqa16to2_s100_" + type, shape_of(1, 16, 2, 100, 100, 128, false, dtype)});
    cases.push_back(
        {"gqa16to2_s100_causal_" + type, shape_of(1, 16, 2, 100, 100, 128, true, dtype)});
    cases.push_back(
        {"mqa16to1_s1000_causal_" + type, shape_of(1, 16, 1, 1000, 1000, 64, true, dtype)});
    cases.push_back({"s1_" + type, shape_of(2, 4, 4, 1, 1, 128, false, dtype)});
    cases.push_back({"s1_causal_" + type, shape_of(2, 4, 4, 1, 1, 256, true, dtype)});
    cases.push_back({"q1_k1000_causal_" + type, shape_of(2, 4, 2, 1, 1000, 128, true, dtype)});
    cases.push_back({"q100_k1000_causal_" + type, shape_of(1, 4, 4, 100, 1000, 64, true, dtype)});
    cases.push_back({"q1000_k100_causal_" + type, shape_of(1, 4, 4, 1000, 100, 128, true, dtype)});
    cases.push_back({"q1000_k100_" + type, shape_of(1, 4, 4, 1000, 100, 256, false, dtype)});
    cases.push_back({"q300_k2000_" + type, shape_of(1, 4, 1, 300, 2000, 128, false, dtype)});
    cases.push_back({"s4096_causal_" + type, shape_of(1, 2, 2, 4096, 4096, 128, true, dtype)});
    cases.push_back({"d128_dv64_" + type, shape_of(1, 4, 2, 200, 300, 128, false, dtype, 64)});
    // Extreme logits: scaled scores with stddev 100 (d64) and 64 (d128) nats, far past where a
    // softmax without the running maximum overflows float32 (88), while the raw Q K^T (stddev 800
    // and 724) stays inside fp16's range for naive, which stores S in the input dtype.
    cases.push_back(
        {"extreme_logits_d64_causal_" + type, shape_of(1, 2, 2, 300, 700, 64, true, dtype), 10.0f});
    cases.push_back(
        {"extreme_logits_d128_" + type, shape_of(1, 2, 1, 500, 500, 128, false, dtype), 8.0f});
    cases.push_back({"one_head_" + type, shape_of(1, 1, 1, 777, 777, 128, true, dtype)});
    cases.push_back({"batch1024_" + type, shape_of(1024, 2, 2, 40, 40, 128, true, dtype)});
  }
  return cases;
}

using KernelCase = std::tuple<const kernels::Kernel*, ShapeCase>;

class KernelMatchesOracle : public ::testing::TestWithParam<KernelCase> {};

TEST_P(KernelMatchesOracle, OnRandomInputs) {
  const Result<kernels::DeviceCaps> device = kernels::query_device();
  if (!device) GTEST_SKIP() << "no CUDA device";
  const auto& [kernel, shape_case] = GetParam();
  const AttnShape& shape = shape_case.shape;
  if (auto reason = kernels::why_unsupported(*kernel, shape, *device)) GTEST_SKIP() << *reason;

  expect_matches_oracle(
      shape, kernel->workspace_bytes(shape, *device),
      [&](const kernels::AttnBuffers& b) { return kernel->launch(shape, b, nullptr); },
      shape_case.input_stddev);
}

std::vector<KernelCase> kernel_cases() {
  std::vector<KernelCase> cases;
  for (const kernels::Kernel* kernel : kernels::kernels_for(Pass::fwd))
    for (const ShapeCase& shape_case : shape_cases()) cases.emplace_back(kernel, shape_case);
  return cases;
}

INSTANTIATE_TEST_SUITE_P(Registry, KernelMatchesOracle, ::testing::ValuesIn(kernel_cases()),
                         [](const ::testing::TestParamInfo<KernelCase>& info) {
                           return std::string(std::get<0>(info.param)->name) + "_" +
                                  std::get<1>(info.param).name;
                         });

TEST(Registry, NamesAreUniqueAndFindable) {
  for (const kernels::Kernel* kernel : kernels::all_kernels()) {
    EXPECT_EQ(kernels::find_kernel(kernel->name), kernel);
    EXPECT_FALSE(kernel->summary.empty());
  }
  EXPECT_EQ(kernels::find_kernel("no-such-kernel"), nullptr);
}

}  // namespace
}  // namespace fa4::bench
