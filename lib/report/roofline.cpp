#include "report/roofline.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "hw/loader.hpp"
#include "model/algorithm_traits.hpp"
#include "report/decode_model.hpp"

namespace fa4::report {
namespace {

constexpr std::int64_t kDecodeQueries = 16;  // at most this many query rows per sequence: decode
constexpr double kLabelLift = 1.3;  // a regime's name starts this factor above the chart's bottom

double decade_below(double v) { return std::pow(10.0, std::floor(std::log10(v))); }
double decade_above(double v) { return std::pow(10.0, std::ceil(std::log10(v))); }

// Each roof's colour, the same on every GPU; a measured roof takes its modeled one's colour.
constexpr const char* kHbmColour = "#444444";
constexpr const char* kHbmReadColour = "#2471a3";  // the measured read-only stream's slope
std::string roof_colour(const std::string& roof_name) {
  if (roof_name.starts_with("exp2 on MUFU")) return "#c0392b";
  if (roof_name.starts_with("shared memory")) return "#7d3c98";
  if (roof_name.starts_with("exp2 emulated")) return "#117a65";
  return "#000000";  // the tensor-core peak and the measured GEMM
}

std::string shape_columns(const AttnShape& s) {
  return fmt::format("{},{},{},{},{},{},{},{},{}", s.batch, s.heads_q, s.heads_kv, s.seqlen_q,
                     s.seqlen_k, s.headdim, s.headdim_v, s.causal ? 1 : 0, to_string(s.dtype));
}

// A CSV field: quoted when it holds a comma or a quote.
std::string csv_field(const std::string& text) {
  if (text.find_first_of(",\"\n") == std::string::npos) return text;
  std::string out = "\"";
  for (char c : text) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

}  // namespace

std::string regime(const AttnShape& s) {
  if (s.seqlen_q <= kDecodeQueries && s.seqlen_q < s.seqlen_k) return "decode";
  if (s.seqlen_q < s.seqlen_k) return "chunked prefill";
  return "prefill";
}

std::vector<AttnShape> reference_shapes() {
  AttnShape prefill;  // 16k tokens, hidden 2048: the FA3 and FA4 papers' setting
  prefill.batch = 2;
  prefill.heads_q = prefill.heads_kv = 16;
  prefill.seqlen_q = prefill.seqlen_k = 8192;
  AttnShape causal = prefill;
  causal.causal = true;
  AttnShape chunk;  // Llama-3 8B heads: the last 8192-token chunk of a 32k prompt
  chunk.batch = 1;
  chunk.heads_q = 32;
  chunk.heads_kv = 8;
  chunk.seqlen_q = 8192;
  chunk.seqlen_k = 32768;
  chunk.causal = true;
  AttnShape decode = chunk;  // 64 sequences, one new token each, against 8192 keys
  decode.batch = 64;
  decode.seqlen_q = 1;
  decode.seqlen_k = 8192;
  return {prefill, causal, chunk, decode};
}

RooflinePoint predicted_point(const model::Prediction& p, std::string kernel) {
  const double bytes = p.hbm_bytes > 0 ? p.hbm_bytes : attention_min_hbm_bytes(p.shape, p.pass);
  return {kernel.empty() ? std::string(model::to_string(p.algorithm)) : std::move(kernel),
          "predicted",
          regime(p.shape),
          p.shape,
          p.pass,
          attention_flops(p.shape, p.pass) / bytes,
          p.tflops,
          "model " + p.model_version};
}

RooflinePoint measured_point(const store::MeasurementRow& m, const hw::Spec* gpu) {
  return {m.kernel,
          m.source,
          regime(m.shape),
          m.shape,
          m.pass,
          attention_flops(m.shape, m.pass) / moved_hbm_bytes(m.kernel, m.shape, m.pass, gpu),
          m.tflops,
          fmt::format("{}, run {}, {}, rev {}", m.device, m.run_id, m.started_at.substr(0, 10),
                      m.revision)};
}

std::optional<RooflinePoint> predicted_decode_point(const hw::Spec& gpu, const AttnShape& shape) {
  auto options = our_decode_options("fa3_decode", shape);
  if (!options) return std::nullopt;
  options->after_l2_flush = false;  // a serving step, not the harness's timed launch
  const auto p = model::predict(gpu, shape, *options);
  if (!p) return std::nullopt;
  return predicted_point(*p, "fa3_decode");
}

double bandwidth_tb_s(const RooflinePoint& p) {
  return p.intensity > 0 ? p.tflops / p.intensity : 0;
}

std::string regime_label(const RooflinePoint& p) {
  return p.shape.causal && p.regime == "prefill" ? "causal prefill" : p.regime;
}

std::string point_label(const RooflinePoint& p) { return p.kernel + " " + regime_label(p); }

Figure roofline_figure(const std::string& name, const hw::Spec& gpu, const RooflineBounds& b,
                       const std::vector<RooflinePoint>& points, const std::string& caption) {
  double x_lo = 1, x_hi = 1, y_lo = 10, y_hi = 10;
  for (const Roof& r : b.roofs) {
    x_hi = std::max(x_hi, r.tflops / b.hbm_tb_s);
    y_hi = std::max(y_hi, r.tflops);
  }
  for (const RooflinePoint& p : points) {
    x_lo = std::min(x_lo, p.intensity);
    x_hi = std::max(x_hi, p.intensity);
    y_lo = std::min(y_lo, p.tflops);
  }
  x_lo = decade_below(x_lo / 2);
  x_hi = decade_above(x_hi * 2);
  y_lo = decade_below(y_lo / 10);  // a free decade at the bottom for the regimes' names
  y_hi = decade_above(y_hi * 1.5);

  Panel panel;
  panel.title = fmt::format("{} ({}), {}", gpu.name, gpu.id, to_string(b.pass));
  panel.x = log_axis("arithmetic intensity (FLOP per HBM byte)", 10, x_lo, x_hi);
  panel.y = log_axis("TFLOP/s", 10, y_lo, y_hi);
  panel.legend = Legend::outside_right;
  // The HBM slope up to the highest roof of its kind (modeled or measured).
  const auto slope = [&](double tb_s, std::string series_name, SeriesStyle style,
                         const char* colour) {
    double top = 0;
    for (const Roof& r : b.roofs)
      if (r.measured == (style == SeriesStyle::dashed_line)) top = std::max(top, r.tflops);
    if (top <= 0) top = b.roofs.front().tflops;  // no measured roof: up to the dense peak
    panel.series.push_back(
        {std::move(series_name), style, colour, {{x_lo, tb_s * x_lo, ""}, {top / tb_s, top, ""}}});
  };
  slope(b.hbm_tb_s, fmt::format("HBM {:.2f} TB/s", b.hbm_tb_s), SeriesStyle::roof, kHbmColour);
  if (b.measured_hbm_tb_s > 0)
    slope(b.measured_hbm_tb_s, fmt::format("HBM copy {:.2f} TB/s (measured)", b.measured_hbm_tb_s),
          SeriesStyle::dashed_line, kHbmColour);
  if (b.measured_hbm_read_tb_s > 0)
    slope(b.measured_hbm_read_tb_s,
          fmt::format("HBM read {:.2f} TB/s (measured)", b.measured_hbm_read_tb_s),
          SeriesStyle::dashed_line, kHbmReadColour);
  for (const Roof& r : b.roofs) {
    const double bandwidth =
        r.measured && b.measured_hbm_tb_s > 0 ? b.measured_hbm_tb_s : b.hbm_tb_s;
    panel.series.push_back({fmt::format("{}: {:.0f}", r.name, r.tflops),
                            r.measured ? SeriesStyle::dashed_line : SeriesStyle::roof,
                            roof_colour(r.name),
                            {{r.tflops / bandwidth, r.tflops, ""}, {x_hi, r.tflops, ""}}});
  }
  // Points: one series per kernel and origin, in the order they come; predicted ones are triangles.
  for (const RooflinePoint& p : points) {
    const bool predicted = p.origin == "predicted";
    const std::string series_name =
        predicted ? p.kernel + " (model)" : fmt::format("{} ({})", p.kernel, p.origin);
    auto it = std::find_if(panel.series.begin(), panel.series.end(),
                           [&](const Series& s) { return s.name == series_name; });
    if (it == panel.series.end()) {
      panel.series.push_back(
          {series_name, predicted ? SeriesStyle::triangles : SeriesStyle::points, p.kernel, {}});
      it = std::prev(panel.series.end());
    }
    it->points.push_back({p.intensity, p.tflops, point_label(p)});
  }
  // Each regime named once, reading upwards from the bottom of the chart at its first point.
  Series regimes{"regimes", SeriesStyle::vertical_labels, kHbmColour, {}};
  for (const RooflinePoint& p : points)
    if (std::none_of(regimes.points.begin(), regimes.points.end(),
                     [&](const ChartPoint& c) { return c.label == regime_label(p); }))
      regimes.points.push_back({p.intensity, y_lo * kLabelLift, regime_label(p)});
  panel.series.push_back(std::move(regimes));
  Figure figure;
  figure.name = name;
  figure.title = fmt::format("Roofline of attention on {} (bf16)", gpu.id);
  figure.panels = {std::move(panel)};
  figure.panel_width = 1100;
  figure.panel_height = 620;
  figure.caption = caption;
  return figure;
}

std::string roofline_csv(const std::vector<RooflinePoint>& points) {
  std::string out =
      "kernel,origin,regime,batch,heads_q,heads_kv,seqlen_q,seqlen_k,headdim,headdim_v,causal,"
      "dtype,pass,flop_per_byte,tflops,provenance\n";
  for (const RooflinePoint& p : points)
    out += fmt::format("{},{},{},{},{},{:.6g},{:.6g},{}\n", csv_field(p.kernel),
                       csv_field(p.origin), p.regime, shape_columns(p.shape), to_string(p.pass),
                       p.intensity, p.tflops, csv_field(p.provenance));
  return out;
}

std::string roofline_json(const RooflineBounds& b, const std::vector<RooflinePoint>& points) {
  nlohmann::json roofs = nlohmann::json::array();
  for (const Roof& r : b.roofs)
    roofs.push_back({{"name", r.name}, {"tflops", r.tflops}, {"measured", r.measured}});
  nlohmann::json out = {{"gpu", b.gpu},
                        {"pass", to_string(b.pass)},
                        {"hbm_tb_s", b.hbm_tb_s},
                        {"measured_hbm_tb_s", b.measured_hbm_tb_s},
                        {"measured_hbm_read_tb_s", b.measured_hbm_read_tb_s},
                        {"ceiling_algorithm", b.ceiling_algorithm},
                        {"measured_from", b.measured_from},
                        {"roofs", roofs},
                        {"points", nlohmann::json::array()}};
  for (const RooflinePoint& p : points)
    out["points"].push_back({{"kernel", p.kernel},
                             {"origin", p.origin},
                             {"regime", p.regime},
                             {"shape", describe(p.shape)},
                             {"pass", to_string(p.pass)},
                             {"flop_per_byte", p.intensity},
                             {"tflops", p.tflops},
                             {"provenance", p.provenance}});
  return out.dump(2) + "\n";
}

}  // namespace fa4::report
