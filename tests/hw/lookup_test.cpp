// Finding a model by id, by id prefix or by the device name CUDA reports.
#include <gtest/gtest.h>

#include "hw/loader.hpp"
#include "model_files.hpp"

namespace fa4::hw {
namespace {

std::string found_id(std::string_view name) {
  const Result<const Spec*> spec = find_spec(testing::shipped_specs(), name);
  return spec ? (*spec)->id : "error: " + spec.error().message;
}

TEST(FindSpec, ByIdIgnoringCase) {
  EXPECT_EQ(found_id("b200"), "b200");
  EXPECT_EQ(found_id("B200"), "b200");
  EXPECT_EQ(found_id("GB200"), "gb200");
  EXPECT_EQ(found_id("H100-SXM"), "h100-sxm");
}

TEST(FindSpec, ByIdPrefixEndingAtADash) {
  EXPECT_EQ(found_id("h100"), "h100-sxm");
  EXPECT_EQ(found_id("a100"), "a100-sxm");
}

TEST(FindSpec, ByDeviceName) {
  EXPECT_EQ(found_id("NVIDIA H100 80GB HBM3"), "h100-sxm");
  EXPECT_EQ(found_id("NVIDIA A100-SXM4-40GB"), "a100-sxm");
}

TEST(FindSpec, UnknownNameListsTheKnownIds) {
  EXPECT_EQ(found_id("nope"),
            "error: unknown GPU 'nope': use one of a100-sxm, h100-sxm, h200, b200, gb200, b300, gb300");
  EXPECT_EQ(found_id("h1"),
            "error: unknown GPU 'h1': use one of a100-sxm, h100-sxm, h200, b200, gb200, b300, gb300");
}

TEST(FindSpec, NoModelsLoaded) {
  const Result<const Spec*> spec = find_spec({}, "b200");
  ASSERT_FALSE(spec.ok());
  EXPECT_EQ(spec.error().message, "unknown GPU 'b200': no hardware models loaded");
}

TEST(MatchDeviceName, CudaDeviceNames) {
  const std::pair<const char*, const char*> cases[] = {{"NVIDIA A100-SXM4-80GB", "a100-sxm"},
                                                       {"NVIDIA A100-SXM4-40GB", "a100-sxm"},
                                                       {"NVIDIA H100 80GB HBM3", "h100-sxm"},
                                                       {"NVIDIA H200", "h200"},
                                                       {"NVIDIA B200", "b200"},
                                                       {"NVIDIA GB200", "gb200"},
                                                       {"NVIDIA B300 SXM6 AC", "b300"}};
  for (const auto& [device, id] : cases) {
    const Spec* spec = match_device_name(testing::shipped_specs(), device);
    ASSERT_NE(spec, nullptr) << device;
    EXPECT_EQ(spec->id, id);
  }
}

TEST(MatchDeviceName, OtherDevicesMatchNothing) {
  EXPECT_EQ(match_device_name(testing::shipped_specs(), "NVIDIA H100 PCIe"), nullptr);
  EXPECT_EQ(match_device_name(testing::shipped_specs(), "NVIDIA GeForce RTX 4090"), nullptr);
  EXPECT_EQ(match_device_name(testing::shipped_specs(), "nvidia b200"),
            nullptr);  // CUDA's names are exact
}

TEST(SourceOf, KnownAndUnknownPointers) {
  const Spec& b300 = *find_spec(testing::shipped_specs(), "b300").value();
  EXPECT_NE(source_of(b300, "/per_sm/mufu_ex2_per_clk").find("FA4"), std::string_view::npos);
  EXPECT_EQ(source_of(b300, "/per_sm/nothing"), "");
}

}  // namespace
}  // namespace fa4::hw
