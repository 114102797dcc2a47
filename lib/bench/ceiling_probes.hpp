// Unit-ceiling microbenchmarks: the measured rate of each unit the analytic model names (tensor
// cores through mma.sync, through wgmma and through a cuBLAS GEMM, the MUFU ex2 unit, the FP32 FMA pipe, shared-memory
// reads, device-memory copy and read-only stream), each by one small kernel that keeps that unit and nothing else
// busy. The kernels and what each expects are described in ceiling_probes_compute.cu,
// wgmma_probe.cu and ceiling_probes_memory.cu; the timing is in ceiling_probes.cu.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.hpp"

namespace fa4::bench {

enum class CeilingUnit {
  mma_sync_bf16,
  wgmma_bf16,
  gemm_bf16,
  mufu_ex2,
  fma_fp32,
  smem_read,
  hbm_copy,
  hbm_read
};

// "mma_sync_bf16", "wgmma_bf16", "gemm_bf16", "mufu_ex2", "fma_fp32", "smem_read", "hbm_copy",
// "hbm_read".
std::string_view to_string(CeilingUnit unit);

struct CeilingResult {
  CeilingUnit unit{};
  // In `value_unit`: "TFLOP/s" for the matrix probes and for FMA (2 FLOP per FMA lane),
  // "Tops/s" for ex2 (results per second / 1e12), "TB/s" for smem (bytes read), for the copy
  // (bytes read + bytes written) and for the read-only stream (bytes read).
  double value = 0;
  std::string value_unit;
  // `value` per SM per clock at `sm_clock_mhz`: FLOP/clk/SM (matrix probes), ex2/clk/SM,
  // FMA lanes/clk/SM, bytes/clk/SM (smem). 0 for hbm_copy and hbm_read, and 0 when
  // sm_clock_mhz <= 0.
  double per_sm_per_clk = 0;
  double sm_clock_mhz = 0;        // the clock used for that conversion, read after the samples
  double median_s = 0;            // median time of one probe launch
  std::vector<double> samples_s;  // in the order taken
  std::string method;             // one line: what was timed
};

// Runs one probe on the current device: one warm-up launch, then `samples` timed launches
// (CUDA events around each launch alone), then reads the SM clock with `read_sm_clock_mhz` while
// the GPU is still at its working clock (read before the work, an idle GPU reports its idle
// clock, 345 MHz on the H200). Errors name the probe and the CUDA error; every device allocation
// and event is freed on every path.
Result<CeilingResult> measure_ceiling(CeilingUnit unit, int samples,
                                      const std::function<double()>& read_sm_clock_mhz);

// Every unit, in the enum's order.
std::vector<CeilingUnit> all_ceiling_units();

}  // namespace fa4::bench
