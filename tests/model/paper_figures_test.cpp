// The model must reproduce FA4's per-tile cycle counts exactly (FA4 §3.1.1 Table 1, §3.2.1).
#include <gtest/gtest.h>

#include "gpu_models.hpp"
#include "model/model.hpp"

namespace fa4::model {
namespace {

using testing::gpu;
using testing::square;

TileCycles tile(std::string_view id, Pass pass, Tile t, std::int64_t d = 128, bool two_cta = false,
                Algorithm algorithm = Algorithm::fa4) {
  Options o;
  o.algorithm = algorithm;
  o.pass = pass;
  o.exp_emulation = 0.0;
  o.two_cta = two_cta;
  auto c = tile_cycles(gpu(id), square(1, 16, 4096, d), o, t);
  if (!c) throw std::runtime_error(c.error().message);
  return *c;
}

TEST(Fa4Table1, B200Forward128x128) {
  const TileCycles c = tile("b200", Pass::fwd, {128, 128});
  EXPECT_DOUBLE_EQ(c.mma, 1024);
  EXPECT_DOUBLE_EQ(c.exp_mufu, 1024);
  EXPECT_DOUBLE_EQ(c.smem, 768);
  EXPECT_EQ(c.bottleneck, Unit::exp_mufu);  // tied with MMA: FA4's point
}

TEST(Fa4Table1, B200Forward256x128) {
  const TileCycles c = tile("b200", Pass::fwd, {256, 128});
  EXPECT_DOUBLE_EQ(c.mma, 2048);
  EXPECT_DOUBLE_EQ(c.exp_mufu, 2048);
  EXPECT_DOUBLE_EQ(c.smem, 1536);
}

TEST(Fa4Backward, B200OneCta) {
  const TileCycles c = tile("b200", Pass::bwd, {128, 128});
  EXPECT_DOUBLE_EQ(c.mma, 2560);
  EXPECT_DOUBLE_EQ(c.smem, 3328);
  EXPECT_DOUBLE_EQ(c.exp_mufu, 1024);
  EXPECT_EQ(c.bottleneck, Unit::smem);  // 30% above MMA
}

TEST(Fa4Backward, B200TwoCta) {
  const TileCycles c = tile("b200", Pass::bwd, {128, 128}, 128, true);
  EXPECT_DOUBLE_EQ(c.smem, 2688);
  EXPECT_DOUBLE_EQ(c.mma, 2560);
}

TEST(Fa4Table1, H100Forward128x128) {
  const TileCycles c = tile("h100-sxm", Pass::fwd, {128, 128}, 128, false, Algorithm::fa3);
  EXPECT_DOUBLE_EQ(c.mma, 2048);
  EXPECT_DOUBLE_EQ(c.exp_mufu, 1024);
  EXPECT_EQ(c.bottleneck, Unit::mma);
}

TEST(Fa4Derived, B200Hd64IsExpBoundTwice) {
  const TileCycles c = tile("b200", Pass::fwd, {128, 128}, 64);
  EXPECT_DOUBLE_EQ(c.mma, 512);
  EXPECT_DOUBLE_EQ(c.exp_mufu, 1024);
}

TEST(Fa4Derived, B300DoubledMufuHalvesExp) {
  EXPECT_DOUBLE_EQ(tile("b300", Pass::fwd, {128, 128}).exp_mufu, 512);
}

TEST(Fa4Emulation, MovesExpFromMufuToFma) {
  Options o;
  o.algorithm = Algorithm::fa4;
  o.exp_emulation = 0.25;
  const TileCycles c = *tile_cycles(gpu("b200"), square(1, 16, 4096, 128), o, {128, 128});
  EXPECT_DOUBLE_EQ(c.exp_mufu, 768);
  EXPECT_DOUBLE_EQ(c.exp_fma, 128 * 128 * 0.25 * 6 / 128);
  EXPECT_GT(c.fma, c.exp_fma);
}

TEST(TileCycles, RefusesTwoCtaOutsideFa4Blackwell) {
  Options o;
  o.algorithm = Algorithm::fa3;
  o.pass = Pass::bwd;
  o.two_cta = true;
  auto c = tile_cycles(gpu("h100-sxm"), square(1, 16, 4096, 128), o, {128, 128});
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.error().message.find("--two-cta"), std::string::npos);
}

}  // namespace
}  // namespace fa4::model
