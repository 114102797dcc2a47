#include "gpu_difference.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <string_view>
#include <vector>

#include "figure_text.hpp"
#include "hw/figures.hpp"

namespace fa4::app {
namespace {

// Two times closer than this share are the same prediction.
constexpr double kSameTimeShare = 5e-4;
// Differences named at most, the bound's own figures first.
constexpr std::size_t kMostDifferences = 4;

constexpr std::string_view kClockFigures[] = {"/sms", "/peak_clock_mhz", "/boost_clock_mhz",
                                              "/sustained_clock_share"};

// The figures (JSON pointers) a unit's time is computed from.
std::vector<std::string_view> figures_of(model::Unit unit, Dtype dtype) {
  std::vector<std::string_view> out(std::begin(kClockFigures), std::end(kClockFigures));
  switch (unit) {
    case model::Unit::mma:
      out.push_back(dtype == Dtype::fp8    ? "/per_sm/mma_flop_per_clk_fp8"
                    : dtype == Dtype::fp16 ? "/per_sm/mma_flop_per_clk_fp16"
                                           : "/per_sm/mma_flop_per_clk_bf16");
      out.push_back("/gemm_efficiency");
      break;
    case model::Unit::exp_mufu:
      out.push_back("/per_sm/mufu_ex2_per_clk");
      break;
    case model::Unit::fma:
      out.push_back("/per_sm/fma_lanes_per_clk");
      break;
    case model::Unit::smem:
      out.push_back("/per_sm/smem_bytes_per_clk");
      break;
    case model::Unit::tmem:
      out.push_back("/per_sm/tmem_bytes");
      break;
    case model::Unit::hbm:
      out = {"/hbm_bytes_per_s", "/copy_efficiency", "/l2_bytes"};
      break;
  }
  return out;
}

const hw::Figure* figure_at(std::string_view pointer) {
  const auto all = hw::figures();
  const auto it = std::find_if(all.begin(), all.end(),
                               [&](const hw::Figure& f) { return f.pointer == pointer; });
  return it == all.end() ? nullptr : &*it;
}

const model::Factor* factor_named(const model::Prediction& p, const std::string& name) {
  const auto it = std::find_if(p.factors.begin(), p.factors.end(),
                               [&](const model::Factor& f) { return f.name == name; });
  return it == p.factors.end() ? nullptr : &*it;
}

// "measured GEMM / peak (0.79 against 0.807)" for each figure of the bound(s) that differs, then
// "factor tile_overhead_cycles (3000 against none)" for each model factor that does.
std::vector<std::string> differences(const hw::Spec& gpu, const model::Prediction& p,
                                     const hw::Spec& base, const model::Prediction& q) {
  std::vector<std::string_view> pointers = figures_of(p.bottleneck, p.shape.dtype);
  for (std::string_view pointer : figures_of(q.bottleneck, q.shape.dtype))
    if (std::find(pointers.begin(), pointers.end(), pointer) == pointers.end())
      pointers.push_back(pointer);
  std::vector<std::string> out;
  for (std::string_view pointer : pointers) {
    const hw::Figure* figure = figure_at(pointer);
    if (!figure || figure->get(gpu) == figure->get(base)) continue;
    out.push_back(fmt::format("{} ({} against {})", figure->label, format_figure(*figure, gpu),
                              format_figure(*figure, base)));
  }
  const auto factor_text = [](const model::Factor* f) {
    return f ? fmt::format("{:.4g}", f->value) : std::string("none");
  };
  std::vector<std::string> names;
  for (const auto* side : {&p, &q})
    for (const model::Factor& f : side->factors)
      if (std::find(names.begin(), names.end(), f.name) == names.end()) names.push_back(f.name);
  for (const std::string& name : names) {
    if (figure_at("/" + name)) continue;  // a figure's own factor (gemm_efficiency)
    const model::Factor* a = factor_named(p, name);
    const model::Factor* b = factor_named(q, name);
    if (a && b && a->value == b->value) continue;
    out.push_back(fmt::format("factor {} ({} against {})", name, factor_text(a), factor_text(b)));
  }
  return out;
}

}  // namespace

std::string why_they_differ(const hw::Spec& gpu, const model::Prediction& p, const hw::Spec& base,
                            const model::Prediction& q) {
  const double ratio = p.time_s / q.time_s;
  std::string out = fmt::format("{} against {}: {:.4g} ms against {:.4g} ms", gpu.id, base.id,
                                p.time_s * 1e3, q.time_s * 1e3);
  if (std::abs(ratio - 1) < kSameTimeShare) return out + ", the same prediction";
  out += fmt::format(" ({:.3f}x the time); ", ratio);
  out += p.bottleneck == q.bottleneck
             ? fmt::format("both bound by {}", model::to_string(p.bottleneck))
             : fmt::format("bound by {}, {} by {}", model::to_string(p.bottleneck), base.id,
                           model::to_string(q.bottleneck));
  if (gpu.architecture != base.architecture)
    out += fmt::format("; architecture {} against {} (the algorithm's rules differ)",
                       hw::to_string(gpu.architecture), hw::to_string(base.architecture));
  std::vector<std::string> found = differences(gpu, p, base, q);
  if (found.empty())
    return out + "; every figure and factor of the bound is the same: the tile schedule differs "
                 "(waves " + fmt::format("{:.2f} against {:.2f})", p.waves, q.waves);
  const std::size_t more = found.size() > kMostDifferences ? found.size() - kMostDifferences : 0;
  found.resize(std::min(found.size(), kMostDifferences));
  std::string list;
  for (const std::string& d : found) list += (list.empty() ? "" : ", ") + d;
  return out + "; differs in " + list + (more ? fmt::format(" and {} more", more) : "");
}

}  // namespace fa4::app
