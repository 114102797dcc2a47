// The ceiling probes' timing: build the probe (ceiling_probes_compute.cu, wgmma_probe.cu,
// gemm_probe.cpp, ceiling_probes_memory.cu), one warm-up launch, then CUDA events around each
// timed launch; the median over the samples. No L2 flush: the register and shared-memory probes
// touch no device memory to speak of, the copy streams 2 GiB and the GEMM's 384 MiB of operands
// are far past L2.
#include <cuda_runtime.h>

#include <string>
#include <utility>

#include "bench/ceiling_probes.hpp"
#include "bench/ceiling_probes_detail.hpp"
#include "core/stats.hpp"

namespace fa4::bench {
namespace ceiling_detail {

Status cuda_check(cudaError_t status, std::string_view probe, std::string_view what) {
  if (status == cudaSuccess) return Ok{};
  return Error{std::string(probe) + ": " + std::string(what) + ": " + cudaGetErrorString(status)};
}

}  // namespace ceiling_detail

namespace {

using ceiling_detail::cuda_check;
using ceiling_detail::DeviceInfo;
using ceiling_detail::Probe;

// Two CUDA events, destroyed with the object.
class EventPair {
 public:
  static Result<EventPair> create(std::string_view probe) {
    EventPair events;
    if (Status s = cuda_check(cudaEventCreate(&events.start_), probe, "creating events"); !s)
      return s.error();
    if (Status s = cuda_check(cudaEventCreate(&events.stop_), probe, "creating events"); !s)
      return s.error();
    return Result<EventPair>(std::move(events));
  }
  EventPair(EventPair&& other) noexcept
      : start_(std::exchange(other.start_, nullptr)), stop_(std::exchange(other.stop_, nullptr)) {}
  EventPair& operator=(EventPair&&) = delete;
  EventPair(const EventPair&) = delete;
  EventPair& operator=(const EventPair&) = delete;
  ~EventPair() {
    if (start_) cudaEventDestroy(start_);
    if (stop_) cudaEventDestroy(stop_);
  }
  cudaEvent_t start() const { return start_; }
  cudaEvent_t stop() const { return stop_; }

 private:
  EventPair() = default;
  cudaEvent_t start_ = nullptr;
  cudaEvent_t stop_ = nullptr;
};

Result<Probe> make_probe(CeilingUnit unit, const DeviceInfo& device) {
  switch (unit) {
    case CeilingUnit::mma_sync_bf16:
      return ceiling_detail::make_mma_sync_probe(device);
    case CeilingUnit::wgmma_bf16:
      return ceiling_detail::make_wgmma_probe(device);
    case CeilingUnit::gemm_bf16:
      return ceiling_detail::make_gemm_probe(device);
    case CeilingUnit::mufu_ex2:
      return ceiling_detail::make_mufu_ex2_probe(device);
    case CeilingUnit::fma_fp32:
      return ceiling_detail::make_fma_probe(device);
    case CeilingUnit::smem_read:
      return ceiling_detail::make_smem_read_probe(device);
    case CeilingUnit::hbm_copy:
      return ceiling_detail::make_hbm_copy_probe(device);
  }
  return Error{"unknown ceiling unit " + std::to_string(int(unit))};
}

Result<DeviceInfo> current_device(std::string_view probe) {
  int id = 0;
  if (Status s = cuda_check(cudaGetDevice(&id), probe, "selecting the device"); !s)
    return s.error();
  DeviceInfo device;
  for (auto [attribute, value] :
       {std::pair{cudaDevAttrMultiProcessorCount, &device.multiprocessors},
        std::pair{cudaDevAttrComputeCapabilityMajor, &device.major},
        std::pair{cudaDevAttrComputeCapabilityMinor, &device.minor}})
    if (Status s = cuda_check(cudaDeviceGetAttribute(value, attribute, id), probe,
                              "reading the device's attributes");
        !s)
      return s.error();
  return device;
}

// One launch between the two events; the elapsed seconds.
Result<double> time_launch(const Probe& probe, const EventPair& events, std::string_view name) {
  if (Status s = cuda_check(cudaEventRecord(events.start()), name, "recording an event"); !s)
    return s.error();
  if (Status s = probe.launch(); !s) return s.error();
  if (Status s = cuda_check(cudaEventRecord(events.stop()), name, "recording an event"); !s)
    return s.error();
  if (Status s = cuda_check(cudaEventSynchronize(events.stop()), name, "running the probe"); !s)
    return s.error();
  float elapsed_ms = 0.0f;
  if (Status s = cuda_check(cudaEventElapsedTime(&elapsed_ms, events.start(), events.stop()), name,
                            "reading events");
      !s)
    return s.error();
  return double(elapsed_ms) * 1e-3;
}

}  // namespace

std::string_view to_string(CeilingUnit unit) {
  switch (unit) {
    case CeilingUnit::mma_sync_bf16:
      return "mma_sync_bf16";
    case CeilingUnit::wgmma_bf16:
      return "wgmma_bf16";
    case CeilingUnit::gemm_bf16:
      return "gemm_bf16";
    case CeilingUnit::mufu_ex2:
      return "mufu_ex2";
    case CeilingUnit::fma_fp32:
      return "fma_fp32";
    case CeilingUnit::smem_read:
      return "smem_read";
    case CeilingUnit::hbm_copy:
      return "hbm_copy";
  }
  return "unknown";
}

std::vector<CeilingUnit> all_ceiling_units() {
  return {CeilingUnit::mma_sync_bf16, CeilingUnit::wgmma_bf16, CeilingUnit::gemm_bf16,
          CeilingUnit::mufu_ex2,      CeilingUnit::fma_fp32,   CeilingUnit::smem_read,
          CeilingUnit::hbm_copy};
}

Result<CeilingResult> measure_ceiling(CeilingUnit unit, int samples,
                                      const std::function<double()>& read_sm_clock_mhz) {
  const std::string name(to_string(unit));
  if (samples < 1)
    return Error{name + ": samples must be at least 1, not " + std::to_string(samples)};
  Result<DeviceInfo> device = current_device(name);
  if (!device) return device.error();
  // Clear an error left by earlier work, so that it is not reported as this probe's.
  (void)cudaGetLastError();
  Result<Probe> probe = make_probe(unit, *device);
  if (!probe) return probe.error();
  Result<EventPair> events = EventPair::create(name);
  if (!events) return events.error();

  if (Result<double> warmup = time_launch(*probe, *events, name); !warmup) return warmup.error();
  std::vector<double> samples_s;
  samples_s.reserve(std::size_t(samples));
  for (int i = 0; i < samples; ++i) {
    Result<double> elapsed = time_launch(*probe, *events, name);
    if (!elapsed) return elapsed.error();
    samples_s.push_back(*elapsed);
  }
  const TimingStats stats = summarize(samples_s);
  const double sm_clock_mhz = read_sm_clock_mhz();

  CeilingResult result;
  result.unit = unit;
  result.median_s = stats.median_s;
  result.value = stats.median_s > 0 ? probe->work / stats.median_s / 1e12 : 0.0;
  result.value_unit = probe->value_unit;
  result.sm_clock_mhz = sm_clock_mhz;
  if (probe->per_clk_work > 0 && sm_clock_mhz > 0 && stats.median_s > 0)
    result.per_sm_per_clk = probe->per_clk_work / stats.median_s /
                            (double(device->multiprocessors) * sm_clock_mhz * 1e6);
  result.samples_s = std::move(samples_s);
  result.method = probe->method;
  return result;
}

}  // namespace fa4::bench
