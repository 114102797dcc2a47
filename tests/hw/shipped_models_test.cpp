// The models/ folder as shipped: every file loads, the FA4 unit rates are the paper's, and every
// figure has a source.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "hw/figures.hpp"
#include "hw/loader.hpp"
#include "model_files.hpp"

namespace fa4::hw {
namespace {

const Spec& gpu(std::string_view id) { return *find_spec(testing::shipped_specs(), id).value(); }

TEST(ShippedModels, AllLoadInGenerationOrder) {
  const Result<std::vector<Spec>> specs = load_all_specs(testing::shipped_models_dir());
  ASSERT_TRUE(specs.ok()) << specs.error().message;
  std::vector<std::string> ids;
  for (const Spec& spec : *specs) ids.push_back(spec.id);
  EXPECT_EQ(ids, (std::vector<std::string>{"a100-sxm", "h100-sxm", "h200", "b200", "gb200", "b300",
                                           "gb300"}));
}

TEST(ShippedModels, MmaRatesPerSmFromFa4) {
  EXPECT_EQ(gpu("h100-sxm").mma_flop_per_clk(Dtype::bf16), 4096);
  EXPECT_EQ(gpu("b200").mma_flop_per_clk(Dtype::bf16), 8192);
  EXPECT_EQ(gpu("b200").mma_flop_per_clk(Dtype::fp16), 8192);
  EXPECT_EQ(gpu("b200").mma_flop_per_clk(Dtype::fp8), 16384);
  EXPECT_EQ(gpu("a100-sxm").mma_flop_per_clk(Dtype::bf16), 2048);
  EXPECT_EQ(gpu("a100-sxm").mma_flop_per_clk(Dtype::fp8), 0);
}

TEST(ShippedModels, MufuDoubledOnlyOnBlackwellUltra) {
  EXPECT_EQ(gpu("h100-sxm").per_sm.mufu_ex2_per_clk, 16);
  EXPECT_EQ(gpu("b200").per_sm.mufu_ex2_per_clk, 16);
  EXPECT_EQ(gpu("gb200").per_sm.mufu_ex2_per_clk, 16);
  EXPECT_EQ(gpu("b300").per_sm.mufu_ex2_per_clk, 32);
}

TEST(ShippedModels, SharedMemoryBandwidthUnchangedFromHopper) {
  EXPECT_EQ(gpu("h100-sxm").per_sm.smem_bytes_per_clk, 128);
  EXPECT_EQ(gpu("b200").per_sm.smem_bytes_per_clk, 128);
}

TEST(ShippedModels, DenseBf16PeaksMatchThePapers) {
  // FA4 §2.2: 4096 * 132 * 1.83 GHz = 989 TFLOP/s; 8192 * 148 * 1.85 GHz = 2.24 ~ 2.25 PFLOP/s.
  EXPECT_NEAR(gpu("h100-sxm").peak_flops(Dtype::bf16), 989.4e12, 0.1e12);
  EXPECT_NEAR(gpu("b200").peak_flops(Dtype::bf16), 2.25e15, 0.01e15);
  EXPECT_NEAR(gpu("a100-sxm").peak_flops(Dtype::bf16), 312e12, 0.5e12);
  EXPECT_NEAR(gpu("gb200").peak_flops(Dtype::bf16), 2.5e15, 0.005e15);
  EXPECT_EQ(gpu("a100-sxm").peak_flops(Dtype::fp8), 0);
}

TEST(ShippedModels, TensorMemoryOnlyOnBlackwell) {
  for (const Spec& spec : testing::shipped_specs())
    EXPECT_EQ(spec.per_sm.tmem_bytes > 0, spec.compute_capability >= 100) << spec.id;
}

TEST(ShippedModels, ArchitectureAgreesWithComputeCapability) {
  EXPECT_EQ(gpu("a100-sxm").architecture, Architecture::ampere);
  EXPECT_EQ(gpu("h200").architecture, Architecture::hopper);
  EXPECT_EQ(gpu("b300").architecture, Architecture::blackwell_ultra);
  for (const Spec& spec : testing::shipped_specs()) {
    const int major = spec.compute_capability / 10;
    const bool blackwell = spec.architecture == Architecture::blackwell ||
                           spec.architecture == Architecture::blackwell_ultra;
    EXPECT_EQ(major == 8, spec.architecture == Architecture::ampere) << spec.id;
    EXPECT_EQ(major == 9, spec.architecture == Architecture::hopper) << spec.id;
    EXPECT_EQ(major == 10, blackwell) << spec.id;
  }
}

TEST(ShippedModels, EveryFigureHasASource) {
  for (const Spec& spec : testing::shipped_specs()) {
    for (const Figure& figure : figures()) {
      EXPECT_FALSE(source_of(spec, figure.pointer).empty()) << spec.id << " " << figure.pointer;
    }
  }
}

TEST(ShippedModels, EveryModelNamesItsDevices) {
  for (const Spec& spec : testing::shipped_specs())
    EXPECT_FALSE(spec.device_names.empty()) << spec.id;
}

}  // namespace
}  // namespace fa4::hw
