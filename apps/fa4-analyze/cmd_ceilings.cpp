// fa4-analyze ceilings: measure this GPU's unit ceilings the way the model names them (dense
// bf16 MMA through wgmma, mma.sync and a cuBLAS GEMM; MUFU ex2; FP32 FMA; shared-memory reads;
// HBM copy), print each beside the hardware model's datasheet figure and record them with every
// sample. 'model' and 'predict' use them with --ceilings measured.
#include <memory>

#include <fmt/format.h>

#include "open_store.hpp"
#include "context.hpp"
#include "core/count_noun.hpp"
#include "hw/loader.hpp"
#include "no_device.hpp"
#include "run_info.hpp"
#include "store/store.hpp"
#include "user_error.hpp"
#if FA4_HAVE_BENCH
#include "bench/ceiling_probes.hpp"
#include "bench/sm_clock.hpp"
#include "kernels/registry.hpp"
#endif

namespace fa4::app {
namespace {

constexpr std::string_view kCeilingsNeeds = "ceilings needs one";

struct CeilingsOptions {
  std::vector<std::string> units;
  int samples = 20;
};

#if FA4_HAVE_BENCH

// The datasheet figure of the matched hardware model in the probe's per-SM-per-clock terms, and
// its JSON pointer; 0 when the model has no such figure (or no model matches).
double datasheet_per_sm_per_clk(const hw::Spec* gpu, bench::CeilingUnit unit) {
  if (!gpu) return 0;
  switch (unit) {
    case bench::CeilingUnit::mma_sync_bf16:
    case bench::CeilingUnit::wgmma_bf16:
    case bench::CeilingUnit::gemm_bf16:
      return gpu->per_sm.mma_flop_per_clk_bf16;
    case bench::CeilingUnit::mufu_ex2:
      return gpu->per_sm.mufu_ex2_per_clk;
    case bench::CeilingUnit::fma_fp32:
      return gpu->per_sm.fma_lanes_per_clk;
    case bench::CeilingUnit::smem_read:
      return gpu->per_sm.smem_bytes_per_clk;
    case bench::CeilingUnit::hbm_copy:
    case bench::CeilingUnit::hbm_read:
      return 0;
  }
  return 0;
}

std::vector<bench::CeilingUnit> pick_units(const std::vector<std::string>& names) {
  if (names.empty()) return bench::all_ceiling_units();
  std::vector<bench::CeilingUnit> out;
  for (const std::string& name : names) {
    bool found = false;
    for (bench::CeilingUnit unit : bench::all_ceiling_units())
      if (bench::to_string(unit) == name) {
        out.push_back(unit);
        found = true;
      }
    if (!found) {
      std::string known;
      for (bench::CeilingUnit unit : bench::all_ceiling_units())
        known += (known.empty() ? "" : ", ") + std::string(bench::to_string(unit));
      throw UserError(fmt::format("no ceiling unit '{}'; the units are {}", name, known));
    }
  }
  return out;
}

void run_ceilings(const Context& ctx, const CeilingsOptions& o) {
  const auto units = pick_units(o.units);
  if (o.samples < 3) throw UserError("--samples must be at least 3 (the median needs a spread)");
  const auto device = kernels::query_device();
  if (!device) throw UserError(no_device_message(kCeilingsNeeds, device.error().message));
  const auto specs = take(hw::load_all_specs(ctx.models_dir));
  const hw::Spec* gpu = hw::match_device_name(specs, device->name);
  std::vector<store::Ceiling> measured;
  fmt::print("{} (model: {}); the SM clock is read after each probe's samples\n", device->name,
             gpu ? gpu->id : "none");
  fmt::print("{:<14} {:>10} {:<8} {:>12} {:>10} {:>8}  {}\n", "unit", "value", "", "per SM/clk",
             "datasheet", "ratio", "method");
  for (bench::CeilingUnit unit : units) {
    const bench::CeilingResult r =
        take(bench::measure_ceiling(unit, o.samples, bench::current_sm_clock_mhz));
    const double sheet = datasheet_per_sm_per_clk(gpu, unit);
    const std::string ratio =
        sheet > 0 && r.per_sm_per_clk > 0 ? fmt::format("{:.3f}", r.per_sm_per_clk / sheet)
        : (unit == bench::CeilingUnit::hbm_copy || unit == bench::CeilingUnit::hbm_read) && gpu
            ? fmt::format("{:.3f}", r.value * 1e12 / gpu->hbm_bytes_per_s)
            : "-";
    fmt::print("{:<14} {:>10.2f} {:<8} {:>12.1f} {:>10.1f} {:>8}  {}\n", bench::to_string(unit),
               r.value, r.value_unit, r.per_sm_per_clk, sheet, ratio, r.method);
    measured.push_back({.device = device->name,
                        .unit = std::string(bench::to_string(unit)),
                        .value = r.value,
                        .value_unit = r.value_unit,
                        .per_sm_per_clk = r.per_sm_per_clk,
                        .sm_clock_mhz = r.sm_clock_mhz,
                        .median_s = r.median_s,
                        .samples_s = r.samples_s,
                        .method = r.method});
  }
  auto db = open_store(ctx);
  store::RunInfo info = gpu_run_info(store::RunKind::ceilings, ctx, device->name);
  const auto run_id = take(db.begin_run(info));
  take(db.record_ceilings(run_id, measured));
  fmt::print("run {}: recorded {} in {}; use them with 'predict --ceilings measured'\n", run_id,
             count_noun(measured.size(), "ceiling"), ctx.db_path);
}

#endif

void ceilings(const Context& ctx, const CeilingsOptions& o) {
#if FA4_HAVE_BENCH
  run_ceilings(ctx, o);
#else
  (void)ctx;
  (void)o;
  throw UserError(no_device_message(kCeilingsNeeds, kBuiltWithoutCuda));
#endif
}

void setup(CLI::App& app, Context& ctx) {
  auto o = std::make_shared<CeilingsOptions>();
  CLI::App* c = app.add_subcommand(
      "ceilings", "Measure this GPU's unit ceilings (MMA, MUFU ex2, FMA, shared memory, HBM) "
                  "and record them for --ceilings measured");
  c->add_option("--unit", o->units,
                "Units to measure (default all): wgmma_bf16, mma_sync_bf16, gemm_bf16, "
                "mufu_ex2, fma_fp32, smem_read, hbm_copy, hbm_read")
      ->delimiter(',');
  c->add_option("--samples", o->samples, "Timed launches per probe (after one warm-up)");
  c->callback([&ctx, o] { ceilings(ctx, *o); });
}

const SubcommandRegistration registration{75, setup};

}  // namespace
}  // namespace fa4::app
