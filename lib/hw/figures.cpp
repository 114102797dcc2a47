#include "hw/figures.hpp"

#include <fmt/format.h>

#include <array>
#include <cmath>
#include <type_traits>

namespace fa4::hw {
namespace {

constexpr std::string_view kNotMeasured =
    "not measured: the datasheet figure is taken as sustained (1.0)";
constexpr std::string_view kReadNotMeasured =
    "not measured: the copy share stands for a read-only stream (0)";
constexpr std::string_view kClockNotFitted =
    "not fitted: the model keeps the peak clock however long the launch (1.0)";

// A figure stored in a Spec member (kField = &Spec::sms).
template <auto kField>
constexpr Figure gpu_figure(std::string_view pointer, std::string_view label, Allowed allowed,
                            Range range, Unit unit, std::string_view source_when_absent = {}) {
  using Value = std::remove_cvref_t<decltype(std::declval<Spec&>().*kField)>;
  return {pointer,
          label,
          allowed,
          range,
          unit,
          source_when_absent,
          [](const Spec& s) { return double(s.*kField); },
          [](Spec& s, double v) { s.*kField = static_cast<Value>(v); }};
}

// A figure stored in a PerSm member (kField = &PerSm::mufu_ex2_per_clk).
template <double PerSm::*kField>
constexpr Figure sm_figure(std::string_view pointer, std::string_view label, Allowed allowed,
                           Range range, Unit unit = Unit::number) {
  return {pointer,
          label,
          allowed,
          range,
          unit,
          {},
          [](const Spec& s) { return s.per_sm.*kField; },
          [](Spec& s, double v) { s.per_sm.*kField = v; }};
}

using enum Allowed;

// The ranges, each about two orders of magnitude around what GPUs since the V100 have had.
constexpr Range kClockMhz{100, 10'000};
constexpr Range kShare{0.05, 1};  // a measured share of a datasheet figure
constexpr Range kMmaFlopPerClk{1, 1e6};
constexpr Range kSmBytes{1024, 64.0 * 1024 * 1024};  // shared or tensor memory of one SM

constexpr std::array kFigures = {
    gpu_figure<&Spec::compute_capability>("/compute_capability", "compute capability",
                                          positive_integer, {10, 199}, Unit::compute_capability),
    gpu_figure<&Spec::sms>("/sms", "SMs", positive_integer, {1, 4096}, Unit::number),
    gpu_figure<&Spec::boost_clock_mhz>("/boost_clock_mhz", "boost clock", positive, kClockMhz,
                                       Unit::mhz),
    gpu_figure<&Spec::peak_clock_mhz>("/peak_clock_mhz", "clock of the peak figures", positive,
                                      kClockMhz, Unit::mhz),
    gpu_figure<&Spec::hbm_bytes_per_s>("/hbm_bytes_per_s", "HBM bandwidth", positive, {1e9, 1e15},
                                       Unit::bytes_per_s),
    gpu_figure<&Spec::hbm_capacity_bytes>("/hbm_capacity_bytes", "HBM capacity", positive,
                                          {1e8, 1e14}, Unit::bytes),
    gpu_figure<&Spec::l2_bytes>("/l2_bytes", "L2 cache", positive, {1024, 1e10}, Unit::bytes),
    gpu_figure<&Spec::gemm_efficiency>("/gemm_efficiency", "measured GEMM / peak", fraction, kShare,
                                       Unit::fraction, kNotMeasured),
    gpu_figure<&Spec::copy_efficiency>("/copy_efficiency", "measured copy / HBM", fraction, kShare,
                                       Unit::fraction, kNotMeasured),
    gpu_figure<&Spec::read_efficiency>("/read_efficiency", "measured read / HBM", non_negative,
                                       {0, 1}, Unit::fraction, kReadNotMeasured),
    gpu_figure<&Spec::sustained_clock_share>("/sustained_clock_share",
                                             "sustained clock / boost, long launches", fraction,
                                             kShare, Unit::fraction, kClockNotFitted),
    sm_figure<&PerSm::mma_flop_per_clk_bf16>("/per_sm/mma_flop_per_clk_bf16",
                                             "MMA bf16 FLOP/clk/SM", positive, kMmaFlopPerClk),
    sm_figure<&PerSm::mma_flop_per_clk_fp16>("/per_sm/mma_flop_per_clk_fp16",
                                             "MMA fp16 FLOP/clk/SM", positive, kMmaFlopPerClk),
    sm_figure<&PerSm::mma_flop_per_clk_fp8>("/per_sm/mma_flop_per_clk_fp8", "MMA fp8 FLOP/clk/SM",
                                            non_negative, kMmaFlopPerClk),
    sm_figure<&PerSm::mufu_ex2_per_clk>("/per_sm/mufu_ex2_per_clk", "MUFU ex2/clk/SM", positive,
                                        {1, 1024}),
    sm_figure<&PerSm::fma_lanes_per_clk>("/per_sm/fma_lanes_per_clk", "FP32 FMA lanes/clk/SM",
                                         positive, {1, 4096}),
    sm_figure<&PerSm::smem_bytes_per_clk>("/per_sm/smem_bytes_per_clk", "SMEM B/clk/SM", positive,
                                          {1, 65'536}),
    sm_figure<&PerSm::smem_capacity_bytes>("/per_sm/smem_capacity_bytes", "SMEM per SM", positive,
                                           kSmBytes, Unit::bytes),
    sm_figure<&PerSm::tmem_bytes>("/per_sm/tmem_bytes", "TMEM per SM", non_negative, kSmBytes,
                                  Unit::bytes),
    sm_figure<&PerSm::registers>("/per_sm/registers", "registers per SM", positive,
                                 {1024, 1 << 24}),
    sm_figure<&PerSm::max_registers_per_thread>("/per_sm/max_registers_per_thread",
                                                "max registers/thread", positive, {16, 65'536}),
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
      return value > 0 && value == std::floor(value);  // the range keeps it within an int
    case Allowed::fraction:
      return value > 0 && value <= 1;
  }
  return false;
}

bool in_range(const Figure& figure, double value) {
  if (figure.allowed == Allowed::non_negative && value == 0) return true;
  return value >= figure.range.min && value <= figure.range.max;
}

std::string describe_range(const Figure& figure) {
  const std::string_view number =
      figure.allowed == Allowed::positive_integer ? "a whole number" : "a number";
  const std::string range =
      fmt::format("{} from {:g} to {:g}", number, figure.range.min, figure.range.max);
  return figure.allowed == Allowed::non_negative ? "0 (none) or " + range : range;
}

}  // namespace fa4::hw
