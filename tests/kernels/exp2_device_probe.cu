#include <cuda_runtime.h>

#include <string>

#include "bench/device_buffer.hpp"
#include "exp2_device_probe.hpp"
#include "kernels/cuda_status.hpp"
#include "kernels/exp2_emulation.cuh"

namespace fa4::bench {
namespace {

constexpr int kThreads = 256;

__global__ void software_exp2_kernel(const float* inputs, float* outputs, int count) {
  const int i = int(blockIdx.x * blockDim.x + threadIdx.x);
  if (i < count) outputs[i] = kernels::software_exp2(inputs[i]);
}

}  // namespace

Result<std::vector<float>> software_exp2_on_device(const std::vector<float>& inputs) {
  const int count = int(inputs.size());
  const std::size_t bytes = inputs.size() * sizeof(float);
  Result<DeviceBuffer> device_inputs = DeviceBuffer::allocate(bytes);
  if (!device_inputs) return device_inputs.error();
  Result<DeviceBuffer> device_outputs = DeviceBuffer::allocate(bytes);
  if (!device_outputs) return device_outputs.error();
  if (Status s = kernels::cuda_status(
          cudaMemcpy(device_inputs->get(), inputs.data(), bytes, cudaMemcpyHostToDevice),
          "uploading");
      !s)
    return s.error();
  software_exp2_kernel<<<(count + kThreads - 1) / kThreads, kThreads>>>(
      static_cast<const float*>(device_inputs->get()), static_cast<float*>(device_outputs->get()),
      count);
  if (Status s = kernels::cuda_status(cudaGetLastError(), "launching the probe"); !s)
    return s.error();
  std::vector<float> outputs(inputs.size());
  if (Status s = kernels::cuda_status(
          cudaMemcpy(outputs.data(), device_outputs->get(), bytes, cudaMemcpyDeviceToHost),
          "downloading");
      !s)
    return s.error();
  return outputs;
}

}  // namespace fa4::bench
