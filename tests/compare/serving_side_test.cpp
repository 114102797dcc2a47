// A side reads each measurement's whole problem, its serving fields included: a paged cache, a
// ragged batch and a forced split count are configurations of their own, never merged with the
// contiguous shape of the same sizes.
#include <gtest/gtest.h>

#include "compare/side.hpp"
#include "store/store.hpp"

namespace fa4::compare {
namespace {

TEST(ServingSide, PagedRaggedAndSplitShapesAreProblemsOfTheirOwn) {
  auto db = store::Store::open(":memory:");
  ASSERT_TRUE(db.ok()) << db.error().message;
  store::RunInfo info;
  info.kind = store::RunKind::bench;
  info.device = "NVIDIA H200";
  const auto run = db->begin_run(info);
  ASSERT_TRUE(run.ok()) << run.error().message;
  AttnShape plain;
  plain.batch = 3;
  plain.heads_q = 32;
  plain.heads_kv = 8;
  plain.seqlen_q = 1;
  plain.seqlen_k = 8192;
  AttnShape paged = plain, ragged = plain, split = plain;
  paged.page_size = 16;
  ragged.seqlens_k = {8192, 0, 100};
  split.splits = 4;
  for (const AttnShape& shape : {plain, paged, ragged, split}) {
    store::Measurement m;
    m.shape = shape;
    m.kernel = "fa3_decode";
    m.device = "NVIDIA H200";
    m.median_s = m.p25_s = m.p75_s = m.min_s = m.max_s = 1e-4;
    m.samples_s = {1e-4, 1e-4, 1e-4};
    m.tflops = 1;
    ASSERT_TRUE(db->record_measurement(*run, m).ok());
  }
  const auto side = read_side(*db, SideSpec{.db_path = ":memory:", .run_id = *run, .text = "t"});
  ASSERT_TRUE(side.ok()) << side.error().message;
  ASSERT_EQ(side->entries.size(), 4u);
  EXPECT_EQ(side->entries[1].shape.page_size, 16);
  EXPECT_EQ(side->entries[2].shape.seqlens_k, (std::vector<std::int64_t>{8192, 0, 100}));
  EXPECT_EQ(side->entries[3].shape.splits, 4);
  EXPECT_EQ(side->entries[0].shape, plain);
}

}  // namespace
}  // namespace fa4::compare
