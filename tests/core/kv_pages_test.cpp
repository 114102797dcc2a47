#include "core/kv_pages.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

namespace fa4 {
namespace {

AttnShape paged_shape(std::int64_t page_size, std::vector<std::int64_t> keys = {}) {
  AttnShape shape;
  shape.batch = 3;
  shape.heads_q = 8;
  shape.heads_kv = 2;
  shape.seqlen_q = 1;
  shape.seqlen_k = 100;
  shape.headdim = shape.headdim_v = 4;
  shape.page_size = page_size;
  shape.seqlens_k = std::move(keys);
  return shape;
}

TEST(KvPages, EverySequenceHoldsItsCapacityInPages) {
  const AttnShape shape = paged_shape(16);
  EXPECT_EQ(kv_pages::pages_per_sequence(shape), 7);  // 100 keys in pages of 16
  EXPECT_EQ(kv_pages::pool_pages(shape), 21);
}

TEST(KvPages, TheBlockTableIsAShuffledPermutationOfThePool) {
  const AttnShape shape = paged_shape(16);
  const std::vector<std::int32_t> table = kv_pages::shuffled_block_table(shape, 7);
  std::vector<std::int32_t> sorted = table;
  std::sort(sorted.begin(), sorted.end());
  std::vector<std::int32_t> pool(21);
  std::iota(pool.begin(), pool.end(), 0);
  EXPECT_EQ(sorted, pool);
  EXPECT_NE(table, pool);  // shuffled
  EXPECT_EQ(table, kv_pages::shuffled_block_table(shape, 7));
  EXPECT_NE(table, kv_pages::shuffled_block_table(shape, 8));
}

TEST(KvPages, EachKeyLandsInItsPageRowAndUnwrittenSlotsKeepTheFill) {
  const AttnShape shape = paged_shape(16, {100, 0, 17});
  const std::int64_t width = 4;
  std::vector<float> contiguous(std::size_t(3 * 2 * 100 * width));
  std::iota(contiguous.begin(), contiguous.end(), 0.0f);
  const std::vector<std::int32_t> table = kv_pages::shuffled_block_table(shape, 3);
  const std::vector<float> pool = kv_pages::to_pages(contiguous, shape, width, table, -1.0f);
  ASSERT_EQ(pool.size(), std::size_t(21 * 2 * 16 * width));
  std::int64_t written = 0;
  for (std::int64_t b = 0; b < 3; ++b)
    for (std::int64_t h = 0; h < 2; ++h)
      for (std::int64_t t = 0; t < keys_of(shape, b); ++t) {
        const std::int64_t page = table[std::size_t(b * 7 + t / 16)];
        const std::int64_t slot = ((page * 2 + h) * 16 + t % 16) * width;
        const std::int64_t from = ((b * 2 + h) * 100 + t) * width;
        for (std::int64_t c = 0; c < width; ++c)
          ASSERT_EQ(pool[std::size_t(slot + c)], contiguous[std::size_t(from + c)]) << b << h << t;
        ++written;
      }
  EXPECT_EQ(std::count(pool.begin(), pool.end(), -1.0f),
            std::int64_t(pool.size()) - written * width);
}

}  // namespace
}  // namespace fa4
