// fa3_decode (lib/kernels/decode) against the CPU float64 oracle on fresh random inputs, over the
// inference shapes: cache lengths 1, 7, not a block multiple and 128k; MQA and GQA 4/8/16; head
// dims 64/128/256; speculative decoding (2-16 query rows, causal bottom-right); paged caches (pages
// 8 to 256 in shuffled order, unwritten slots NaN); ragged batches (an empty sequence, lengths
// below seqlen_q, one long among many short; slots past each length NaN); and split counts 1 to 128
// through decode.hpp, including more parts than key blocks (parts that see no key); the balanced
// partition over 1 to 256 CTAs. Both registry entries run every shape. Outputs are poisoned first;
// without a CUDA device each test skips.
#include "kernels/decode/decode.hpp"

#include <gtest/gtest.h>

#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "core/decode_tiles.hpp"
#include "kernel_cases.hpp"
#include "kernels/registry.hpp"
#include "oracle_check.hpp"

namespace fa4::bench {
namespace {

AttnShape paged(AttnShape shape, std::int64_t page_size) {
  shape.page_size = page_size;
  return shape;
}
AttnShape ragged(AttnShape shape, std::vector<std::int64_t> keys) {
  shape.seqlens_k = std::move(keys);
  return shape;
}
// A serving batch: one sequence of `long_keys` and `short_count` of 100 to 1500 keys.
AttnShape one_long_many_short(std::int64_t long_keys, std::int64_t short_count) {
  std::vector<std::int64_t> keys{long_keys};
  for (std::int64_t i = 0; i < short_count; ++i) keys.push_back(100 + 97 * i);
  return ragged(shape_of(short_count + 1, 32, 8, 1, long_keys, 128, false, Dtype::bf16),
                std::move(keys));
}

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
      {"paged16_cache1000_gqa8", paged(shape_of(3, 32, 4, 1, 1000, 128, false, bf16), 16)},
      {"paged8_cache300_gqa8", paged(shape_of(2, 32, 4, 1, 300, 128, false, bf16), 8)},
      {"paged64_cache5000_mqa", paged(shape_of(2, 16, 1, 1, 5000, 128, false, bf16), 64)},
      {"paged256_cache3000_gqa4_d64", paged(shape_of(2, 16, 4, 1, 3000, 64, false, bf16), 256)},
      {"paged32_cache2000_gqa16_d256", paged(shape_of(1, 32, 2, 1, 2000, 256, false, bf16), 32)},
      {"paged128_cache131072_gqa8", paged(shape_of(1, 16, 2, 1, 131072, 128, false, bf16), 128)},
      {"paged16_spec4_causal", paged(shape_of(2, 32, 4, 4, 4097, 128, true, bf16), 16)},
      {"ragged_empty_and_short",
       ragged(shape_of(4, 32, 4, 1, 1000, 128, false, bf16), {1, 7, 0, 1000})},
      {"ragged_paged16",
       paged(ragged(shape_of(5, 32, 8, 1, 3000, 128, false, bf16), {3000, 0, 17, 2048, 1}), 16)},
      {"ragged_paged64_spec4_causal",
       paged(ragged(shape_of(3, 16, 4, 4, 4097, 128, true, bf16), {4097, 3, 600}), 64)},
      {"ragged_one_8k_fifteen_short_paged16", paged(one_long_many_short(8192, 15), 16)},
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
        ::testing::Values(
            ShapeCase{"cache4000_gqa8", shape_of(2, 32, 4, 1, 4000, 128, false, Dtype::bf16)},
            ShapeCase{"spec4_causal_cache3000_gqa4",
                      shape_of(1, 16, 4, 4, 3000, 128, true, Dtype::bf16)},
            ShapeCase{
                "ragged_paged16_cache3000",
                paged(ragged(shape_of(3, 32, 8, 1, 3000, 128, false, Dtype::bf16), {3000, 5, 1200}),
                      16)})),
    [](const ::testing::TestParamInfo<SplitCase>& info) {
      return "splits" + std::to_string(std::get<0>(info.param)) + "_" +
             std::get<1>(info.param).name;
    });

// Given CTA counts of the balanced partition, 1 to 256, on shapes whose row blocks the parts cut
// at many places: uniform, causal speculative (row blocks of unequal units) and a ragged paged
// batch with an empty sequence.
using PartsCase = std::tuple<int, ShapeCase>;
class DecodeBalancedPartsMatchOracle : public ::testing::TestWithParam<PartsCase> {};

