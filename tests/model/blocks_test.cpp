// The blocks of S a forward visits and which of them the mask crosses (lib/model/blocks.hpp),
// against a count over every (query, key) pair.
#include <gtest/gtest.h>

#include "gpu_models.hpp"
#include "model/blocks.hpp"

namespace fa4::model {
namespace {

using testing::square;

bool visible(const AttnShape& s, std::int64_t row, std::int64_t key) {
  if (!s.causal) return true;
  const std::int64_t diagonal = row + s.seqlen_k - s.seqlen_q;
  return key <= diagonal && (s.window == 0 || key > diagonal - s.window);
}

// Visited blocks hold a visible pair; masked ones also a pair that is not, or keys past the end.
struct Counted {
  double visited = 0, masked = 0;
};
Counted count_pairs(const AttnShape& s, Tile t) {
  Counted c;
  for (std::int64_t row0 = 0; row0 < s.seqlen_q; row0 += t.m)
    for (std::int64_t key0 = 0; key0 < s.seqlen_k; key0 += t.n) {
      bool any_visible = false, any_hidden = key0 + t.n > s.seqlen_k;
      for (std::int64_t row = row0; row < std::min(row0 + t.m, s.seqlen_q); ++row)
        for (std::int64_t key = key0; key < std::min(key0 + t.n, s.seqlen_k); ++key)
          (visible(s, row, key) ? any_visible : any_hidden) = true;
      if (!any_visible) continue;
      c.visited += 1;
      c.masked += any_hidden ? 1 : 0;
    }
  return c;
}

TEST(Blocks, MaskedShareMatchesACountOverEveryPair) {
  struct Case {
    std::int64_t seqlen_q, seqlen_k, window;
    bool causal;
  };
  const Case cases[] = {{2048, 2048, 0, false}, {2000, 2000, 0, false}, {2048, 2048, 0, true},
                        {1000, 3000, 0, true},  {3000, 1000, 0, true},  {4096, 4096, 128, true},
                        {4096, 4096, 1024, true}, {3000, 3000, 700, true}, {1024, 2048, 300, true}};
  for (const Tile t : {Tile{256, 128}, Tile{128, 128}, Tile{128, 176}}) {
    for (const Case& k : cases) {
      AttnShape s = square(1, 1, k.seqlen_q, 64, k.causal);
      s.seqlen_k = k.seqlen_k;
      s.window = k.window;
      SCOPED_TRACE(::testing::Message() << t.m << "x" << t.n << " " << k.seqlen_q << "/"
                                        << k.seqlen_k << " w" << k.window << " " << k.causal);
      const Counted c = count_pairs(s, t);
      double visited = 0;
      for (double row0 = 0; row0 < double(s.seqlen_q); row0 += t.m)
        visited += forward_blocks(s, t, row0, std::min(row0 + t.m, double(s.seqlen_q)));
      EXPECT_DOUBLE_EQ(visited, c.visited);
      EXPECT_NEAR(forward_masked_block_share(s, t), c.masked / c.visited, 1e-12);
    }
  }
}

TEST(Blocks, UnmaskedBlocksAreTheBandsInterior) {
  EXPECT_DOUBLE_EQ(forward_masked_block_share(square(1, 1, 8192, 128), Tile{256, 128}), 0);
  // Causal at 2048 keys, 256-row tiles of 128 keys: two of each row block's 2i + 2 blocks.
  EXPECT_NEAR(forward_masked_block_share(square(1, 1, 2048, 128, true), Tile{256, 128}),
              16.0 / 72, 1e-12);
  AttnShape band = square(1, 1, 8192, 64, true);
  band.window = 128;
  EXPECT_DOUBLE_EQ(forward_masked_block_share(band, Tile{256, 128}), 1);
}

}  // namespace
}  // namespace fa4::model
