// fa3_decode (lib/kernels/decode) against the CPU float64 oracle on fresh random inputs, over the
// inference shapes: cache lengths 1, 7, not a block multiple and 128k; MQA and GQA 4/8/16; head dims
// 64/128/256; speculative decoding (2-16 query rows, causal bottom-right); and split counts 1 to
// 128 through decode.hpp, including more parts than key blocks (parts that see no key). Both
// registry entries run every shape. Outputs are poisoned first; without a CUDA device each test
// skips.
#include <gtest/gtest.h>

#include <string>
#include <tuple>
#include <vector>

#include "core/decode_tiles.hpp"
#include "kernel_cases.hpp"
#include "oracle_check.hpp"
#include "kernels/decode/decode.hpp"
#include "kernels/registry.hpp"

namespace fa4::bench {
namespace {

// batch, query heads over KV heads, seqlen_q x seqlen_k, head dim, causal.
std::vector<ShapeCase> decode_cases() {
  const Dtype bf16 = Dtype::bf16;
  return {
      {"cache1_gqa8", shape_of(4, 32, 4, 1, 1, 128, false, bf16)},
      {"cache7_gqa8", shape_of(4, 32, 4, 1, 7, 128, false, bf16)},
      {"cache1000_gqa8", shape_of(3, 32, 4, 1, 1000, 128, false, bf16)},
      {"cache5000_mqa", shape_of(2, 16, 1, 1, 5000, 128, false, bf16)},
      {"cache3000_gqa4_d64", shape_of(2, 16, 4, 1, 3000, 64, false, bf16)},
      {"cache3000_gqa16_d256", shape_of(1, 32, 2, 1, 3000, 256, false, bf16)},
      {"cache2049_gqa8_fp16", shape_of(2, 16, 2, 1, 2049, 128, false, Dtype::fp16)},
      {"cache131072_gqa8", shape_of(1, 16, 2, 1, 131072, 128, false, bf16)},
      {"spec2_causal_gqa8", shape_of(2, 32, 4, 2, 4000, 128, true, bf16)},
      {"spec4_causal_gqa8", shape_of(2, 32, 4, 4, 4097, 128, true, bf16)},
      {"spec8_causal_gqa16_d64", shape_of(1, 32, 2, 8, 3000, 64, true, bf16)},
      {"spec16_causal_gqa8_d256", shape_of(1, 16, 2, 16, 1500, 256, true, bf16)},
      {"spec8_causal_cache5", shape_of(2, 8, 2, 8, 5, 128, true, bf16)},
      {"spec8_gqa8", shape_of(2, 16, 2, 8, 2000, 128, false, bf16)},
  };
}

using EntryCase = std::tuple<const kernels::Kernel*, ShapeCase>;
class DecodeEntryMatchesOracle : public ::testing::TestWithParam<EntryCase> {};

TEST_P(DecodeEntryMatchesOracle, OnRandomInputs) {
  const Result<kernels::DeviceCaps> device = kernels::query_device();
  if (!device) GTEST_SKIP() << "no CUDA device";
  const auto& [kernel, shape_case] = GetParam();
  const AttnShape& shape = shape_case.shape;
  if (auto reason = kernels::why_unsupported(*kernel, shape, *device)) GTEST_SKIP() << *reason;
  expect_matches_oracle(shape, kernel->workspace_bytes(shape, *device),
                        [&](const kernels::AttnBuffers& b) {
                          return kernel->launch(shape, b, nullptr);
                        });
}

std::vector<EntryCase> entry_cases() {
  std::vector<EntryCase> cases;
  for (const char* name : {"fa3_decode", "fa3_decode_nosplit"})
    for (const ShapeCase& shape_case : decode_cases())
      cases.emplace_back(kernels::find_kernel(name), shape_case);
  return cases;
}

INSTANTIATE_TEST_SUITE_P(Decode, DecodeEntryMatchesOracle, ::testing::ValuesIn(entry_cases()),
                         [](const ::testing::TestParamInfo<EntryCase>& info) {
                           return std::string(std::get<0>(info.param)->name) + "_" +
                                  std::get<1>(info.param).name;
                         });

// Given split counts on shapes of 32 and 24 key blocks: every count from 1 to 128, so that some
// parts get one block, some none.
using SplitCase = std::tuple<int, ShapeCase>;
class DecodeSplitsMatchOracle : public ::testing::TestWithParam<SplitCase> {};

TEST_P(DecodeSplitsMatchOracle, OnRandomInputs) {
  const Result<kernels::DeviceCaps> device = kernels::query_device();
  if (!device) GTEST_SKIP() << "no CUDA device";
  const auto& [splits, shape_case] = GetParam();
  const AttnShape& shape = shape_case.shape;
  const kernels::Kernel* kernel = kernels::find_kernel("fa3_decode");
  if (auto reason = kernels::why_unsupported(*kernel, shape, *device)) GTEST_SKIP() << *reason;
  expect_matches_oracle(shape, kernels::decode::workspace_bytes_for_splits(shape, splits),
                        [&](const kernels::AttnBuffers& b) {
                          return kernels::decode::launch_with_splits(shape, b, nullptr, splits);
                        });
}

INSTANTIATE_TEST_SUITE_P(
    Decode, DecodeSplitsMatchOracle,
    ::testing::Combine(
        ::testing::Values(1, 2, 3, 5, 8, 13, 24, 31, 32, 33, 64, 100, 128),
        ::testing::Values(ShapeCase{"cache4000_gqa8", shape_of(2, 32, 4, 1, 4000, 128, false,
                                                               Dtype::bf16)},
                          ShapeCase{"spec4_causal_cache3000_gqa4",
                                    shape_of(1, 16, 4, 4, 3000, 128, true, Dtype::bf16)})),
    [](const ::testing::TestParamInfo<SplitCase>& info) {
      return "splits" + std::to_string(std::get<0>(info.param)) + "_" +
             std::get<1>(info.param).name;
    });

TEST(DecodeSplits, OutOfRangeCountsAreRefused) {
  const AttnShape shape = shape_of(1, 8, 1, 1, 256, 128, false, Dtype::bf16);
  for (int splits : {0, -1, decode_tiles::kMaxSplits + 1}) {
    const Status launched =
        kernels::decode::launch_with_splits(shape, kernels::AttnBuffers{}, nullptr, splits);
    ASSERT_FALSE(launched.ok()) << splits;
    EXPECT_NE(launched.error().message.find("1 to 128"), std::string::npos)
        << launched.error().message;
  }
}

}  // namespace
}  // namespace fa4::bench
