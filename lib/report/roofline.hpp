// The roofline of attention on one GPU: x = arithmetic intensity (FLOPs per HBM byte, the FLOP
// and byte counts of core/shape.hpp), y = TFLOP/s. Roofs: HBM bandwidth, the dense tensor-core
// peak, and the attention ceilings the model's per-tile cycles give per head dim (exp2 on MUFU,
// shared memory, exp2 emulated on the FMA pipe); the same from the measured unit ceilings where the
// database has them. Points: kernels predicted by the model and measured (ours and the peers).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/shape.hpp"
#include "hw/measured_ceilings.hpp"
#include "hw/spec.hpp"
#include "model/model.hpp"
#include "model/roofline_bounds.hpp"
#include "report/chart.hpp"
#include "store/measured_ceilings.hpp"
#include "store/store.hpp"

namespace fa4::report {

// The roofs (model/roofline_bounds.hpp), as the charts take them.
using model::Roof;
using model::roofline_bounds;
using model::RooflineBounds;

using store::measured_ceilings_of;  // store/measured_ceilings.hpp

struct RooflinePoint {
  std::string kernel;  // "fa4", "sdpa_cudnn"
  std::string origin;  // "predicted", "ours", "peer:torch-cudnn"
  std::string regime;  // "prefill", "chunked prefill", "decode"
  AttnShape shape;
  Pass pass = Pass::fwd;
  double intensity = 0;  // FLOPs per HBM byte
  double tflops = 0;
  std::string provenance;  // "model 1" or "NVIDIA H200, run 2, 2026-11-23, rev 684356b-dirty"
};

// Where a shape sits: one query row per sequence (decode), fewer queries than keys (a prefill
// chunk against a longer cache), or as many (prefill).
std::string regime(const AttnShape& shape);

// One shape of each regime at head dim 128 (bf16, GQA 32/8 heads where the regime is an LLM's):
// prefill non-causal and causal at seqlen 8192 (16 heads, batch 2: the FA3 and FA4 papers'
// 16k tokens, hidden 2048), the last 8192-query chunk of a 32768-token prompt, decode of 64
// sequences against 8192 keys.
std::vector<AttnShape> reference_shapes();

// x: the FLOPs over the bytes the kernel moves (decode_model.hpp's moved_hbm_bytes: a decode
// prediction's own count, Prediction::hbm_bytes, else the fewest a fused kernel moves). `kernel`
// names the point where the algorithm's name does not ("fa3_decode"); "" for the algorithm's.
RooflinePoint predicted_point(const model::Prediction& prediction, std::string kernel = "");
// The same for a measurement; `gpu`, the hardware model of its device, counts our decode kernels'
// partials and block table as the model does (without it: the fewest bytes).
RooflinePoint measured_point(const store::MeasurementRow& row, const hw::Spec* gpu = nullptr);
// Our decode kernel (fa3_decode: GQA-packed rows, the partition it chooses) predicted at `shape` as
// served (no L2 flush before it); nullopt where the model does not price it (fa3 needs Hopper).
std::optional<RooflinePoint> predicted_decode_point(const hw::Spec& gpu, const AttnShape& shape);
// The HBM bandwidth a point ran at, in TB/s: its TFLOP/s over its FLOPs per byte.
double bandwidth_tb_s(const RooflinePoint& point);

// "causal prefill" for a causal prefill, else the regime.
std::string regime_label(const RooflinePoint& point);
// One label per point: "fa4 decode", "fa3 causal prefill".
std::string point_label(const RooflinePoint& point);

// The chart: roofs as lines (measured ones dashed: the HBM copy and read-only streams, the GEMM and
// the attention ceilings from the measured units), points one series per kernel and origin
// (predicted ones triangles, measured ones circles), each regime named at the chart's bottom.
// `caption` says where the figures come from.
Figure roofline_figure(const std::string& name, const hw::Spec& gpu, const RooflineBounds& bounds,
                       const std::vector<RooflinePoint>& points, const std::string& caption);

// The points as the chart draws them, one per line: CSV with a header, or a JSON array.
std::string roofline_csv(const std::vector<RooflinePoint>& points);
std::string roofline_json(const RooflineBounds& bounds, const std::vector<RooflinePoint>& points);

}  // namespace fa4::report
