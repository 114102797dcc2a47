// The table of kernels' model configurations: names the grid encodes agree with the data, each
// entry's options follow its kernel's rules by shape, and every entry predicts on the lab's GPU.
#include "orchestration/kernel_models.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <regex>
#include <set>
#include <string>

#include "lab_shapes.hpp"

namespace fa4::orchestration {
namespace {

using model::Algorithm;
using testing::tokens_16k;

const KernelModel& entry(std::string_view kernel) {
  auto found = find_kernel_model(kernel);
  if (!found) throw std::runtime_error(found.error().message);
  return **found;
}

model::Options options(std::string_view kernel, const AttnShape& shape) {
  return model_options(entry(kernel), shape);
}

TEST(KernelModels, NamesAreUniqueAndOnlyFa4EntriesCarryFa4Softmax) {
  std::set<std::string_view> names;
  for (const KernelModel& k : kernel_models()) {
    EXPECT_TRUE(names.insert(k.kernel).second) << k.kernel << " twice";
    if (k.algorithm == Algorithm::fa4) continue;
    EXPECT_EQ(k.exp_emulation, 0) << k.kernel;
    EXPECT_EQ(k.conditional_rescale_from_seqlen_k, kNever) << k.kernel;
  }
}

// fa4_e{E}_r{R}: E the emulated share in percent (12 for 12.5), R conditional rescaling.
TEST(KernelModels, Fa4GridNamesAgreeWithTheirOptions) {
  const std::regex grid(R"(fa4_e(\d+)_r([01]))");
  int entries = 0;
  for (const KernelModel& k : kernel_models()) {
    std::cmatch match;
    const std::string name(k.kernel);
    if (!std::regex_match(name.c_str(), match, grid)) continue;
    ++entries;
    const int percent = std::stoi(match[1]);
    EXPECT_EQ(k.algorithm, Algorithm::fa4) << name;
    EXPECT_EQ(k.exp_emulation, percent == 12 ? 0.125 : percent / 100.0) << name;
    EXPECT_EQ(k.conditional_rescale_from_seqlen_k, match[2] == "1" ? 0 : kNever) << name;
  }
  EXPECT_EQ(entries, 9);
}

TEST(KernelModels, Fa4RescalesConditionallyFromSeqlen4096WithFa3sSoftmaxBelow) {
  const model::Options below = options("fa4", tokens_16k(128, 2048));
  EXPECT_EQ(below.algorithm, Algorithm::fa4);
  EXPECT_EQ(below.exp_emulation, 0.0);
  EXPECT_EQ(below.conditional_rescale, false);
  const model::Options from = options("fa4", tokens_16k(128, 4096));
  EXPECT_EQ(from.exp_emulation, 0.0);
  EXPECT_EQ(from.conditional_rescale, true);
  // Below the threshold the model's fa4 with both techniques off is fa3's softmax: fa3's time.
  const hw::Spec& h200 = testing::gpu("h200");
  const auto fa4 = model::predict(h200, tokens_16k(128, 2048), below);
  const auto fa3 =
      model::predict(h200, tokens_16k(128, 2048), options("fa3", tokens_16k(128, 2048)));
  ASSERT_TRUE(fa4.ok() && fa3.ok());
  EXPECT_DOUBLE_EQ(fa4->time_s, fa3->time_s);
}

TEST(KernelModels, EmulationStopsAtHeaddim256AsTheKernelsDo) {
  const model::Options hd128 = options("fa4_e25_r1", tokens_16k(128, 8192));
  EXPECT_EQ(hd128.exp_emulation, 0.25);
  EXPECT_EQ(hd128.conditional_rescale, true);
  const model::Options hd256 = options("fa4_e25_r1", tokens_16k(256, 8192));
  EXPECT_EQ(hd256.exp_emulation, 0.0);
  EXPECT_EQ(hd256.conditional_rescale, true);
  EXPECT_EQ(options("fa4_e50_r0", tokens_16k(64, 512)).conditional_rescale, false);
}

TEST(KernelModels, VariantsForceTheirKernelsTiles) {
  // fa3 leaves the tile to the model, which takes fa3's own key blocks by shape.
  EXPECT_FALSE(options("fa3", tokens_16k(64, 8192)).tile.has_value());
  const hw::Spec& h200 = testing::gpu("h200");
  const auto fa3 = model::predict(h200, tokens_16k(64, 8192), options("fa3", tokens_16k(64, 8192)));
  ASSERT_TRUE(fa3.ok());
  EXPECT_EQ(fa3->tile, (model::Tile{128, 192}));
  // The ablations keep 128 keys at hd64 and 80 at hd256 at every seqlen.
  EXPECT_EQ(options("fa3_no_overlap", tokens_16k(64, 8192)).tile, (model::Tile{128, 128}));
  EXPECT_EQ(options("fa3_no_ws", tokens_16k(256, 512)).tile, (model::Tile{128, 80}));
  EXPECT_EQ(options("fa3_wide", tokens_16k(128, 1024)).tile, (model::Tile{128, 176}));
  EXPECT_EQ(options("fa3_narrow", tokens_16k(256, 8192)).tile, (model::Tile{128, 48}));
  EXPECT_FALSE(options("fa3_narrow", tokens_16k(128, 8192)).tile.has_value());
  EXPECT_EQ(options("fa2", tokens_16k(64, 8192)).tile, (model::Tile{128, 64}));
}

// The backward kernels: the model's fa2 and fa3 backward at the kernels' own blocks, {query rows
// per step, keys per CTA}; the deterministic and atomics variants are modeled as such.
TEST(KernelModels, BackwardKernelsAreTheModelsBackwardAtTheirTiles) {
  for (const char* kernel : {"fa2_bwd", "fa2_bwd_deterministic", "fa3_bwd", "fa3_bwd_atomics"})
    EXPECT_EQ(options(kernel, tokens_16k(128, 4096)).pass, Pass::bwd) << kernel;
  EXPECT_EQ(options("fa2_bwd", tokens_16k(128, 4096)).algorithm, Algorithm::fa2);
  EXPECT_EQ(options("fa3_bwd", tokens_16k(128, 4096)).algorithm, Algorithm::fa3);
  EXPECT_EQ(options("fa2_bwd", tokens_16k(64, 4096)).tile, (model::Tile{128, 128}));
  EXPECT_EQ(options("fa2_bwd", tokens_16k(128, 4096)).tile, (model::Tile{64, 128}));
  EXPECT_EQ(options("fa2_bwd_deterministic", tokens_16k(256, 4096)).tile, (model::Tile{64, 64}));
  EXPECT_EQ(options("fa3_bwd", tokens_16k(64, 4096)).tile, (model::Tile{128, 128}));
  EXPECT_EQ(options("fa3_bwd_atomics", tokens_16k(256, 512)).tile, (model::Tile{64, 128}));
  EXPECT_TRUE(entry("fa2_bwd").approximation.empty());
  EXPECT_TRUE(entry("fa3_bwd").approximation.empty());
  EXPECT_TRUE(entry("fa2_bwd_deterministic").approximation.empty());
  EXPECT_TRUE(entry("fa3_bwd_atomics").approximation.empty());
  EXPECT_TRUE(options("fa2_bwd_deterministic", tokens_16k(128, 4096)).deterministic);
  EXPECT_FALSE(options("fa2_bwd", tokens_16k(128, 4096)).deterministic);
  EXPECT_EQ(options("fa3_bwd", tokens_16k(128, 4096)).group_walking_backward, model::DqAdd::tensor_reduce);
  EXPECT_EQ(options("fa3_bwd_atomics", tokens_16k(128, 4096)).group_walking_backward,
            model::DqAdd::atomics);
  EXPECT_FALSE(options("fa3", tokens_16k(128, 4096)).group_walking_backward);
  // The ablations are predicted as fa3_bwd, saying so.
  for (const char* kernel : {"fa3_bwd_no_overlap", "fa3_bwd_one_stage", "fa3_bwd_no_persistent"}) {
    EXPECT_EQ(options(kernel, tokens_16k(128, 4096)).group_walking_backward, model::DqAdd::tensor_reduce)
        << kernel;
    EXPECT_FALSE(entry(kernel).approximation.empty()) << kernel;
  }
}

// Every entry, on the lab's Hopper GPUs, over the head dims and sequence lengths the kernels run.
TEST(KernelModels, EveryEntryPredictsOnHopper) {
  for (const char* gpu : {"h100-sxm", "h200"})
    for (const KernelModel& k : kernel_models())
      for (std::int64_t headdim : {64, 128, 256})
        for (std::int64_t seqlen : {512, 4096, 16384})
          for (bool causal : {false, true}) {
            const AttnShape shape = tokens_16k(headdim, seqlen, causal);
            const model::Options o = model_options(k, shape);
            const auto p = model::predict(testing::gpu(gpu), shape, o);
            ASSERT_TRUE(p.ok()) << k.kernel << " " << describe(shape) << ": " << p.error().message;
            EXPECT_EQ(p->algorithm, k.algorithm);
            EXPECT_EQ(p->pass, k.pass);
            if (o.tile) {
              EXPECT_EQ(p->tile, *o.tile) << k.kernel;
            }
            EXPECT_TRUE(std::isfinite(p->time_s) && p->time_s > 0) << k.kernel;
            EXPECT_GT(p->tflops, 0) << k.kernel;
          }
}

TEST(KernelModels, AKernelWithoutAnEntrySaysWhereToAddIt) {
  const auto missing = find_kernel_model("fa5");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().message.find("'fa5'"), std::string::npos);
  EXPECT_NE(missing.error().message.find("lib/orchestration/kernel_models.cpp"), std::string::npos);
}

}  // namespace
}  // namespace fa4::orchestration
