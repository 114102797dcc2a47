#include "bench/timer.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <chrono>
#include <string>

#include "kernels/cuda_status.hpp"

namespace fa4::bench {
namespace {

using kernels::cuda_status;

constexpr std::size_t kMinFlushBytes = std::size_t{256} << 20;

// Two events, destroyed with the object.
struct Events {
  cudaEvent_t start = nullptr, stop = nullptr;
  ~Events() {
    if (start) cudaEventDestroy(start);
    if (stop) cudaEventDestroy(stop);
  }
};

}  // namespace

Result<Timer> Timer::create(std::size_t l2_bytes, TimingOptions options) {
  if (!options.flush_l2) return Timer(DeviceBuffer{}, options);
  Result<DeviceBuffer> flush = DeviceBuffer::allocate(std::max(kMinFlushBytes, 2 * l2_bytes));
  if (!flush) return flush.error();
  return Timer(std::move(flush).value(), options);
}

Result<TimingStats> Timer::time(const std::function<Status()>& work) const {
  for (int i = 0; i < options_.warmup; ++i)
    if (Status s = work(); !s) return s.error();
  if (Status s = cuda_status(cudaDeviceSynchronize(), "running the warm-up"); !s) return s.error();
  Events events;
  if (Status s = cuda_status(cudaEventCreate(&events.start), "creating an event"); !s)
    return s.error();
  if (Status s = cuda_status(cudaEventCreate(&events.stop), "creating an event"); !s)
    return s.error();
  const auto began = std::chrono::steady_clock::now();
  std::vector<double> samples;
  for (int i = 0; i < options_.max_samples; ++i) {
    Status status = Ok{};
    if (options_.flush_l2)
      status = cuda_status(cudaMemsetAsync(flush_.get(), i & 0xff, flush_.size()), "flushing L2");
    if (status) status = cuda_status(cudaEventRecord(events.start), "recording an event");
    if (status) status = work();
    if (status) status = cuda_status(cudaEventRecord(events.stop), "recording an event");
    if (status) status = cuda_status(cudaEventSynchronize(events.stop), "running the timed work");
    float ms = 0.0f;
    if (status)
      status = cuda_status(cudaEventElapsedTime(&ms, events.start, events.stop), "reading events");
    if (!status) return status.error();
    samples.push_back(double(ms) * 1e-3);
    if (int(samples.size()) < options_.min_samples) continue;
    const double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
    if (elapsed > options_.time_cap_s ||
        summarize(samples).relative_iqr() < options_.target_relative_iqr)
      break;
  }
  return summarize(std::move(samples));
}

}  // namespace fa4::bench
