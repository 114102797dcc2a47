#include "report/unit_breakdown.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "report/roofline.hpp"

namespace fa4::report {
namespace {

constexpr double kTie = 0.01;  // units within this share of the busiest one bound the tile too

bool binds(const model::TileCycles& c, model::Unit unit) {
  double busiest = 0;
  for (const UnitName& u : breakdown_units()) busiest = std::max(busiest, c.of(u.unit));
  return c.of(unit) >= (1 - kTie) * busiest;
}

}  // namespace

std::string UnitBreakdown::category() const {
  return fmt::format("{} {}{}", model::to_string(prediction.algorithm), to_string(prediction.pass),
                     mufu_only ? " (exp2 on MUFU only)" : "");
}

const std::vector<UnitName>& breakdown_units() {
  static const std::vector<UnitName> units = {{model::Unit::mma, "tensor-core MMA"},
                                              {model::Unit::exp_mufu, "exp2 on MUFU"},
                                              {model::Unit::fma, "FP32 pipe (issue)"},
                                              {model::Unit::smem, "shared memory"},
                                              {model::Unit::hbm, "HBM"}};
  return units;
}

std::string bound_units(const model::TileCycles& cycles) {
  std::string out;
  for (const UnitName& u : breakdown_units())
    if (binds(cycles, u.unit))
      out += (out.empty() ? "" : " = ") + std::string(model::to_string(u.unit));
  return out;
}

std::vector<UnitBreakdown> unit_breakdowns(const hw::Spec& gpu) {
  std::vector<UnitBreakdown> rows;
  const AttnShape shape = reference_shapes().front();
  for (model::Algorithm algorithm :
       {model::Algorithm::fa2, model::Algorithm::fa3, model::Algorithm::fa4})
    for (Pass pass : {Pass::fwd, Pass::bwd}) {
      model::Options options;
      options.algorithm = algorithm;
      options.pass = pass;
      if (algorithm == model::Algorithm::fa4 && pass == Pass::fwd) {
        model::Options mufu_only = options;
        mufu_only.exp_emulation = 0;
        if (auto p = model::predict(gpu, shape, mufu_only))
          rows.push_back({std::move(p).value(), true});
      }
      if (auto p = model::predict(gpu, shape, options)) rows.push_back({std::move(p).value()});
    }
  return rows;
}

Figure unit_breakdown_figure(const std::string& name, const hw::Spec& gpu,
                             const std::vector<UnitBreakdown>& rows, const std::string& caption) {
  Panel panel;
  panel.title = fmt::format("{}: {}", gpu.id, describe(reference_shapes().front()));
  panel.x = linear_axis("kernel and pass (a triangle over each unit that bounds the tile)");
  panel.y = linear_axis("cycles per tile, % of the tile's time", 0.0, 115.0);
  panel.legend = Legend::outside_right;
  for (const UnitBreakdown& row : rows) panel.categories.push_back(row.category());
  const auto& units = breakdown_units();
  Series bound{"bound unit", SeriesStyle::triangles, "#000000", {}};
  for (std::size_t u = 0; u < units.size(); ++u) {
    Series bars{units[u].name, SeriesStyle::bars, "", {}};
    for (std::size_t i = 0; i < rows.size(); ++i) {
      const model::Prediction& p = rows[i].prediction;
      const double share = 100 * p.tile_cycles.of(units[u].unit) / p.tile_time_cycles;
      bars.points.push_back({double(i), share, fmt::format("{:.0f}%", share)});
      if (binds(p.tile_cycles, units[u].unit))
        bound.points.push_back({bar_x(double(i), int(u), int(units.size())), share + 5,
                                std::string(model::to_string(units[u].unit))});
    }
    panel.series.push_back(std::move(bars));
  }
  panel.series.push_back(std::move(bound));
  Figure figure;
  figure.name = name;
  figure.title = fmt::format("Where the tile's time goes on {} (model)", gpu.id);
  figure.panels = {std::move(panel)};
  figure.panel_width = std::max<int>(900, 150 * int(rows.size()) + 300);
  figure.panel_height = 480;
  figure.caption = caption;
  return figure;
}

}  // namespace fa4::report
