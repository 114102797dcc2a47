#include "report/record_chart.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <string>

namespace fa4::report {
namespace {

constexpr double kBand = 0.10;  // the +-10% band around y = x

struct GpuPoints {
  Series held_out{"held out", SeriesStyle::points, "held out", {}};
  Series fit{"fit", SeriesStyle::triangles, "fit", {}};
  Series outside{"outside the bounds", SeriesStyle::points, "#9a9a9a", {}};
  double low = 0, high = 0;  // TFLOP/s over both axes
};

Series line(std::string name, SeriesStyle style, std::string colour, double low, double high,
            double scale) {
  return {std::move(name), style, std::move(colour),
          {{low, low * scale, ""}, {high, high * scale, ""}}};
}

}  // namespace

Figure record_chart(const std::vector<const FigureVsModel*>& record) {
  std::map<std::string, GpuPoints> gpus;
  for (const FigureVsModel* c : record) {
    if (!c->predicted_tflops || !c->gpu_model) continue;
    const double published = c->figure->tflops, model = *c->predicted_tflops;
    if (!(published > 0) || !(model > 0)) continue;
    GpuPoints& g = gpus[c->gpu_model->id];
    const ChartPoint point{published, model, {}};
    if (!within_bounds(*c->figure))
      g.outside.points.push_back(point);
    else if (held_out(*c->figure))
      g.held_out.points.push_back(point);
    else
      g.fit.points.push_back(point);
    const double low = std::min(published, model), high = std::max(published, model);
    g.low = g.low == 0 ? low : std::min(g.low, low);
    g.high = std::max(g.high, high);
  }
  Figure figure;
  figure.name = "record-vs-model";
  figure.title = "The model against the published record: one point per figure (TFLOP/s)";
  for (auto& [gpu, g] : gpus) {
    const double low = g.low / 1.25, high = g.high * 1.25;
    Panel panel;
    panel.title =
        fmt::format("{} ({} held out, {} fit, {} outside the bounds)", gpu,
                    g.held_out.points.size(), g.fit.points.size(), g.outside.points.size());
    // Logarithmic where the figures span a decade or more; within one, a log axis would label a
    // single tick.
    const auto axis = [&, log = g.high >= 10 * g.low](std::string title) {
      return log ? log_axis(std::move(title), 10, low, high)
                 : linear_axis(std::move(title), low, high);
    };
    panel.x = axis("published TFLOP/s");
    panel.y = axis("model TFLOP/s");
    panel.series.push_back(line("y = x", SeriesStyle::roof, "#333333", low, high, 1));
    for (const double scale : {1 + kBand, 1 - kBand})
      panel.series.push_back(line("+-10%", SeriesStyle::dashed_line, "#8c8c8c", low, high, scale));
    for (Series* s : {&g.held_out, &g.fit, &g.outside})
      if (!s->points.empty()) panel.series.push_back(std::move(*s));
    figure.panels.push_back(std::move(panel));
  }
  figure.columns = 3;
  figure.panel_width = 520;
  figure.panel_height = 480;
  figure.caption =
      "Figures: data/published/record, each predicted on the GPU model of its machine as its "
      "profile makes it (lib/model/profiles.cpp); bf16 and fp8 together. Points on the line are "
      "exact; above it the model is faster than the figure.";
  return figure;
}

}  // namespace fa4::report
