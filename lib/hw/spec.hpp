// A GPU as the model sees it: per-SM unit rates and per-GPU figures, loaded from models/*.json.
// Every figure carries its source (a citation string kept beside it in the JSON).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/shape.hpp"

namespace fa4::hw {

// The GPU family a model file names in "architecture": what decides which instructions the
// algorithms have (wgmma on Hopper, tcgen05 and tensor memory on Blackwell).
enum class Architecture { ampere, hopper, blackwell, blackwell_ultra };
inline constexpr Architecture kAllArchitectures[] = {Architecture::ampere, Architecture::hopper,
                                                     Architecture::blackwell,
                                                     Architecture::blackwell_ultra};
std::string_view to_string(Architecture architecture);  // as written in the model files
std::optional<Architecture> parse_architecture(std::string_view text);

// Per streaming multiprocessor, per clock.
struct PerSm {
  double mma_flop_per_clk_bf16 = 0;  // dense tensor-core FLOP/clk (one FMA = 2 FLOPs)
  double mma_flop_per_clk_fp16 = 0;
  double mma_flop_per_clk_fp8 = 0;
  double mufu_ex2_per_clk = 0;     // hardware exp2 results per clock
  double fma_lanes_per_clk = 0;    // FP32 FMA lanes (one FMA instruction-lane per clock)
  double smem_bytes_per_clk = 0;   // shared-memory read bandwidth
  double smem_capacity_bytes = 0;  // usable shared memory per SM
  double tmem_bytes = 0;           // tensor memory (0 before Blackwell)
  double registers = 0;            // 32-bit registers per SM
  double max_registers_per_thread = 0;
};

struct Spec {
  std::string id;    // file stem, e.g. "b200"; what --gpu takes
  std::string name;  // display name, e.g. "NVIDIA B200 (SXM)"
  Architecture architecture = Architecture::ampere;
  int compute_capability = 0;  // 80, 90, 100, 103
  int sms = 0;
  double boost_clock_mhz = 0;  // maximum boost clock
  double peak_clock_mhz = 0;   // the clock the vendor's (or paper's) peak figures use
  double hbm_bytes_per_s = 0;
  double hbm_capacity_bytes = 0;
  double l2_bytes = 0;
  PerSm per_sm;
  // Measured ceilings as fractions of the datasheet figures: a large bf16 GEMM (cuBLAS 8192^3)
  // over the dense peak, and a device-to-device copy (bytes read + written) over HBM bandwidth.
  double gemm_efficiency = 1.0;
  double copy_efficiency = 1.0;
  // A read-only HBM stream (`ceilings --unit hbm_read`) over HBM bandwidth; 0: not measured, the
  // copy share stands for it (model/decode.cpp, the only reader).
  double read_efficiency = 0;
  // The SM clock a long launch settles at under the board's power cap, as a share of the boost
  // clock: a launch starts at the boost clock and decays toward this share of it
  // (model/factors.hpp, kLaunchClockTimeConstantSeconds). 1: the model keeps the peak clock
  // however long the launch.
  double sustained_clock_share = 1.0;
  // mma.sync's rate over wgmma's when measured on this GPU ('--ceilings measured'); 0: the
  // model's published default (model/factors.hpp, kMmaSyncShareHopper).
  double mma_sync_share = 0;
  std::vector<std::string> device_names;  // cudaDeviceProp::name strings this model matches
  // JSON pointer of each figure ("/per_sm/mufu_ex2_per_clk") -> its source.
  std::map<std::string, std::string> sources;

  double mma_flop_per_clk(Dtype dtype) const;
  // Dense tensor-core peak of the whole GPU at the peak clock, FLOP/s.
  double peak_flops(Dtype dtype) const;
  // The dense tensor-core peak at the boost clock, TFLOP/s: the fastest any kernel can run.
  double boost_peak_tflops(Dtype dtype) const;
};

// A measured or published rate above the dense peak at the boost clock by more than this share
// is a wrong time or a wrong shape: no kernel beats the tensor cores. The margin covers the event
// timer's resolution on short kernels (about 0.5 us of a 5-10 us kernel). Used by the peer
// import (store/peer_records.cpp) and the published figures (report/published.cpp).
inline constexpr double kRateAbovePeakMargin = 0.10;
// Whether `tflops` passes the boost-clock peak by more than kRateAbovePeakMargin.
bool rate_above_peak(const Spec& gpu, Dtype dtype, double tflops);

}  // namespace fa4::hw
