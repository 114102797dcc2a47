// fa4-analyze bench: check and time registered kernels on the GPU (lib/bench) and record every
// measurement, with its samples, linked to the model's prediction for the same shape on the
// detected GPU's hardware model (lib/orchestration: each kernel's model configuration). --pass
// bwd benches the backward kernels: an untimed forward kernel (fa3 where it runs, else fa2) makes
// O and LSE, the gradients are checked against the oracle, then the whole backward is timed.
// Without a CUDA device it says so and exits 1.
#include <unistd.h>

#include <cstdio>
#include <memory>
#include <random>

#include <fmt/format.h>

#include "open_store.hpp"
#include "context.hpp"
#include "core/sweep.hpp"
#include "hw/loader.hpp"
#include "no_device.hpp"
#include "peer_runner.hpp"
#include "run_info.hpp"
#include "shape_options.hpp"
#include "store/store.hpp"
#include "user_error.hpp"
#if FA4_HAVE_BENCH
#include "bench/attention_bwd_run.hpp"
#include "bench/attention_run.hpp"
#include "bench/sm_clock.hpp"
#include "orchestration/bench_prediction.hpp"
#include "orchestration/kernel_models.hpp"
#include "orchestration/stop_signal.hpp"
#include "orchestration/sweep_loop.hpp"
#endif

