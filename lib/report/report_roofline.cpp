// The roofline section: per GPU model, the roofline of attention at head dim 128 (the model's
// ceilings, the measured ones where the results hold them, the predicted reference shapes of
// every regime and every forward hd128 measurement) and where each kernel's tile time goes, unit
// by unit, forward and backward.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "core/count_noun.hpp"
#include "hw/loader.hpp"
#include "model/algorithm_traits.hpp"
#include "report/decode_model.hpp"
#include "report/roofline.hpp"
#include "report/sections.hpp"
#include "report/unit_breakdown.hpp"

namespace fa4::report {
namespace {

constexpr std::int64_t kHeaddim = 128;

// Every algorithm at every reference shape, and the decode shape also as our decode kernel where
// the model prices it.
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
  for (const AttnShape& shape : reference_shapes())
    if (is_decode(shape))
      if (auto p = predicted_decode_point(gpu, shape)) points.push_back(std::move(*p));
  return points;
}

// Our kernels' and the peers' ok forward measurements at hd128 on the devices `gpu` models, each
// at the bytes its kernel moves on that GPU.
std::vector<RooflinePoint> measured_points(const std::vector<hw::Spec>& gpus, const hw::Spec& gpu,
                                           const std::vector<store::MeasurementRow>& rows) {
  std::vector<RooflinePoint> points;
  for (const store::MeasurementRow& m : rows) {
    const hw::Spec* model = hw::match_device_name(gpus, m.device);
    if (model && model->id == gpu.id && m.ok() && m.pass == Pass::fwd &&
        m.shape.headdim == kHeaddim && m.shape.headdim_v == kHeaddim)
      points.push_back(measured_point(m, model));
  }
  // Ours drawn last, over the peers' points where they meet.
  std::stable_partition(points.begin(), points.end(),
                        [](const RooflinePoint& p) { return p.origin != store::kOurSource; });
  return points;
}

// "0.70-1.29 TB/s (15-27% of ...)": the range of the points' bandwidths.
struct Range {
  double lo = 0, hi = 0;
  int count = 0;
  void add(double v) {
    lo = count ? std::min(lo, v) : v;
    hi = count ? std::max(hi, v) : v;
    ++count;
  }
  std::string tb_s() const {
    return lo == hi || fmt::format("{:.2f}", lo) == fmt::format("{:.2f}", hi)
               ? fmt::format("{:.2f} TB/s", hi)
               : fmt::format("{:.2f}-{:.2f} TB/s", lo, hi);
  }
  std::string share_of(double slope) const {
    const int a = int(std::lround(100 * lo / slope)), b = int(std::lround(100 * hi / slope));
    return a == b ? fmt::format("{}%", b) : fmt::format("{}-{}%", a, b);
  }
};

// Where the GPU's decode points sit against the HBM slope, from the points the chart draws: the
// model's decode kernel and the prefill kernels at the reference decode shape, then
// each measured kernel's range (and the measured ceilings it is held against).
std::string decode_sentence(const hw::Spec& gpu, const RooflineBounds& b,
                            const std::vector<RooflinePoint>& points) {
  const RooflinePoint* ours = nullptr;
  Range padded;
  std::string padded_names, shape;
  std::vector<std::pair<std::string, Range>> measured;  // "fa3_decode (ours)", in chart order
  for (const RooflinePoint& p : points) {
    if (p.regime != "decode") continue;
    if (p.origin == "predicted") {
      shape = describe(p.shape);
      if (p.kernel == "fa3_decode") {
        ours = &p;
      } else {
        padded.add(bandwidth_tb_s(p));
        padded_names += (padded_names.empty() ? "" : ", ") + p.kernel;
      }
      continue;
    }
    const std::string name = fmt::format("{} ({})", p.kernel, p.origin);
    auto it = std::find_if(measured.begin(), measured.end(),
                           [&](const auto& m) { return m.first == name; });
    if (it == measured.end()) it = measured.insert(measured.end(), {name, Range{}});
    it->second.add(bandwidth_tb_s(p));
  }
  if (shape.empty() && measured.empty()) return "";
  std::string out;
  const std::string slope = fmt::format("{:.2f} TB/s", b.hbm_tb_s);
  if (!shape.empty()) {
    out = fmt::format("Decode ({}, predicted): ", shape);
    if (ours)
      out += fmt::format(
          "our decode kernel fa3_decode (each KV head's query heads packed in one tile) at {:.2f} "
          "TB/s, {:.0f}% of "
          "the {} HBM slope; the prefill kernels at this shape ({}) at {} ({} of it).",
          bandwidth_tb_s(*ours), 100 * bandwidth_tb_s(*ours) / b.hbm_tb_s, slope, padded_names,
          padded.tb_s(), padded.share_of(b.hbm_tb_s));
    else
      out += fmt::format(
          "the model prices no decode kernel on {} (fa3_decode's packed tiles need Hopper's "
          "wgmma), so only the prefill kernels at this shape ({}) are drawn, at {} ({} of the {} "
          "HBM slope).",
          gpu.id, padded_names, padded.tb_s(), padded.share_of(b.hbm_tb_s), slope);
  }
  if (!measured.empty()) {
    std::string kernels;
    for (const auto& [name, range] : measured)
      kernels += fmt::format("{}{} {} over {}", kernels.empty() ? "" : "; ", name, range.tb_s(),
                             count_noun(range.count, "shape"));
    std::string ceilings;
    if (b.measured_hbm_read_tb_s > 0)
      ceilings = fmt::format("read {:.2f} TB/s", b.measured_hbm_read_tb_s);
    if (b.measured_hbm_tb_s > 0)
      ceilings +=
          fmt::format("{}copy {:.2f} TB/s", ceilings.empty() ? "" : " and ", b.measured_hbm_tb_s);
    out += fmt::format(
        "{}Measured decode, the bandwidth of the bytes each kernel moves: {}{} ([serving]"
        "(#{})).",
        out.empty() ? "" : " ", kernels,
        ceilings.empty() ? "" : fmt::format(", against the measured HBM {}", ceilings),
        anchor(Section::serving));
  }
  return out + "\n\n";
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
      "triangles: predicted at one prefill, causal prefill, chunked prefill and decode shape, the "
      "decode shape also as our decode kernel where the model prices it). Measured points "
      "(circles): {}. Measured ceilings (dashed): {}.",
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
      "x: arithmetic intensity, the FLOPs of `lib/core/shape.hpp` over the HBM bytes the kernel "
      "moves: the fewest a fused kernel must (Q, K, V, O and the log-sum-exp once), and for our "
      "decode kernels also a paged cache's block table and the float32 partials written and read "
      "back, as the model counts them (`lib/model/decode.cpp`); y: TFLOP/s; both logarithmic. A "
      "point's height against the HBM slope is its bandwidth against the slope's. Prefill sits "
      "far right, under the compute roofs; decode far left, under the HBM slope, and how close to "
      "it each GPU's decode points come is said under its chart. The roofs below the tensor-core "
      "peak are the model's per-tile ceilings at hd128: exp2 on MUFU, shared memory, and exp2 "
      "emulated on the FMA pipe. The two exp2 roofs are the same work done all on one unit, so a "
      "kernel that splits the exponentials between them (FA4's software exp2) can sit above "
      "both. The bar chart under each roofline is the speed of light per unit: each unit's "
      "cycles per tile as a share of the tile's time.\n\n";
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
    out += decode_sentence(gpu, *bounds, points);
    const auto rows = unit_breakdowns(gpu);
    out += bound_sentence(rows) + "\n\n";
    out +=
        charts.embed(unit_breakdown_figure("units-" + gpu.id, gpu, rows, breakdown_caption(gpu)));
  }
  return out;
}

}  // namespace fa4::report
