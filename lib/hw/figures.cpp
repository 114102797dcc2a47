#include "hw/figures.hpp"

#include <array>
#include <climits>
#include <cmath>
#include <type_traits>

namespace fa4::hw {
namespace {

constexpr std::string_view kNotMeasured =
    "not measured: the datasheet figure is taken as sustained (1.0)";
constexpr std::string_view kClockNotFitted =
    "not fitted: the model keeps the peak clock however long the launch (1.0)";

// A figure stored in a Spec member (kField = &Spec::sms).
template <auto kField>
constexpr Figure gpu_figure(std::string_view pointer, std::string_view label, Allowed allowed,
                            Unit unit, std::string_view source_when_absent = {}) {
  using Value = std::remove_cvref_t<decltype(std::declval<Spec&>().*kField)>;
  return {pointer,
          label,
          allowed,
          unit,
          source_when_absent,
          [](const Spec& s) { return double(s.*kField); },
          [](Spec& s, double v) { s.*kField = static_cast<Value>(v); }};
}

// A figure stored in a PerSm member (kField = &PerSm::mufu_ex2_per_clk).
template <double PerSm::*kField>
constexpr Figure sm_figure(std::string_view pointer, std::string_view label, Allowed allowed,
                           Unit unit = Unit::number) {
  return {pointer,
          label,
          allowed,
          unit,
          {},
          [](const Spec& s) { return s.per_sm.*kField; },
          [](Spec& s, double v) { s.per_sm.*kField = v; }};
}

using enum Allowed;

constexpr std::array kFigures = {
    gpu_figure<&Spec::compute_capability>("/compute_capability", "compute capability",
                                          positive_integer, Unit::compute_capability),
    gpu_figure<&Spec::sms>("/sms", "SMs", positive_integer, Unit::number),
    gpu_figure<&Spec::boost_clock_mhz>("/boost_clock_mhz", "boost clock", positive, Unit::mhz),
    gpu_figure<&Spec::peak_clock_mhz>("/peak_clock_mhz", "clock of the peak figures", positive,
                                      Unit::mhz),
    gpu_figure<&Spec::hbm_bytes_per_s>("/hbm_bytes_per_s", "HBM bandwidth", positive,
                                       Unit::bytes_per_s),
    gpu_figure<&Spec::hbm_capacity_bytes>("/hbm_capacity_bytes", "HBM capacity", positive,
                                          Unit::bytes),
    gpu_figure<&Spec::l2_bytes>("/l2_bytes", "L2 cache", positive, Unit::bytes),
    gpu_figure<&Spec::gemm_efficiency>("/gemm_efficiency", "measured GEMM / peak", fraction,
                                       Unit::fraction, kNotMeasured),
    gpu_figure<&Spec::copy_efficiency>("/copy_efficiency", "measured copy / HBM", fraction,
                                       Unit::fraction, kNotMeasured),
    gpu_figure<&Spec::sustained_clock_share>("/sustained_clock_share",
                                             "sustained clock / boost, long launches", fraction,
                                             Unit::fraction, kClockNotFitted),
    sm_figure<&PerSm::mma_flop_per_clk_bf16>("/per_sm/mma_flop_per_clk_bf16",
                                             "MMA bf16 FLOP/clk/SM", positive),
    sm_figure<&PerSm::mma_flop_per_clk_fp16>("/per_sm/mma_flop_per_clk_fp16",
                                             "MMA fp16 FLOP/clk/SM", positive),
    sm_figure<&PerSm::mma_flop_per_clk_fp8>("/per_sm/mma_flop_per_clk_fp8", "MMA fp8 FLOP/clk/SM",
                                            non_negative),
    sm_figure<&PerSm::mufu_ex2_per_clk>("/per_sm/mufu_ex2_per_clk", "MUFU ex2/clk/SM", positive),
    sm_figure<&PerSm::fma_lanes_per_clk>("/per_sm/fma_lanes_per_clk", "FP32 FMA lanes/clk/SM",
                                         positive),
    sm_figure<&PerSm::smem_bytes_per_clk>("/per_sm/smem_bytes_per_clk", "SMEM B/clk/SM", positive),
    sm_figure<&PerSm::smem_capacity_bytes>("/per_sm/smem_capacity_bytes", "SMEM per SM", positive,
                                           Unit::bytes),
    sm_figure<&PerSm::tmem_bytes>("/per_sm/tmem_bytes", "TMEM per SM", non_negative, Unit::bytes),
    sm_figure<&PerSm::registers>("/per_sm/registers", "registers per SM", positive),
    sm_figure<&PerSm::max_registers_per_thread>("/per_sm/max_registers_per_thread",
                                                "max registers/thread", positive),
};

}  // namespace

std::span<const Figure> figures() { return kFigures; }

std::string_view describe(Allowed allowed) {
  switch (allowed) {
    case Allowed::positive:
      return "a positive number";
    case Allowed::non_negative:
      return "a non-negative number";
    case Allowed::positive_integer:
      return "a positive integer";
    case Allowed::fraction:
      return "a number in (0, 1]";
  }
  return "?";
}

bool is_allowed(Allowed allowed, double value) {
  if (!std::isfinite(value)) return false;
  switch (allowed) {
    case Allowed::positive:
      return value > 0;
    case Allowed::non_negative:
      return value >= 0;
    case Allowed::positive_integer:
      return value > 0 && value <= INT_MAX && value == std::floor(value);
    case Allowed::fraction:
      return value > 0 && value <= 1;
  }
  return false;
}

}  // namespace fa4::hw
