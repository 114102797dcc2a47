#include "model/describe.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "model/algorithm_traits.hpp"

namespace fa4::model {

std::string prediction_text(const hw::Spec& gpu, const Prediction& p) {
  const TileCycles& c = p.tile_cycles;
  std::string out = fmt::format("{} {} {} on {} ({})\n", to_string(p.algorithm), to_string(p.pass),
                                describe(p.shape), gpu.id, gpu.name);
  out += fmt::format("tile {}x{}", p.tile.m, p.tile.n);
  if (p.algorithm == Algorithm::fa4)
    out += fmt::format(", exp emulation {:.1f}%, conditional rescaling {}", 100 * p.exp_emulation,
                       p.conditional_rescale ? "on" : "off");
  if (p.row_max_on_load) out += ", row max from the tensor-memory load";
  if (p.two_cta) out += ", 2-CTA";
  out += "\n\nper-tile cycles (one SM, one tile, at each unit's own rate)\n";
  const std::pair<const char*, double> rows[] = {
      {"mma", c.mma},   {"exp_mufu", c.exp_mufu}, {"exp_fma", c.exp_fma}, {"fma (all)", c.fma},
      {"smem", c.smem}, {"hbm (share)", c.hbm}};
  for (const auto& [name, cycles] : rows)
    out += fmt::format("  {:<12} {:>10.0f}{}\n", name, cycles,
                       cycles == c.max() && cycles > 0 ? "  <- tile bottleneck" : "");
  if (c.tmem_bytes > 0)
    out += fmt::format("  {:<12} {:>10.0f} bytes (cycles not modeled: no published TMEM rate)\n",
                       "tmem", c.tmem_bytes);
  if (combines_streams_by_norm(gpu, p.algorithm, p.pass))
    out += fmt::format(
        "\ntile time {:.0f} cycles = (T^p + S^p)^(1/p), T {:.0f}, S {:.0f} (every unit at the "
        "sustained share{}; p = stream_norm_exponent)\n",
        p.tile_time_cycles, p.tensor_stream_cycles, p.softmax_stream_cycles,
        is_blackwell_ultra(gpu) ? ", T at ultra_forward_tensor_share" : "");
  else if (p.algorithm != Algorithm::naive)
    out += fmt::format("\ntile time {:.0f} cycles = max(T {:.0f}, S {:.0f}) + {}\n",
                       p.tile_time_cycles, p.tensor_stream_cycles, p.softmax_stream_cycles,
                       hides_per_longer_stream(gpu, p.algorithm, p.pass)
                           ? "max(0, min(T, S) - pingpong_hidden_share * max(T, S))"
                                : "(1 - overlap) * min(T, S)");
  out += fmt::format("CTAs {:.0f}, tiles {:.0f}, waves {:.2f}\n", p.ctas, p.tiles, p.waves);
  out += fmt::format("\npredicted: {:.3f} ms, {:.0f} TFLOP/s, {:.1f}% of the {} peak, bound by {}\n",
                     p.time_s * 1e3, p.tflops, 100 * p.fraction_of_peak, to_string(p.shape.dtype),
                     to_string(p.bottleneck));
  out += fmt::format("\nterms paid beyond {}'s core: {}\n", to_string(p.algorithm),
                     p.terms.empty() ? std::string("none")
                                     : fmt::format("{}", fmt::join(p.terms, "; ")));
  out += fmt::format("{} factors that are not hardware rates (--factors lists them)\n",
                     p.factors.size());
  return out;
}

std::string factors_text(const Prediction& p) {
  std::string out = "factors that are not hardware rates\n";
  for (const Factor& f : p.factors)
    out += fmt::format("  {:<18} {:<8.4g} {}{}\n", f.name, f.value, f.meaning,
                       f.fitted_to.empty() ? "" : fmt::format(" [{}]", f.fitted_to));
  return out;
}

nlohmann::json prediction_json(const Prediction& p) {
  const TileCycles& c = p.tile_cycles;
  const AttnShape& s = p.shape;
  nlohmann::json factors = nlohmann::json::array();
  nlohmann::json shape = {
      {"batch", s.batch},         {"heads", s.heads_q},     {"heads_kv", s.heads_kv},
      {"seqlen_q", s.seqlen_q},   {"seqlen_k", s.seqlen_k}, {"headdim", s.headdim},
      {"headdim_v", s.headdim_v}, {"causal", s.causal},     {"dtype", to_string(s.dtype)}};
  if (s.window) shape["window"] = s.window;  // the sweep files' key (core/sweep.hpp)
  for (const Factor& f : p.factors)
    factors.push_back(
        {{"name", f.name}, {"value", f.value}, {"meaning", f.meaning}, {"fitted_to", f.fitted_to}});
  return {
      {"gpu", p.gpu},
      {"kernel", to_string(p.algorithm)},
      {"pass", to_string(p.pass)},
      {"shape", shape},
      {"options",
       {{"exp_emulation", p.exp_emulation}, {"conditional_rescale", p.conditional_rescale},
        {"row_max_on_load", p.row_max_on_load}, {"two_cta", p.two_cta}}},
      {"tile",
       {{"m", p.tile.m},
        {"n", p.tile.n},
        {"cycles",
         {{"mma", c.mma}, {"exp_mufu", c.exp_mufu}, {"exp_fma", c.exp_fma}, {"fma", c.fma},
          {"smem", c.smem}, {"tmem", c.tmem}, {"hbm", c.hbm}}},
        {"tmem_bytes", c.tmem_bytes},
        {"bottleneck", to_string(c.bottleneck)},
        {"time_cycles", p.tile_time_cycles},
        {"tensor_stream_cycles", p.tensor_stream_cycles},
        {"softmax_stream_cycles", p.softmax_stream_cycles}}},
      {"kernel_level", {{"ctas", p.ctas}, {"tiles", p.tiles}, {"waves", p.waves}}},
      {"predicted",
       {{"time_ms", p.time_s * 1e3}, {"tflops", p.tflops},
        {"fraction_of_peak", p.fraction_of_peak}, {"flops", p.flops},
        {"bottleneck", to_string(p.bottleneck)}}},
      {"factors", factors},
      {"model_version", p.model_version},
  };
}

}  // namespace fa4::model
