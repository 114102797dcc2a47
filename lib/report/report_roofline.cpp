// The roofline section: per GPU model, the roofline of attention at head dim 128 (the model's
// ceilings, the measured ones where the results hold them, the predicted reference shapes of
// every regime and every forward hd128 measurement) and where each kernel's tile time goes, unit
// by unit, forward and backward.
#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "hw/loader.hpp"
#include "model/algorithm_traits.hpp"
#include "report/roofline.hpp"
#include "report/sections.hpp"
#include "report/unit_breakdown.hpp"

namespace fa4::report {
namespace {

constexpr std::int64_t kHeaddim = 128;

std::vector<RooflinePoint> predicted_points(const hw::Spec& gpu) {
  std::vector<RooflinePoint> points;
  for (model::Algorithm a : model::kAllAlgorithms) {
    if (model::unsupported_reason(gpu, a)) continue;
    for (const AttnShape& shape : reference_shapes()) {
      model::Options options;
      options.algorithm = a;
      if (auto p = model::predict(gpu, shape, options)) points.push_back(predicted_point(*p));
    }
  }
  return points;
}

// Our kernels' and the peers' ok forward measurements at hd128 on the devices `gpu` models.
std::vector<RooflinePoint> measured_points(const std::vector<hw::Spec>& gpus, const hw::Spec& gpu,
                                           const std::vector<store::MeasurementRow>& rows) {
  std::vector<RooflinePoint> points;
  for (const store::MeasurementRow& m : rows) {
    const hw::Spec* model = hw::match_device_name(gpus, m.device);
    if (model && model->id == gpu.id && m.ok() && m.pass == Pass::fwd &&
        m.shape.headdim == kHeaddim && m.shape.headdim_v == kHeaddim)
      points.push_back(measured_point(m));
  }
  return points;
}

// "Model version 1 on the h200 datasheet (fa4 tiles). Measured: NVIDIA H200, run 2, 2026-11-23,
// rev 684356b-dirty (ceilings: NVIDIA H200, run 1, ...)."
std::string roofline_caption(const hw::Spec& gpu, const RooflineBounds& b,
                             const std::vector<RooflinePoint>& points) {
  std::set<std::string> runs;
  for (const RooflinePoint& p : points)
    if (p.origin != "predicted") runs.insert(p.provenance);
  std::string measured;
  for (const std::string& r : runs) measured += (measured.empty() ? "" : "; ") + r;
  return fmt::format(
      "Figures: model version {} on the {} datasheet (attention ceilings from {}'s tile at hd{}; "
      "triangles: predicted at one prefill, causal prefill, chunked prefill and decode shape). "
      "Measured points (circles): {}. Measured ceilings (dashed): {}.",
      model::kModelVersion, gpu.id, b.ceiling_algorithm, kHeaddim,
      measured.empty() ? "none" : measured, b.measured_from.empty() ? "none" : b.measured_from);
}

std::string breakdown_caption(const hw::Spec& gpu) {
  return fmt::format(
      "Figures: model version {} on the {} datasheet, {}; each unit's cycles per tile over the "
      "tile's time after the algorithm's overlap; the triangle names the unit that bounds the "
      "tile.",
      model::kModelVersion, gpu.id, describe(reference_shapes().front()));
}

// "fa4 fwd (exp2 on MUFU only): mma = exp_mufu; fa4 fwd: mma (256x128 tile, 1570 TFLOP/s); ...":
// the bound units of the GPU's best tiled kernel.
std::string bound_sentence(const std::vector<UnitBreakdown>& rows) {
  if (rows.empty()) return "The model has no tiled kernel for this GPU.";
  const model::Algorithm best = rows.back().prediction.algorithm;
  std::string out = "Bound at the tile: ";
  for (const UnitBreakdown& r : rows) {
    const model::Prediction& p = r.prediction;
    if (p.algorithm != best) continue;
    out += fmt::format("{}{}: {} ({}x{} tile, {:.0f} TFLOP/s predicted)",
                       out.ends_with(": ") ? "" : "; ", r.category(), bound_units(p.tile_cycles),
                       p.tile.m, p.tile.n, p.tflops);
  }
  return out + ".";
}

}  // namespace

std::string roofline_section(const ReportInputs& in, ReportCharts& charts) {
  std::string out = heading(Section::roofline);
  out +=
      "x: arithmetic intensity, the FLOPs of `lib/core/shape.hpp` over the fewest HBM bytes a "
      "fused kernel moves (Q, K, V, O and the log-sum-exp once); y: TFLOP/s; both logarithmic. "
      "Prefill sits far right, under the compute roofs; decode sits on the HBM slope. The roofs "
      "below the tensor-core peak are the model's per-tile ceilings at hd128: exp2 on MUFU, shared "
      "memory, and exp2 emulated on the FMA pipe (a kernel cannot beat the lowest roof of the "
      "units its tile needs). The bar chart under each roofline is the speed of light per unit: "
      "each unit's cycles per tile as a share of the tile's time.\n\n";
  for (const hw::Spec& gpu : in.gpus) {
    out += fmt::format("### {}\n\n", gpu.id);
    std::vector<RooflinePoint> points = predicted_points(gpu);
    const auto measured = measured_points(in.gpus, gpu, in.measurements);
    points.insert(points.end(), measured.begin(), measured.end());
    const auto bounds = roofline_bounds(gpu, Pass::fwd, {kHeaddim},
                                        measured_ceilings_of(in.gpus, gpu, in.ceilings));
    if (!bounds) {
      out += fmt::format("No roofline: {}.\n\n", bounds.error().message);
      continue;
    }
    out += charts.embed(roofline_figure("roofline-" + gpu.id, gpu, *bounds, points,
                                        roofline_caption(gpu, *bounds, points)));
    const auto rows = unit_breakdowns(gpu);
    out += bound_sentence(rows) + "\n\n";
    out +=
        charts.embed(unit_breakdown_figure("units-" + gpu.id, gpu, rows, breakdown_caption(gpu)));
  }
  return out;
}

}  // namespace fa4::report
