// Inside the ceiling probes (not for callers: use ceiling_probes.hpp): each probe family's file
// builds a Probe (its device buffers, filled, and a closure that enqueues one launch), and
// ceiling_probes.cu times it.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "bench/device_buffer.hpp"
#include "core/error.hpp"
#include "kernels/cuda_status.hpp"

namespace fa4::bench::ceiling_detail {

struct DeviceInfo {
  int multiprocessors = 0;
  int major = 0, minor = 0;  // compute capability
};

struct Probe {
  std::vector<DeviceBuffer> buffers;  // freed with the Probe
  std::shared_ptr<void> library;      // a library handle the launch uses (cuBLAS), or null
  // Enqueues one launch on the default stream; the launch error (measure_ceiling names the probe).
  std::function<Status()> launch;
  double work = 0;          // per launch: FLOP (matrix, FMA), ex2 results, bytes (smem, copy)
  double per_clk_work = 0;  // per launch, in per_sm_per_clk's unit (FMA lanes for fma); 0: none
  std::string value_unit;   // of work / s / 1e12
  std::string method;
};

Result<Probe> make_mma_sync_probe(const DeviceInfo& device);
Result<Probe> make_mufu_ex2_probe(const DeviceInfo& device);
Result<Probe> make_fma_probe(const DeviceInfo& device);
Result<Probe> make_wgmma_probe(const DeviceInfo& device);
Result<Probe> make_gemm_probe(const DeviceInfo& device);
Result<Probe> make_smem_read_probe(const DeviceInfo& device);
Result<Probe> make_hbm_copy_probe(const DeviceInfo& device);
Result<Probe> make_hbm_read_probe(const DeviceInfo& device);

}  // namespace fa4::bench::ceiling_detail
