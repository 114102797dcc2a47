#include "model/whatif.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>

#include <fmt/format.h>

namespace fa4::model {
namespace {

// A what-if is a plausible chip: each unit at most 64x faster or slower than the real one (the
// shipped models span about 2x per unit, A100 to B300); beyond that the model's fitted overlap
// factors mean nothing and the cycle counts overflow any sensible print.
constexpr double kMinScale = 1.0 / 64, kMaxScale = 64;
constexpr int kShareSteps = 64;
constexpr double kSameTime = 1e-9;  // relative: predictions this close are a tie

std::string known_units() {
  std::string out;
  for (ScalableUnit u : kAllScalableUnits) out += (out.empty() ? "" : ", ") + std::string(to_string(u));
  return out;
}

}  // namespace

std::string_view to_string(ScalableUnit unit) {
  switch (unit) {
    case ScalableUnit::mma: return "mma";
    case ScalableUnit::mufu: return "mufu";
    case ScalableUnit::fma: return "fma";
    case ScalableUnit::smem: return "smem";
    case ScalableUnit::hbm: return "hbm";
    case ScalableUnit::clock: return "clock";
    case ScalableUnit::sms: return "sms";
  }
  return "unknown";
}

Result<UnitScale> parse_unit_scale(std::string_view text) {
  const auto eq = text.find('=');
  if (eq == std::string_view::npos)
    return Error{fmt::format("--scale '{}': expected UNIT=FACTOR, e.g. mufu=2 (units: {})", text,
                             known_units())};
  const std::string_view name = text.substr(0, eq), number = text.substr(eq + 1);
  UnitScale out;
  bool found = false;
  for (ScalableUnit u : kAllScalableUnits)
    if (to_string(u) == name) {
      out.unit = u;
      found = true;
    }
  if (!found)
    return Error{fmt::format("--scale '{}': no unit '{}'; the units are {}", text, name,
                             known_units())};
  const auto [end, ec] = std::from_chars(number.data(), number.data() + number.size(), out.factor);
  if (ec != std::errc{} || end != number.data() + number.size() || !(out.factor >= kMinScale) ||
      !(out.factor <= kMaxScale))
    return Error{
        fmt::format("--scale '{}': the factor must be a number from 1/64 ({:g}) to {:g}: "
                    "a unit scaled further is no chip the model's fitted factors describe",
                    text, kMinScale, kMaxScale)};
  return out;
}

Result<std::vector<UnitScale>> parse_unit_scales(std::span<const std::string> texts) {
  std::vector<UnitScale> scales;
  std::vector<int> given;  // how often each unit of `scales` was given
  for (const std::string& text : texts) {
    auto scale = parse_unit_scale(text);
    if (!scale) return scale.error();
    const auto same = std::find_if(scales.begin(), scales.end(),
                                   [&](const UnitScale& s) { return s.unit == scale->unit; });
    if (same == scales.end()) {
      scales.push_back(*scale);
      given.push_back(1);
      continue;
    }
    same->factor *= scale->factor;
    ++given[std::size_t(same - scales.begin())];
  }
  for (std::size_t i = 0; i < scales.size(); ++i) {
    const double product = scales[i].factor;
    if (product >= kMinScale && product <= kMaxScale) continue;
    return Error{fmt::format(
        "--scale {} given {} times: the factors of one unit multiply, and their product ({:g}) "
        "must lie from 1/64 ({:g}) to {:g} like a single factor; give each unit once with the "
        "factor you mean",
        to_string(scales[i].unit), given[i], product, kMinScale, kMaxScale)};
  }
  return scales;
}

hw::Spec scaled_spec(const hw::Spec& gpu, std::span<const UnitScale> scales) {
  hw::Spec s = gpu;
  std::string changes;
  for (const UnitScale& scale : scales) {
    const double f = scale.factor;
    switch (scale.unit) {
      case ScalableUnit::mma:
        s.per_sm.mma_flop_per_clk_bf16 *= f;
        s.per_sm.mma_flop_per_clk_fp16 *= f;
        s.per_sm.mma_flop_per_clk_fp8 *= f;
        break;
      case ScalableUnit::mufu: s.per_sm.mufu_ex2_per_clk *= f; break;
      case ScalableUnit::fma: s.per_sm.fma_lanes_per_clk *= f; break;
      case ScalableUnit::smem: s.per_sm.smem_bytes_per_clk *= f; break;
      case ScalableUnit::hbm: s.hbm_bytes_per_s *= f; break;
      case ScalableUnit::clock:
        s.peak_clock_mhz *= f;
        s.boost_clock_mhz *= f;
        break;
      case ScalableUnit::sms: s.sms = std::max(1, int(std::lround(s.sms * f))); break;
    }
    changes += fmt::format("{}{} x{:g}", changes.empty() ? "" : ", ", to_string(scale.unit), f);
    if (scale.unit == ScalableUnit::sms) changes += fmt::format(": {} SMs", s.sms);
  }
  if (!changes.empty()) {
    s.id = fmt::format("{} ({})", gpu.id, changes);
    s.name = fmt::format("{} ({})", gpu.name, changes);
  }
  return s;
}

Result<std::vector<SensitivityRow>> sensitivity(const hw::Spec& gpu, const AttnShape& shape,
                                                const Options& options, double step) {
  const auto base = predict(gpu, shape, options);
  if (!base) return base.error();
  std::vector<SensitivityRow> rows;
  for (ScalableUnit u : kAllScalableUnits) {
    const UnitScale scale{u, step};
    const auto after = predict(scaled_spec(gpu, {&scale, 1}), shape, options);
    if (!after) return after.error();
    rows.push_back({u, base->time_s / after->time_s, after->bottleneck});
  }
  std::stable_sort(rows.begin(), rows.end(), [](const SensitivityRow& a, const SensitivityRow& b) {
    return a.speedup > b.speedup;
  });
  return rows;
}

Result<BestShare> best_exp_emulation(const hw::Spec& gpu, const AttnShape& shape, Options options) {
  if (options.algorithm != Algorithm::fa4)
    return Error{"the exp-emulation share is one of FA4's techniques: use --kernel fa4"};
  std::optional<BestShare> best;
  for (int i = 0; i <= kShareSteps; ++i) {
    options.exp_emulation = double(i) / kShareSteps;
    auto p = predict(gpu, shape, options);
    if (!p) return p.error();
    const bool faster = !best || p->time_s < best->prediction.time_s * (1 - kSameTime);
    const bool tie = best && !faster && p->time_s <= best->prediction.time_s * (1 + kSameTime);
    if (faster || (tie && p->softmax_stream_cycles < best->prediction.softmax_stream_cycles))
      best = BestShare{*options.exp_emulation, std::move(p).value()};
  }
  return *best;
}

}  // namespace fa4::model
