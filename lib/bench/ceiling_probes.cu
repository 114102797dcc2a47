// The ceiling probes' timing: build the probe (ceiling_probes_compute.cu, wgmma_probe.cu,
// gemm_probe.cpp, ceiling_probes_memory.cu) and time its launch with the attention runs' Timer
// (timer.hpp): one warm-up launch, then exactly `samples` timed launches, CUDA events around each
// launch alone; the median over the samples. No L2 flush: the register and shared-memory probes
// touch no device memory to speak of, the copy streams 2 GiB and the GEMM's 384 MiB of operands
// are far past L2.
#include <cuda_runtime.h>

#include <string>
#include <utility>

#include "bench/ceiling_probes.hpp"
#include "bench/ceiling_probes_detail.hpp"
#include "bench/timer.hpp"
#include "core/stats.hpp"

namespace fa4::bench {
namespace {

using ceiling_detail::DeviceInfo;
using ceiling_detail::Probe;

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
    case CeilingUnit::hbm_read:
      return ceiling_detail::make_hbm_read_probe(device);
  }
  return Error{"unknown ceiling unit " + std::to_string(int(unit))};
}

Result<DeviceInfo> current_device() {
  int id = 0;
  if (Status s = kernels::cuda_status(cudaGetDevice(&id), "selecting the device"); !s)
    return s.error();
  DeviceInfo device;
  for (auto [attribute, value] :
       {std::pair{cudaDevAttrMultiProcessorCount, &device.multiprocessors},
        std::pair{cudaDevAttrComputeCapabilityMajor, &device.major},
        std::pair{cudaDevAttrComputeCapabilityMinor, &device.minor}})
    if (Status s = kernels::cuda_status(cudaDeviceGetAttribute(value, attribute, id),
                                        "reading the device's attributes");
        !s)
      return s.error();
  return device;
}

// One warm-up launch and exactly `samples` timed ones (no early stop: min = max), no L2 flush.
TimingOptions ceiling_timing(int samples) {
  return TimingOptions{
      .warmup = 1, .min_samples = samples, .max_samples = samples, .flush_l2 = false};
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
    case CeilingUnit::hbm_read:
      return "hbm_read";
  }
  return "unknown";
}

std::vector<CeilingUnit> all_ceiling_units() {
  return {CeilingUnit::mma_sync_bf16, CeilingUnit::wgmma_bf16, CeilingUnit::gemm_bf16,
          CeilingUnit::mufu_ex2,      CeilingUnit::fma_fp32,   CeilingUnit::smem_read,
          CeilingUnit::hbm_copy,      CeilingUnit::hbm_read};
}

Result<CeilingResult> measure_ceiling(CeilingUnit unit, int samples,
                                      const std::function<double()>& read_sm_clock_mhz) {
  const std::string name(to_string(unit));
  if (samples < 1)
    return Error{name + ": samples must be at least 1, not " + std::to_string(samples)};
  const auto named = [&name](const Error& error) { return Error{name + ": " + error.message}; };
  Result<DeviceInfo> device = current_device();
  if (!device) return named(device.error());
  // Clear an error left by earlier work, so that it is not reported as this probe's.
  (void)cudaGetLastError();
  Result<Probe> probe = make_probe(unit, *device);
  if (!probe) return named(probe.error());
  Result<Timer> timer = Timer::create(0, ceiling_timing(samples));
  if (!timer) return named(timer.error());
  Result<TimingStats> stats = timer->time(probe->launch);
  if (!stats) return named(stats.error());
  const double sm_clock_mhz = read_sm_clock_mhz();

  CeilingResult result;
  result.unit = unit;
  result.median_s = stats->median_s;
  result.value = stats->median_s > 0 ? probe->work / stats->median_s / 1e12 : 0.0;
  result.value_unit = probe->value_unit;
  result.sm_clock_mhz = sm_clock_mhz;
  if (probe->per_clk_work > 0 && sm_clock_mhz > 0 && stats->median_s > 0)
    result.per_sm_per_clk = probe->per_clk_work / stats->median_s /
                            (double(device->multiprocessors) * sm_clock_mhz * 1e6);
  result.samples_s = std::move(stats->samples_s);
  result.method = probe->method;
  return result;
}

}  // namespace fa4::bench
