// The kernel registry against the table of model configurations, without a GPU: every registered
// kernel has an entry of its own pass, every entry names a registered kernel, and each kernel gets
// a valid prediction on the lab's Hopper GPU on every shape of a small grid that it supports.
#include <gtest/gtest.h>

#include <cmath>

#include "kernels/registry.hpp"
#include "lab_shapes.hpp"
#include "orchestration/kernel_models.hpp"

namespace fa4::orchestration {
namespace {

using testing::tokens_16k;

// The lent H200 as CUDA reports it; the kernels' checks read nothing else.
const kernels::DeviceCaps kH200{.name = "NVIDIA H200",
                                .sm = 90,
                                .multiprocessors = 132,
                                .global_memory_bytes = std::size_t{143} << 30,
                                .l2_bytes = std::size_t{60} << 20};

TEST(RegistryModels, EveryRegisteredKernelHasAnEntryOfItsPass) {
  ASSERT_FALSE(kernels::all_kernels().empty());
  for (const kernels::Kernel* kernel : kernels::all_kernels()) {
    const auto entry = find_kernel_model(kernel->name);
    ASSERT_TRUE(entry.ok()) << entry.error().message;
    EXPECT_EQ((*entry)->pass, kernel->pass) << kernel->name;
  }
}

TEST(RegistryModels, EveryEntryNamesARegisteredKernel) {
  for (const KernelModel& k : kernel_models())
    EXPECT_NE(kernels::find_kernel(k.kernel), nullptr) << k.kernel << " is not registered";
}

TEST(RegistryModels, EveryKernelGetsAValidPredictionOnTheShapesItSupports) {
  const hw::Spec& h200 = testing::gpu("h200");
  for (const kernels::Kernel* kernel : kernels::all_kernels()) {
    const KernelModel& k = *find_kernel_model(kernel->name).value();
    int supported = 0;
    for (std::int64_t headdim : {64, 96, 128, 256})
      for (std::int64_t seqlen : {512, 4096, 16384})
        for (bool causal : {false, true}) {
          const AttnShape shape = tokens_16k(headdim, seqlen, causal);
          if (kernels::why_unsupported(*kernel, shape, kH200)) continue;
          ++supported;
          const auto p = model::predict(h200, shape, model_options(k, shape));
          ASSERT_TRUE(p.ok()) << kernel->name << " " << describe(shape) << ": "
                              << p.error().message;
          EXPECT_EQ(p->pass, kernel->pass) << kernel->name;
          EXPECT_TRUE(std::isfinite(p->tflops) && p->tflops > 0) << kernel->name;
          EXPECT_LE(p->fraction_of_peak, 1.0) << kernel->name;
        }
    EXPECT_GT(supported, 0) << kernel->name << " supports no shape of the grid";
  }
}

}  // namespace
}  // namespace fa4::orchestration
