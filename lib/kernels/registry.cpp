#include "kernels/registry.hpp"

#include <cuda_runtime_api.h>

#include <array>

namespace fa4::kernels {

// Each descriptor is defined in its kernel's own file.
extern const Kernel naive_kernel;  // naive.cu
extern const Kernel fa2_kernel;    // fa2.cu
extern const Kernel fa3_kernel;    // fa3/fa3.cu, and its ablation variants:
extern const Kernel fa3_no_pingpong_kernel;
extern const Kernel fa3_no_overlap_kernel;
extern const Kernel fa3_no_ws_kernel;
extern const Kernel fa3_wide_kernel;
extern const Kernel fa3_narrow_kernel;
extern const Kernel fa4_kernel;  // fa4/fa4.cu: fa3's pipeline with FA4's softmax, and its grid:
extern const Kernel fa4_e0_r0_kernel;
extern const Kernel fa4_e0_r1_kernel;
extern const Kernel fa4_e12_r0_kernel;
extern const Kernel fa4_e12_r1_kernel;
extern const Kernel fa4_e25_r0_kernel;
extern const Kernel fa4_e25_r1_kernel;
extern const Kernel fa4_e50_r0_kernel;
extern const Kernel fa4_e50_r1_kernel;
extern const Kernel fa4_e100_r1_kernel;
extern const Kernel fa3_decode_kernel;  // decode/decode.cu: split-KV decode, GQA packed
extern const Kernel fa3_decode_nosplit_kernel;
extern const Kernel fa2_bwd_kernel;  // fa2_bwd.cu: FA2's backward, and its deterministic variant
extern const Kernel fa2_bwd_deterministic_kernel;
extern const Kernel fa3_bwd_kernel;  // fa3/fa3_bwd.cu: FA3-style backward, and its dQ-atomics variant
extern const Kernel fa3_bwd_atomics_kernel;
extern const Kernel fa3_bwd_no_overlap_kernel;  // fa3/fa3_bwd_ablations.cu
extern const Kernel fa3_bwd_one_stage_kernel;
extern const Kernel fa3_bwd_no_persistent_kernel;

namespace {
constexpr std::array kAllKernels{&naive_kernel,          &fa2_kernel,
                                 &fa3_kernel,            &fa3_no_pingpong_kernel,
                                 &fa3_no_overlap_kernel, &fa3_no_ws_kernel,
                                 &fa3_wide_kernel,       &fa3_narrow_kernel,
                                 &fa4_kernel,
                                 &fa4_e0_r0_kernel,      &fa4_e0_r1_kernel,
                                 &fa4_e12_r0_kernel,     &fa4_e12_r1_kernel,
                                 &fa4_e25_r0_kernel,     &fa4_e25_r1_kernel,
                                 &fa4_e50_r0_kernel,     &fa4_e50_r1_kernel,
                                 &fa4_e100_r1_kernel,
                                 &fa3_decode_kernel,     &fa3_decode_nosplit_kernel,
                                 &fa2_bwd_kernel,        &fa2_bwd_deterministic_kernel,
                                 &fa3_bwd_kernel,        &fa3_bwd_atomics_kernel,
                                 &fa3_bwd_no_overlap_kernel,
                                 &fa3_bwd_one_stage_kernel,
                                 &fa3_bwd_no_persistent_kernel};
}  // namespace

std::span<const Kernel* const> all_kernels() { return kAllKernels; }

std::vector<const Kernel*> kernels_for(Pass pass) {
  std::vector<const Kernel*> kernels;
  for (const Kernel* kernel : kAllKernels)
    if (kernel->pass == pass) kernels.push_back(kernel);
  return kernels;
}

const Kernel* find_kernel(std::string_view name) {
  for (const Kernel* kernel : kAllKernels)
    if (kernel->name == name) return kernel;
  return nullptr;
}

std::optional<std::string> why_unsupported(const Kernel& kernel, const AttnShape& shape,
                                           const DeviceCaps& device) {
  if (device.sm < kernel.min_sm)
    return std::string(kernel.name) + " needs compute capability " +
           std::to_string(kernel.min_sm / 10) + "." + std::to_string(kernel.min_sm % 10) +
           " or newer; " + device.name + " has " + std::to_string(device.sm / 10) + "." +
           std::to_string(device.sm % 10);
  if (!kernel.serving && (shape.page_size || !shape.seqlens_k.empty() || shape.splits))
    return std::string(kernel.name) +
           " reads contiguous K and V of equal lengths, unsplit: a paged cache, ragged key counts "
           "or a split count need a decode kernel (fa3_decode)";
  return kernel.unsupported_reason(shape, device);
}

Result<DeviceCaps> query_device(int device) {
  int count = 0;
  if (const cudaError_t status = cudaGetDeviceCount(&count); status != cudaSuccess)
    return Error{std::string("CUDA reports: ") + cudaGetErrorString(status) +
                 "; run on a machine with an NVIDIA GPU and driver"};
  if (device < 0 || device >= count)
    return Error{"CUDA device " + std::to_string(device) + " does not exist; this machine has " +
                 std::to_string(count)};
  cudaDeviceProp prop{};
  if (const cudaError_t status = cudaGetDeviceProperties(&prop, device); status != cudaSuccess)
    return Error{std::string("cannot read CUDA device properties: ") + cudaGetErrorString(status)};
  return DeviceCaps{.name = prop.name,
                    .sm = prop.major * 10 + prop.minor,
                    .multiprocessors = prop.multiProcessorCount,
                    .global_memory_bytes = prop.totalGlobalMem,
                    .l2_bytes = std::size_t(prop.l2CacheSize)};
}

}  // namespace fa4::kernels
