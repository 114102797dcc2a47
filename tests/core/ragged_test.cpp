// A ragged batch's key counts as text and from the seeded log-uniform distribution.
#include "core/ragged.hpp"

#include <gtest/gtest.h>

#include <algorithm>

namespace fa4 {
namespace {

std::string error_of(const Status& status) { return status ? "accepted" : status.error().message; }

TEST(KeyCounts, TextRoundTrips) {
  const std::vector<std::int64_t> counts = {8192, 100, 0, 7};
  EXPECT_EQ(format_key_counts(counts), "8192,100,0,7");
  EXPECT_EQ(*parse_key_counts("8192,100,0,7", "--seqlens-k"), counts);
  EXPECT_EQ(format_key_counts({}), "");
  EXPECT_TRUE(parse_key_counts("", "--seqlens-k")->empty());
}

TEST(KeyCounts, AnItemThatIsNoCountIsNamed) {
  for (const std::string bad :
       {"8192,x", "8192,,7", "8192, 7", "-1", "8192,", "0x10", "1e3", "99999999999999999999"}) {
    auto counts = parse_key_counts(bad, "--seqlens-k");
    ASSERT_FALSE(counts.ok()) << bad;
    EXPECT_EQ(counts.error().message.rfind("--seqlens-k '" + bad + "': item ", 0), 0u)
        << counts.error().message;
    EXPECT_NE(counts.error().message.find("e.g. 8192,100,0"), std::string::npos);
  }
  EXPECT_NE(parse_key_counts("8192,x", "w").error().message.find("item 2 ('x')"),
            std::string::npos);
}

// The counts are pinned: a change of engine, of the draw or of the rounding would change every
// ragged batch of every sweep file, and the stored problems with them.
TEST(RaggedDistribution, TheSameSeedGivesTheSameCountsEverywhere) {
  const RaggedDistribution d{.min = 128, .max = 8192, .seed = 1};
  const std::vector<std::int64_t> counts = *ragged_key_counts(d, 6, "d");
  EXPECT_EQ(counts, *ragged_key_counts(d, 6, "d"));
  EXPECT_EQ(format_key_counts(counts), "223,225,836,139,550,5666");
  EXPECT_NE(counts, *ragged_key_counts({.min = 128, .max = 8192, .seed = 2}, 6, "d"));
  // A longer batch of the same seed starts with the same sequences.
  const std::vector<std::int64_t> longer = *ragged_key_counts(d, 16, "d");
  EXPECT_TRUE(std::equal(counts.begin(), counts.end(), longer.begin()));
}

TEST(RaggedDistribution, CountsAreWithinTheBoundsAndLogUniform) {
  const std::vector<std::int64_t> counts =
      *ragged_key_counts({.min = 1, .max = 1023, .seed = 7}, 20000, "d");
  EXPECT_EQ(*std::min_element(counts.begin(), counts.end()), 1);
  EXPECT_EQ(*std::max_element(counts.begin(), counts.end()), 1023);
  // Log-uniform over [1, 1024): half the mass below 32, a tenth below 2.
  const auto below = [&](std::int64_t k) {
    return double(std::count_if(counts.begin(), counts.end(), [k](auto c) { return c < k; })) /
           double(counts.size());
  };
  EXPECT_NEAR(below(32), 0.5, 0.02);
  EXPECT_NEAR(below(2), 0.1, 0.01);
  EXPECT_EQ(*ragged_key_counts({.min = 5, .max = 5, .seed = 3}, 4, "d"),
            (std::vector<std::int64_t>{5, 5, 5, 5}));
}

TEST(RaggedDistribution, BoundsAndSeedAreChecked) {
  EXPECT_EQ(error_of(check_ragged({.min = 1, .max = 1, .seed = 0}, "r")), "accepted");
  for (const RaggedDistribution& bad : {RaggedDistribution{.min = 0, .max = 10, .seed = 1},
                                        RaggedDistribution{.min = 10, .max = 9, .seed = 1},
                                        RaggedDistribution{.min = 1, .max = 1LL << 41, .seed = 1}})
    EXPECT_EQ(error_of(check_ragged(bad, "r")).rfind("r: min = ", 0), 0u);
  EXPECT_EQ(error_of(check_ragged({.min = 1, .max = 2, .seed = -1}, "r")).rfind("r: seed = -1", 0),
            0u);
}

// A batch beyond 2^24 sequences is refused before a count is drawn (a typo'd batch of 10^12
// would otherwise allocate terabytes before validate() could refuse the shape).
TEST(RaggedDistribution, AnAbsurdBatchIsRefusedBeforeDrawing) {
  const RaggedDistribution d{.min = 1, .max = 9, .seed = 1};
  EXPECT_EQ(ragged_key_counts(d, 1000000000000, "r")
                .error()
                .message.rfind(
                    "r: batch = 1000000000000; a drawn ragged batch has 1 to 2^24 sequences", 0),
            0u);
  EXPECT_FALSE(ragged_key_counts(d, 0, "r").ok());
  EXPECT_EQ(ragged_key_counts(d, kMaxRaggedBatch, "r")->size(), std::size_t(kMaxRaggedBatch));
}

TEST(RaggedDistribution, TheFlagTextIsMinMaxSeed) {
  auto d = parse_ragged("128:8192:1", "--ragged");
  ASSERT_TRUE(d.ok()) << d.error().message;
  EXPECT_EQ(d->min, 128);
  EXPECT_EQ(d->max, 8192);
  EXPECT_EQ(d->seed, 1);
  for (const std::string bad : {"128:8192", "128-8192:1", "a:b:c", "128:8192:1:2", ""})
    EXPECT_EQ(parse_ragged(bad, "--ragged")
                  .error()
                  .message.rfind("--ragged '" + bad + "': expected MIN:MAX:SEED", 0),
              0u)
        << bad;
  EXPECT_EQ(parse_ragged("8192:128:1", "--ragged").error().message.rfind("--ragged: min = 8192", 0),
            0u);
}

}  // namespace
}  // namespace fa4
