// The sweep parser: grids and explicit shapes, and the inputs the fuzzer found it mishandled.
#include <gtest/gtest.h>

#include "core/sweep.hpp"

#include <algorithm>

#include "core/ragged.hpp"

namespace fa4 {
namespace {

std::string error_of(const std::string& text) {
  const auto sweep = parse_sweep_text(text, "s.json");
  return sweep ? "parsed" : sweep.error().message;
}

TEST(ParseSweep, GridExpandsHeaddimsSeqlensAndMasks) {
  const auto sweep = parse_sweep_text(
      R"({"name": "g", "grid": {"total_tokens": 16384, "hidden": 2048, "headdims": [64, 128],
          "seqlens": [512, 16384], "causal": [false, true]}})",
      "s.json");
  ASSERT_TRUE(sweep.ok()) << sweep.error().message;
  ASSERT_EQ(sweep->shapes.size(), 8u);
  EXPECT_EQ(sweep->shapes[0].batch, 32);
  EXPECT_EQ(sweep->shapes[0].heads_q, 32);
  EXPECT_EQ(sweep->shapes[7].headdim, 128);
  EXPECT_EQ(sweep->shapes[7].heads_q, 16);
  EXPECT_TRUE(sweep->shapes[7].causal);
}

// Found by fuzz_sweep: grid shapes skipped validate(), so an absurd one reached the model.
// An explicit shape may carry a sliding window: a positive count of keys, with the causal mask.
TEST(ParseSweep, AShapesWindowNeedsTheCausalMaskAndAPositiveCount) {
  const auto sweep = parse_sweep_text(
      R"({"name": "w", "shapes": [{"batch": 2, "heads": 64, "heads_kv": 8, "seqlen": 8192,
          "headdim": 64, "causal": true, "window": 1024}]})",
      "w.json");
  ASSERT_TRUE(sweep.ok()) << sweep.error().message;
  EXPECT_EQ(sweep->shapes[0].window, 1024);
  const auto open = parse_sweep_text(
      R"({"name": "w", "shapes": [{"batch": 1, "heads": 8, "seqlen": 512, "headdim": 64,
          "window": 128}]})",
      "w.json");
  ASSERT_FALSE(open.ok());
  EXPECT_NE(open.error().message.find("/shapes/0: window = 128 needs the causal mask"),
            std::string::npos)
      << open.error().message;
  const auto zero = parse_sweep_text(
      R"({"name": "w", "shapes": [{"batch": 1, "heads": 8, "seqlen": 512, "headdim": 64,
          "causal": true, "window": 0}]})",
      "w.json");
  ASSERT_FALSE(zero.ok());
  EXPECT_NE(zero.error().message.find("/shapes/0/window: expected a positive integer"),
            std::string::npos)
      << zero.error().message;
}

// Serving shapes: a page size, a split count and a ragged batch's key counts, whose longest is
// the capacity when seqlen_k is not given.
TEST(ParseSweep, AShapeCarriesPagesSplitsAndRaggedKeys) {
  const auto sweep = parse_sweep_text(
      R"({"name": "r", "shapes": [{"batch": 3, "heads": 32, "heads_kv": 8, "seqlen_q": 1,
          "seqlens_k": [8192, 0, 100], "headdim": 128, "page_size": 16, "splits": 4}]})",
      "r.json");
  ASSERT_TRUE(sweep.ok()) << sweep.error().message;
  const AttnShape& shape = sweep->shapes[0];
  EXPECT_EQ(shape.seqlen_k, 8192);
  EXPECT_EQ(shape.seqlens_k, (std::vector<std::int64_t>{8192, 0, 100}));
  EXPECT_EQ(shape.page_size, 16);
  EXPECT_EQ(shape.splits, 4);
  EXPECT_NE(error_of(R"({"name": "r", "shapes": [{"batch": 2, "heads": 8, "seqlen_q": 1,
                "seqlens_k": [10, -1], "headdim": 64}]})")
                .find("/shapes/0/seqlens_k/1: expected a key count (0 or more), got -1"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"name": "r", "shapes": [{"batch": 2, "heads": 8, "seqlen_q": 1,
                "seqlens_k": [10], "headdim": 64}]})")
                .find("1 key counts for batch = 2"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"name": "r", "shapes": [{"batch": 2, "heads": 8, "seqlen": 64,
                "headdim": 64, "page_size": 0}]})")
                .find("/shapes/0/page_size: expected a positive integer"),
            std::string::npos);
}

TEST(ParseSweep, AnAbsurdGridShapeIsRefusedWithItsPointer) {
  const std::string message = error_of(
      R"({"name": "g", "grid": {"total_tokens": 32767, "hidden": 2048, "headdims": [64],
          "seqlens": [4096, 1025122048], "causal": [false]}})");
  EXPECT_EQ(message.rfind("s.json: /grid/seqlens/1: absurd shape: ", 0), 0u) << message;
}

// Found while fixing the loader's: a number beyond a double's range is an error, not a throw.
TEST(ParseSweep, NumberTooLargeForADoubleIsAnError) {
  const std::string message = error_of(R"({"name": "g", "shapes": [{"batch": 1e999}]})");
  EXPECT_EQ(message.rfind("s.json: not valid JSON (", 0), 0u) << message;
}

