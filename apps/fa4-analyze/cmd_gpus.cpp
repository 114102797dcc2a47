// fa4-analyze gpus: the hardware models side by side, with ratio rows that show FA4's asymmetric
// scaling (tensor cores doubled from H100 to B200, MUFU and shared memory did not); `gpus show
// NAME` prints one model with the source of every figure. --json prints the model-file schema
// plus the derived dense peaks.
#include <fmt/format.h>

#include <algorithm>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <variant>
#include <vector>

#include "context.hpp"
#include "figure_text.hpp"
#include "hw/figures.hpp"
#include "hw/loader.hpp"
#include "hw/spec_json.hpp"
#include "report/table_format.hpp"
#include "report/unit_scaling.hpp"
#include "user_error.hpp"

namespace fa4::app {
namespace {

constexpr Dtype kPeakDtypes[] = {Dtype::bf16, Dtype::fp8};

struct GpusOptions {
  std::string name;  // gpus show NAME
  bool json = false;
};

std::string peak_label(Dtype dtype) { return fmt::format("dense {} peak", to_string(dtype)); }

std::string format_peak(double flops) {
  return flops == 0 ? "none" : fmt::format("{:.0f} TFLOP/s", flops / 1e12);
}

std::string peak_derivation(const hw::Spec& gpu, Dtype dtype) {
  return fmt::format("derived: {:.10g} FLOP/clk/SM x {} SMs x {:.10g} MHz",
                     gpu.mma_flop_per_clk(dtype), gpu.sms, gpu.peak_clock_mhz);
}

nlohmann::ordered_json to_json_with_peaks(const hw::Spec& gpu) {
  nlohmann::ordered_json json = gpu;
  for (Dtype dtype : {Dtype::bf16, Dtype::fp16, Dtype::fp8})
    json["peak_flops"][std::string(to_string(dtype))] = gpu.peak_flops(dtype);
  return json;
}

// A row: its label, then a cell per GPU.
using Row = std::vector<report::Cell>;

// Per-SM, per-clock rates relative to the baseline GPU ("2x"); none without the baseline.
std::vector<Row> ratio_rows(const std::vector<hw::Spec>& specs) {
  const auto scaling = report::scaling_against_baseline(specs);
  if (!scaling) return {};
  const std::pair<std::string_view, double report::UnitScaling::*> rates[] = {
      {"MMA bf16", &report::UnitScaling::mma_bf16},
      {"MUFU ex2", &report::UnitScaling::mufu_ex2},
      {"SMEM B", &report::UnitScaling::smem}};
  std::vector<Row> rows;
  for (const auto& [name, rate] : rates) {
    Row row{fmt::format("{}/clk/SM vs {}", name, scaling->baseline->id)};
    for (const report::UnitScaling& gpu : scaling->per_gpu)
      row.push_back(fmt::format("{:.3g}x", gpu.*rate));
    rows.push_back(std::move(row));
  }
  return rows;
}

// A column per GPU (right-aligned), a row per figure, peak and ratio.
report::Table models_table(const std::vector<hw::Spec>& specs) {
  report::Table table{{{""}}, {}};
  for (const hw::Spec& gpu : specs) table.columns.push_back({gpu.id, report::Align::right});
  Row architecture{"architecture"};
  for (const hw::Spec& gpu : specs)
    // Built in place: GCC 12 warns (-Wmaybe-uninitialized, a false positive) on moving a
    // temporary Cell that holds a string.
    architecture.emplace_back(std::in_place_type<std::string>, hw::to_string(gpu.architecture));
  table.rows.push_back(std::move(architecture));
  for (const hw::Figure& figure : hw::figures()) {
    Row row{std::string(figure.label)};
    for (const hw::Spec& gpu : specs) row.push_back(format_figure(figure, gpu));
    table.rows.push_back(std::move(row));
  }
  for (Dtype dtype : kPeakDtypes) {
    Row row{peak_label(dtype)};
    for (const hw::Spec& gpu : specs) row.push_back(format_peak(gpu.peak_flops(dtype)));
    table.rows.push_back(std::move(row));
  }
  for (Row& row : ratio_rows(specs)) table.rows.push_back(std::move(row));
  return table;
}

void print_table(const std::vector<hw::Spec>& specs) {
  fmt::print("{}\n", report::format_text(models_table(specs), {.rule = false, .row_count = false}));
  for (const hw::Spec& gpu : specs) fmt::print("{}: {}\n", gpu.id, gpu.name);
  fmt::print("Sources of every figure: fa4-analyze gpus show NAME\n");
}

void print_one(const hw::Spec& gpu) {
  fmt::print("{}: {}\narchitecture: {}\ndevice names: {}\n\n", gpu.id, gpu.name,
             hw::to_string(gpu.architecture), fmt::join(gpu.device_names, ", "));
  std::size_t label_width = 0;
  for (const hw::Figure& figure : hw::figures())
    label_width = std::max(label_width, figure.label.size());
  const auto print_figure = [&](std::string_view label, std::string_view value,
                                std::string_view source) {
    fmt::print("{:<{}}  {}\n    {}\n", label, label_width, value, source);
  };
  for (const hw::Figure& figure : hw::figures())
    print_figure(figure.label, format_figure(figure, gpu), hw::source_of(gpu, figure.pointer));
  for (Dtype dtype : kPeakDtypes)
    print_figure(peak_label(dtype), format_peak(gpu.peak_flops(dtype)),
                 peak_derivation(gpu, dtype));
}

void run_list(const Context& ctx, const GpusOptions& o) {
  const std::vector<hw::Spec> specs = take(hw::load_all_specs(ctx.models_dir));
  if (o.json) {
    nlohmann::ordered_json array = nlohmann::ordered_json::array();
    for (const hw::Spec& gpu : specs) array.push_back(to_json_with_peaks(gpu));
    fmt::print("{}\n", array.dump(2));
    return;
  }
  print_table(specs);
}

void run_show(const Context& ctx, const GpusOptions& o) {
  const std::vector<hw::Spec> specs = take(hw::load_all_specs(ctx.models_dir));
  const hw::Spec& gpu = *take(hw::find_spec(specs, o.name));
  if (o.json)
    fmt::print("{}\n", to_json_with_peaks(gpu).dump(2));
  else
    print_one(gpu);
}

void setup(CLI::App& app, Context& ctx) {
  auto o = std::make_shared<GpusOptions>();
  CLI::App* gpus = app.add_subcommand(
      "gpus", "The hardware models side by side: per-SM unit rates, clocks and memory");
  gpus->add_flag("--json", o->json, "Print a JSON array of the models");
  CLI::App* show =
      gpus->add_subcommand("show", "One hardware model with the source of each figure");
  show->add_option("name", o->name, "Model id (as `fa4-analyze gpus` lists) or a device name")
      ->required();
  show->add_flag("--json", o->json, "Print one JSON object");
  gpus->callback([&ctx, o, show] {
    if (show->parsed())
      run_show(ctx, *o);
    else
      run_list(ctx, *o);
  });
}

const SubcommandRegistration registration{10, setup};

}  // namespace
}  // namespace fa4::app
