#include "gpu_predictions.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "gpu_difference.hpp"
#include "model/describe.hpp"
#include "report/table_format.hpp"

namespace fa4::app {
namespace {

using report::Cell;

// The difference of each GPU from the first, or "" for the first.
std::vector<std::string> differences(const ByGpu& g) {
  std::vector<std::string> out;
  for (const GpuPrediction& p : g.predictions)
    out.push_back(&p == &g.predictions.front()
                      ? ""
                      : why_they_differ(*p.gpu, p.prediction, *g.predictions.front().gpu,
                                        g.predictions.front().prediction));
  return out;
}

std::string text(std::string_view s) { return std::string(s); }

}  // namespace

std::string profile_line(const GpuPrediction& p) {
  return fmt::format("profile {}: {}", p.profile,
                     p.paid.empty() ? std::string("its algorithm's terms alone")
                                    : fmt::format("{}", fmt::join(p.paid, "; ")));
}

std::string by_gpu_text(const ByGpu& g) {
  const model::Prediction& first = g.predictions.front().prediction;
  std::string out = fmt::format("{} {} {} on {} GPUs\n", model::to_string(first.algorithm),
                                to_string(first.pass), describe(first.shape),
                                g.predictions.size());
  for (const GpuPrediction& p : g.predictions)
    if (!p.profile.empty()) out += fmt::format("{}: {}\n", p.gpu->id, profile_line(p));
  report::Table t{{{""}}, {}};
  for (const GpuPrediction& p : g.predictions) t.columns.push_back({p.gpu->id, report::Align::right});
  const auto add = [&](std::string label, auto cell) {
    std::vector<Cell> row{std::move(label)};
    for (const GpuPrediction& p : g.predictions) row.push_back(cell(p.prediction));
    t.rows.push_back(std::move(row));
  };
  const auto cycles = [&](std::string label, double model::TileCycles::*unit) {
    add(std::move(label), [unit](const model::Prediction& p) -> Cell {
      return fmt::format("{:.0f}", p.tile_cycles.*unit);
    });
  };
  add("tile", [](const model::Prediction& p) -> Cell {
    return fmt::format("{}x{}", p.tile.m, p.tile.n);
  });
  cycles("mma cycles/tile", &model::TileCycles::mma);
  cycles("exp_mufu cycles/tile", &model::TileCycles::exp_mufu);
  cycles("exp_fma cycles/tile", &model::TileCycles::exp_fma);
  cycles("fma (all) cycles/tile", &model::TileCycles::fma);
  cycles("smem cycles/tile", &model::TileCycles::smem);
  cycles("hbm (share) cycles/tile", &model::TileCycles::hbm);
  add("tile bottleneck",
      [](const model::Prediction& p) -> Cell { return text(to_string(p.tile_cycles.bottleneck)); });
  add("tile time (cycles)",
      [](const model::Prediction& p) -> Cell { return fmt::format("{:.0f}", p.tile_time_cycles); });
  add("waves", [](const model::Prediction& p) -> Cell { return fmt::format("{:.2f}", p.waves); });
  add("time (ms)",
      [](const model::Prediction& p) -> Cell { return fmt::format("{:.3f}", p.time_s * 1e3); });
  add("TFLOP/s", [](const model::Prediction& p) -> Cell { return fmt::format("{:.0f}", p.tflops); });
  add("share of peak", [](const model::Prediction& p) -> Cell {
    return fmt::format("{:.1f}%", 100 * p.fraction_of_peak);
  });
  add("bound by", [](const model::Prediction& p) -> Cell { return text(to_string(p.bottleneck)); });
  out += "\n" + report::format_text(t, {.rule = false, .row_count = false});
  for (const GpuRefusal& r : g.refused) out += fmt::format("{}: refused: {}\n", r.gpu, r.reason);
  const auto lines = differences(g);
  if (lines.size() > 1) out += "\n";
  for (std::size_t i = 1; i < lines.size(); ++i) out += lines[i] + "\n";
  return out;
}

report::Table by_gpu_rows(const ByGpu& g) {
  using report::Align;
  report::Table t{{"gpu",
                   "kernel",
                   "pass",
                   "problem",
                   "tile",
                   {"mma_cycles", Align::right},
                   {"exp_mufu_cycles", Align::right},
                   {"exp_fma_cycles", Align::right},
                   {"fma_cycles", Align::right},
                   {"smem_cycles", Align::right},
                   {"hbm_cycles", Align::right},
                   "tile_bottleneck",
                   {"tile_time_cycles", Align::right},
                   {"waves", Align::right},
                   {"time_ms", Align::right},
                   {"tflops", Align::right},
                   {"fraction_of_peak", Align::right},
                   "bottleneck",
                   "why"},
                  {}};
  const auto lines = differences(g);
  for (std::size_t i = 0; i < g.predictions.size(); ++i) {
    const model::Prediction& p = g.predictions[i].prediction;
    const model::TileCycles& c = p.tile_cycles;
    t.rows.push_back({p.gpu, text(model::to_string(p.algorithm)), text(to_string(p.pass)),
                      describe(p.shape), fmt::format("{}x{}", p.tile.m, p.tile.n), c.mma,
                      c.exp_mufu, c.exp_fma, c.fma, c.smem, c.hbm,
                      text(model::to_string(c.bottleneck)), p.tile_time_cycles, p.waves,
                      p.time_s * 1e3, p.tflops, p.fraction_of_peak,
                      text(model::to_string(p.bottleneck)), lines[i]});
  }
  return t;
}

nlohmann::json by_gpu_json(const ByGpu& g) {
  nlohmann::json out = {{"gpus", nlohmann::json::array()},
                        {"refused", nlohmann::json::array()},
                        {"differences", nlohmann::json::array()}};
  for (const GpuPrediction& p : g.predictions) {
    nlohmann::json one = model::prediction_json(p.prediction);
    if (!p.profile.empty()) one["profile"] = {{"name", p.profile}, {"paid", p.paid}};
    out["gpus"].push_back(std::move(one));
  }
  for (const GpuRefusal& r : g.refused)
    out["refused"].push_back({{"gpu", r.gpu}, {"reason", r.reason}});
  const auto lines = differences(g);
  for (std::size_t i = 1; i < lines.size(); ++i)
    out["differences"].push_back({{"gpu", g.predictions[i].gpu->id},
                                  {"against", g.predictions.front().gpu->id},
                                  {"why", lines[i]}});
  return out;
}

}  // namespace fa4::app