TEST_P(DecodeBalancedPartsMatchOracle, OnRandomInputs) {
  const Result<kernels::DeviceCaps> device = kernels::query_device();
  if (!device) GTEST_SKIP() << "no CUDA device";
  const auto& [parts, shape_case] = GetParam();
  const AttnShape& shape = shape_case.shape;
  if (auto reason = kernels::why_unsupported(*kernels::find_kernel("fa3_decode"), shape, *device))
    GTEST_SKIP() << *reason;
  expect_matches_oracle(shape, kernels::decode::workspace_bytes_for_parts(shape, parts),
                        [&](const kernels::AttnBuffers& b) {
                          return kernels::decode::launch_with_parts(shape, b, nullptr, parts);
                        });
}

INSTANTIATE_TEST_SUITE_P(
    Decode, DecodeBalancedPartsMatchOracle,
    ::testing::Combine(
        ::testing::Values(1, 2, 3, 7, 31, 64, 131, 132, 200, 256),
        ::testing::Values(
            ShapeCase{"cache3000_gqa4", shape_of(3, 16, 4, 1, 3000, 128, false, Dtype::bf16)},
            ShapeCase{"spec16_causal_cache1000_gqa8",
                      shape_of(2, 32, 4, 16, 1000, 128, true, Dtype::bf16)},
            ShapeCase{"ragged_paged16_cache2000",
                      paged(ragged(shape_of(4, 32, 8, 1, 2000, 128, false, Dtype::bf16),
                                   {2000, 0, 300, 1}),
                            16)})),
    [](const ::testing::TestParamInfo<PartsCase>& info) {
      return "parts" + std::to_string(std::get<0>(info.param)) + "_" + std::get<1>(info.param).name;
    });

TEST(DecodeParts, OutOfRangeCountsAreRefused) {
  const AttnShape shape = shape_of(1, 8, 1, 1, 256, 128, false, Dtype::bf16);
  for (int parts : {0, -1, decode_tiles::kMaxParts + 1}) {
    const Status launched =
        kernels::decode::launch_with_parts(shape, kernels::AttnBuffers{}, nullptr, parts);
    ASSERT_FALSE(launched.ok()) << parts;
    EXPECT_NE(launched.error().message.find("1 to 256"), std::string::npos)
        << launched.error().message;
  }
}

// The shape's own split count (the sweep files' "splits") reaches the registry entry.
TEST(DecodeSplits, TheShapesCountIsRun) {
  const Result<kernels::DeviceCaps> device = kernels::query_device();
  if (!device) GTEST_SKIP() << "no CUDA device";
  AttnShape shape = paged(shape_of(2, 32, 8, 1, 3000, 128, false, Dtype::bf16), 16);
  shape.splits = 7;
  const kernels::Kernel* kernel = kernels::find_kernel("fa3_decode");
  EXPECT_EQ(kernel->workspace_bytes(shape, *device),
            kernels::decode::workspace_bytes_for_splits(shape, 7));
  expect_matches_oracle(
      shape, kernel->workspace_bytes(shape, *device),
      [&](const kernels::AttnBuffers& b) { return kernel->launch(shape, b, nullptr); });
}

// Shapes of the serving fields are refused by every kernel that does not read them, and page
// sizes a TMA box cannot load by fa3_decode, each with a reason.
TEST(DecodeServingShapes, AreRefusedWhereUnsupported) {
  const kernels::DeviceCaps hopper{.name = "H200", .sm = 90, .multiprocessors = 132};
  const AttnShape plain = shape_of(2, 32, 8, 1, 3000, 128, false, Dtype::bf16);
  for (const AttnShape& shape : {paged(plain, 16), ragged(plain, {3000, 10})}) {
    EXPECT_FALSE(kernels::why_unsupported(*kernels::find_kernel("fa3_decode"), shape, hopper));
    const auto reason = kernels::why_unsupported(*kernels::find_kernel("fa3"), shape, hopper);
    ASSERT_TRUE(reason);
    EXPECT_NE(reason->find("decode kernel"), std::string::npos) << *reason;
  }
  for (std::int64_t page_size : {4, 24, 48, 200}) {
    const auto reason = kernels::why_unsupported(*kernels::find_kernel("fa3_decode"),
                                                 paged(plain, page_size), hopper);
    ASSERT_TRUE(reason) << page_size;
    EXPECT_NE(reason->find(std::to_string(page_size)), std::string::npos) << *reason;
  }
  AttnShape split = plain;
  split.splits = 4;
  EXPECT_TRUE(kernels::why_unsupported(*kernels::find_kernel("fa3_decode_nosplit"), split, hopper));
}

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