TEST(ParseSweep, TruncatedFileAndWrongFieldsNameTheirPlace) {
  EXPECT_EQ(error_of(R"({"name": "g", "shapes": [{"batch": 1, "hea)").rfind(
                "s.json: not valid JSON", 0),
            0u);
  EXPECT_EQ(error_of(R"({"name": "g", "shapes": [{"batch": 1, "heads": 8, "seqlen": 64,
                         "headdim": 64, "causal": "yes"}]})"),
            "s.json: /shapes/0/causal: expected true or false");
  EXPECT_EQ(error_of(R"({"shapes": []})"), "s.json: /name: missing; expected a string");
  EXPECT_EQ(error_of(R"({"name": "g", "shapes": []})"),
            "s.json: no shapes: give a /grid or a non-empty /shapes array");
}

// "ragged" draws the batch's key counts (core/ragged.hpp); the longest is the capacity.
TEST(ParseSweep, ARaggedDistributionExpandsToTheBatchsKeyCounts) {
  const auto sweep = parse_sweep_text(
      R"({"name": "r", "shapes": [{"batch": 16, "heads": 32, "heads_kv": 8, "seqlen_q": 1,
          "headdim": 128, "ragged": {"min": 128, "max": 8192, "seed": 1}}]})",
      "r.json");
  ASSERT_TRUE(sweep.ok()) << sweep.error().message;
  const AttnShape& shape = sweep->shapes[0];
  EXPECT_EQ(shape.seqlens_k, *ragged_key_counts({.min = 128, .max = 8192, .seed = 1}, 16, "d"));
  EXPECT_EQ(shape.seqlen_k, *std::max_element(shape.seqlens_k.begin(), shape.seqlens_k.end()));
  const std::string head = R"({"name": "r", "shapes": [{"batch": 2, "heads": 8, "seqlen_q": 1,
                              "headdim": 64, )";
  EXPECT_EQ(error_of(head + R"("ragged": {"min": 1, "max": 9, "sed": 1}}]})")
                .rfind("s.json: /shapes/0/ragged/sed: unknown key; did you mean \"seed\"?", 0),
            0u);
  EXPECT_EQ(error_of(head + R"("ragged": {"min": 10, "max": 9, "seed": 1}}]})")
                .rfind("s.json: /shapes/0/ragged: min = 10, max = 9", 0),
            0u);
  EXPECT_EQ(error_of(head + R"("ragged": {"min": 1, "max": 9}}]})")
                .rfind("s.json: /shapes/0/ragged/seed: expected a whole number, got nothing", 0),
            0u);
  EXPECT_EQ(error_of(head + R"("ragged": [1, 9, 1]}]})")
                .rfind("s.json: /shapes/0/ragged: expected {\"min\"", 0),
            0u);
  EXPECT_EQ(error_of(head + R"("ragged": {"min": 1, "max": 9, "seed": 1}, "seqlens_k": [1, 2]}]})")
                .rfind("s.json: /shapes/0/ragged: the shape gives its key counts twice", 0),
            0u);
  EXPECT_EQ(error_of(R"({"name": "r", "shapes": [{"batch": 1000000000000, "heads": 1,
                "seqlen_q": 1, "headdim": 8, "ragged": {"min": 1, "max": 9, "seed": 1}}]})")
                .rfind("s.json: /shapes/0/ragged: batch = 1000000000000; a drawn ragged batch", 0),
            0u);
  // A capacity given below the longest drawn count is refused by validate().
  EXPECT_NE(error_of(head + R"("seqlen_k": 100, "ragged": {"min": 1000, "max": 2000, "seed": 1}}]})")
                .find("each count must be 0 to seqlen-k = 100"),
            std::string::npos);
}

TEST(ParseSweep, UnknownKeysAreRefusedWithTheNearestValidKey) {
  EXPECT_EQ(error_of(R"({"name": "g", "shapes": [{"batch": 1, "heads": 8, "seqlen": 64,
                         "headdim": 64, "casual": true}]})")
                .rfind("s.json: /shapes/0/casual: unknown key; did you mean \"causal\"? (valid "
                       "keys here: batch, heads, ",
                       0),
            0u);
  EXPECT_EQ(error_of(R"({"name": "g", "grid": {"total_tokens": 1, "hidden": 64, "headdim": [64],
                         "seqlens": [64], "causal": [false]}})")
                .rfind("s.json: /grid/headdim: unknown key; did you mean \"headdims\"?", 0),
            0u);
  // A key with "/" or "~" is escaped in the pointer (RFC 6901).
  EXPECT_EQ(error_of(R"({"name": "g", "a/b~": 1})").rfind("s.json: /a~1b~0: unknown key", 0), 0u);
}

TEST(ParseSweep, DuplicateKeysAreRefusedWithTheirPointer) {
  EXPECT_EQ(error_of(R"({"name": "g", "shapes": [{"batch": 1, "heads": 8, "seqlen": 64,
                         "headdim": 64}, [1, {"x": 1}], {"batch": 1, "batch": 2}]})")
                .rfind("s.json: /shapes/2/batch: duplicate key", 0),
            0u);
  EXPECT_EQ(error_of(R"({"name": "g", "name": "h"})").rfind("s.json: /name: duplicate key", 0), 0u);
  // Equal keys in different objects are no duplicate.
  EXPECT_EQ(error_of(R"({"name": "g", "shapes": [{"batch": 1, "heads": 8, "seqlen": 64,
                         "headdim": 64}, {"batch": 2, "heads": 8, "seqlen": 64,
                         "headdim": 64}]})"),
            "parsed");
}

}  // namespace
}  // namespace fa4