namespace fa4::app {
namespace {

constexpr std::string_view kBenchNeeds = "bench needs one";

struct BenchOptions {
  std::vector<std::string> kernels;
  std::vector<std::string> sweeps;
  ShapeOptions shape;
  std::string pass = "fwd";
  bool peers = false;
  bool resume = false;
  PeerRunOptions peer;
};

#if FA4_HAVE_BENCH

// Recorded with an ok measurement whose samples drifted (core/stats.hpp, sample_flag).
std::string drift_warning(double drift) {
  return fmt::format("samples drifted {:+.1f}% from the first quarter to the last: the GPU changed "
                     "speed mid-measurement (clock or power limit?); compare kernels in "
                     "alternating rounds",
                     100 * drift);
}

// Recorded with an ok measurement whose samples spread (core/stats.hpp, sample_flag).
std::string spread_warning(double relative_iqr) {
  return fmt::format("samples spread: IQR {:.1f}% of the median (the timer stops under 2%): the "
                     "kernel's time varied from sample to sample; look at the samples "
                     "(`query`, table samples) before trusting the median",
                     100 * relative_iqr);
}

store::Measurement to_measurement(const Result<bench::AttentionRun>& r) {
  store::Measurement m;
  if (!r) {
    m.status = store::MeasurementStatus::failed;
    m.reason = r.error().message;
    return m;
  }
  m.status = r->outcome == bench::Outcome::ok       ? store::MeasurementStatus::ok
             : r->outcome == bench::Outcome::failed ? store::MeasurementStatus::failed
                                                    : store::MeasurementStatus::skipped;
  m.reason = r->outcome == bench::Outcome::ok ? "" : r->reason;
  if (r->timing) {
    const TimingStats& t = *r->timing;
    switch (sample_flag(t)) {
      case SampleFlag::drifted: m.reason = drift_warning(sample_drift(t.samples_s)); break;
      case SampleFlag::spread: m.reason = spread_warning(t.relative_iqr()); break;
      case SampleFlag::none: break;
    }
    m.median_s = t.median_s;
    m.p25_s = t.p25_s;
    m.p75_s = t.p75_s;
    m.min_s = t.min_s;
    m.max_s = t.max_s;
    m.samples_s = t.samples_s;
    m.tflops = r->tflops;
    m.sm_clock_mhz = bench::current_sm_clock_mhz();
  }
  return m;
}

// The fastest HBM stream `ceilings` measured on `device` (TB/s) and its unit, the better of the
// read-only stream and the copy (a read-bound kernel such as decode may pass the copy); 0 when
// none is recorded.
struct HbmCeiling {
  double tb_s = 0;
  std::string unit;
};
HbmCeiling measured_hbm_ceiling(const store::Store& db, const std::string& device) {
  HbmCeiling best;
  for (const store::CeilingRow& row : take(db.latest_ceilings()))
    if (row.ceiling.device == device &&
        (row.ceiling.unit == "hbm_read" || row.ceiling.unit == "hbm_copy") &&
        row.ceiling.value > best.tb_s)
      best = {row.ceiling.value, row.ceiling.unit};
  return best;
}

// `label`: the kernel's name, and for a backward kernel the forward kernel that made its O and LSE.
// Beside TFLOP/s, the rate of the fewest HBM bytes the pass must move (core/shape.hpp: decode's
// KV cache read once), and its share of the measured HBM ceiling when there is one.
void print_result(const std::string& label, const AttnShape& shape, Pass pass,
                  const store::Measurement& m, std::int64_t id, const HbmCeiling& hbm) {
  if (id == 0) {
    fmt::print("{:<8} {:<40} already recorded (--resume)\n", label, describe(shape));
  } else if (m.status == store::MeasurementStatus::ok) {
    const double tb_s = attention_min_hbm_bytes(shape, pass) / m.median_s / 1e12;
    const std::string share =
        hbm.tb_s > 0 ? fmt::format(" ({:.0f}% of {})", 100 * tb_s / hbm.tb_s, hbm.unit) : "";
    fmt::print("{:<8} {:<40} {:8.3f} ms (IQR {:.1f}%, {} samples) {:7.1f} TFLOP/s {:5.2f} TB/s{}{}\n",
               label, describe(shape), m.median_s * 1e3, 100 * (m.p75_s - m.p25_s) / m.median_s,
               m.samples_s.size(), m.tflops, tb_s, share,
               m.reason.empty() ? "" : "\n  warning: " + m.reason);
  } else {
    fmt::print("{:<8} {:<40} {}: {}\n", label, describe(shape), store::to_string(m.status),
               m.reason);
  }
}

// The forward kernel that makes a backward kernel's O and LSE (run once, not timed): fa3 where it
// can run the shape on this device (Hopper), else fa2.
const kernels::Kernel& forward_for(const AttnShape& shape, const kernels::DeviceCaps& device) {
  const kernels::Kernel* fa3 = kernels::find_kernel("fa3");
  if (fa3 && !kernels::why_unsupported(*fa3, shape, device)) return *fa3;
  return *kernels::find_kernel("fa2");
}

// One configuration checked and timed: a forward kernel alone, or a backward kernel after its
// forward.
Result<bench::AttentionRun> run_configuration(const kernels::Kernel& kernel, const AttnShape& shape,
                                              const kernels::DeviceCaps& device,
                                              const bench::Timer& timer, std::uint64_t seed) {
  if (kernel.pass == Pass::fwd) return bench::run_attention(kernel, shape, device, timer, seed);
  return bench::run_attention_backward(kernel, forward_for(shape, device), shape, device, timer,
                                       seed);
}

std::string result_label(const orchestration::SweepConfig& config,
                         const kernels::DeviceCaps& device) {
  if (config.pass == Pass::fwd) return config.kernel;
  return fmt::format("{} (O, LSE from {})", config.kernel, forward_for(config.shape, device).name);
}

// Measures every kernel on every shape through orchestration::run_sweep: each measurement is
// committed as it completes; SIGINT or SIGTERM stops the sweep after the current configuration.
struct RunMode {
  Pass pass = Pass::fwd;  // of every kernel measured
  bool resume = false;
  bool single_shape = false;  // from the shape flags: a kernel that cannot run it is an error
};

// A shape asked for alone must run on every kernel asked for; a sweep records the unsupported
// ones as skipped, with the reason.
void check_supported(const std::vector<std::string>& kernel_names, const AttnShape& shape,
                     const kernels::DeviceCaps& device) {
  for (const std::string& name : kernel_names)
    if (auto why = kernels::why_unsupported(*kernels::find_kernel(name), shape, device))
      throw UserError(fmt::format("kernel {} cannot run {} on {}: {}; change the shape flags, or "
                                  "pass a --sweep to record it as skipped",
                                  name, describe(shape), device.name, *why));
}

void run_bench(const Context& ctx, const std::vector<std::string>& kernel_names,
               const std::vector<AttnShape>& shapes, RunMode mode) {
  const bool resume = mode.resume;
  const auto device = kernels::query_device();
  if (!device) throw UserError(no_device_message(kBenchNeeds, device.error().message));
  if (mode.single_shape) check_supported(kernel_names, shapes.at(0), *device);
  const auto specs = take(hw::load_all_specs(ctx.models_dir));
  const hw::Spec* gpu = hw::match_device_name(specs, device->name);
  auto db = open_store(ctx);
  store::RunInfo info = current_run_info(store::RunKind::bench, ctx, device->name);
  info.driver = bench::driver_version();
  info.cuda_version = bench::cuda_versions();
  if (resume) info.notes = "--resume: configurations already recorded on this device skipped";
  const auto run_id = take(db.begin_run(info));
  const auto timer = take(bench::Timer::create(device->l2_bytes));
  const std::uint64_t seed = std::random_device{}();
  const bool terminal = isatty(fileno(stdout));
  fmt::print("run {}: {} on {} (model: {}), inputs seed {}\n", run_id, ctx.db_path, device->name,
             gpu ? gpu->id : "none", seed);
  for (const std::string& name : kernel_names)
    if (const auto* k = take(orchestration::find_kernel_model(name)); !k->approximation.empty())
      fmt::print("note: the model predicts {} as {}\n", name, k->approximation);
  if (mode.pass == Pass::bwd)
    fmt::print(
        "backward: each configuration first runs a forward kernel once, untimed, for O and "
        "LSE ({} on this device where it can run the shape, else fa2); the timing covers "
        "the whole backward (preprocessing, main kernel, dQ conversion), TFLOP/s at 2.5x "
        "the forward FLOPs\n",
        forward_for(shapes.at(0), *device).name);
  const auto configs = orchestration::sweep_configs(shapes, kernel_names, mode.pass);
  const orchestration::StopOnSignal stop;
  const orchestration::SweepSettings settings{
      .run_id = run_id, .device = device->name, .resume = resume, .stop = &stop.requested()};
  auto measure = [&](const orchestration::SweepConfig& config, std::size_t index) {
    const kernels::Kernel* kernel = kernels::find_kernel(config.kernel);
    if (terminal)
      fmt::print("\r[{}/{}] {} {} ...", index + 1, configs.size(), config.kernel,
                 describe(config.shape));
    std::fflush(stdout);
    store::Measurement m =
        to_measurement(run_configuration(*kernel, config.shape, *device, timer, seed + index + 1));
    take(orchestration::link_prediction(db, run_id, gpu, config.kernel, config.shape, m));
    if (terminal) fmt::print("\r\033[K");
    return m;
  };
  const HbmCeiling hbm = measured_hbm_ceiling(db, device->name);
  auto printed = [&](const orchestration::SweepConfig& config, const store::Measurement& m,
                     std::int64_t id) {
    print_result(result_label(config, *device), config.shape, mode.pass, m, id, hbm);
  };
  const orchestration::SweepSummary summary =
      take(orchestration::run_sweep(db, configs, settings, measure, printed));
  if (summary.resumed)
    fmt::print("--resume: {} of {} configurations were already recorded on {} and skipped\n",
               summary.resumed, summary.total, device->name);
  if (summary.stopped)
    throw Interrupted(orchestration::describe_stop(
        summary, run_id, ctx.db_path, stop.signal_number() == SIGTERM ? "SIGTERM" : "SIGINT"));
}

#endif

void bench(const Context& ctx, const BenchOptions& o) {
  std::vector<AttnShape> shapes;
  for (const auto& file : o.sweeps) {
    const Sweep sweep = take(load_sweep(file));
    if (sweep.rounding_note) fmt::print("note: {}\n", *sweep.rounding_note);
    shapes.insert(shapes.end(), sweep.shapes.begin(), sweep.shapes.end());
  }
  if (o.sweeps.empty()) shapes.push_back(o.shape.shape());
  for (const AttnShape& s : shapes)
    if (s.window)
      throw UserError(fmt::format(
          "{}: the lab's kernels and peers mask no sliding window; leave out --window (or the "
          "sweep's \"window\") to bench, or predict it with 'fa4-analyze model'",
          describe(s)));
  const Pass pass = take(parse_pass(o.pass));
#if FA4_HAVE_BENCH
  for (const std::string& name : o.kernels) {
    const kernels::Kernel* kernel = kernels::find_kernel(name);
    if (!kernel)
      throw UserError(fmt::format("no kernel '{}': 'fa4-analyze kernels' lists them", name));
    if (kernel->pass != pass)
      throw UserError(fmt::format(
          "'{}' is a {} kernel and --pass {} benches {} kernels: pass --pass {} for it, and "
          "bench the two passes in separate calls",
          name, kernel->pass == Pass::bwd ? "backward" : "forward", to_string(pass),
          pass == Pass::bwd ? "backward" : "forward", to_string(kernel->pass)));
    take(orchestration::find_kernel_model(name));
  }
  // Refuse before measuring anything when the peers were asked for and cannot run.
  if (o.peers)
    if (const std::string why = peers_unavailable(o.peer); !why.empty())
      throw UserError(fmt::format("--peers: the peer runner cannot run here: {}; install PyTorch "
                                  "for {} or leave out --peers",
                                  why, o.peer.python));
  run_bench(ctx, o.kernels, shapes,
            {.pass = pass, .resume = o.resume, .single_shape = o.sweeps.empty()});
  if (o.peers) run_and_import_peers(ctx, shapes, o.peer);
#else
  (void)ctx;
  (void)pass;
  throw UserError(no_device_message(kBenchNeeds, kBuiltWithoutCuda));
#endif
}

void setup(CLI::App& app, Context& ctx) {
  auto o = std::make_shared<BenchOptions>();
  CLI::App* c = app.add_subcommand(
      "bench", "Check and time our kernels on this machine's GPU and record every measurement");
  c->add_option("--kernel", o->kernels, "Registered kernels, e.g. naive,fa2")
      ->required()
      ->delimiter(',');
  c->add_option("--sweep", o->sweeps, "Sweep file(s) instead of the shape flags");
  c->add_flag("--peers", o->peers,
              "Also time the peers (PyTorch SDPA backends, our Triton kernel) on the same shapes "
              "with scripts/peers/torch_peers.py and record them");
  c->add_flag("--resume", o->resume,
              "Skip the configurations (kernel, shape) already recorded on this device, e.g. "
              "after an interrupted sweep; failed ones are measured again");
  c->add_option("--pass", o->pass,
                "fwd (default) or bwd: the pass of every kernel named (a backward kernel is "
                "checked and timed after an untimed forward makes its O and LSE)")
      ->check(CLI::IsMember({"fwd", "bwd"}));
  CLI::Option* peer_pass =
      c->add_option("--peer-pass", o->peer.passes,
                    "Passes the peers run: fwd, bwd or both (default: the --pass of the kernels)")
          ->check(CLI::IsMember({"fwd", "bwd", "both"}))
          ->default_str("");  // the help says what the default is
  c->add_option("--python", o->peer.python, "Python interpreter with PyTorch, for --peers");
  o->shape.add_to(*c);
  c->callback([&ctx, o, peer_pass] {
    if (peer_pass->count() == 0) o->peer.passes = o->pass;
    bench(ctx, *o);
  });
}

const SubcommandRegistration registration{70, setup};

}  // namespace
}  // namespace fa4::app
