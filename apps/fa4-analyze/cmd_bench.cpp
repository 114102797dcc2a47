// fa4-analyze bench: check and time registered kernels on the GPU (lib/bench) and record every
// measurement, with its samples, linked to the model's prediction for the same shape on the
// detected GPU's hardware model. Without a CUDA device it says so and exits 1.
#include <unistd.h>

#include <cstdio>
#include <memory>
#include <random>

#include <fmt/format.h>

#include "context.hpp"
#include "core/sweep.hpp"
#include "hw/loader.hpp"
#include "peer_runner.hpp"
#include "run_info.hpp"
#include "shape_options.hpp"
#include "store/store.hpp"
#include "user_error.hpp"
#if FA4_HAVE_BENCH
#include "bench/attention_run.hpp"
#include "bench/sm_clock.hpp"
#endif

namespace fa4::app {
namespace {

constexpr std::string_view kNoDevice =
    "no CUDA device: bench needs one; the model-only commands (model, predict, report) still work";

struct BenchOptions {
  std::vector<std::string> kernels;
  std::vector<std::string> sweeps;
  ShapeOptions shape;
  bool peers = false;
  PeerRunOptions peer;
};

#if FA4_HAVE_BENCH

// Records the model's prediction for `shape` and returns its id; nullopt when there is no model
// of this GPU or of this kernel's algorithm, or the model refuses the shape.
std::optional<std::int64_t> record_prediction(store::Store& db, std::int64_t run_id,
                                              const hw::Spec* gpu, std::string_view kernel,
                                              const AttnShape& shape) {
  const auto algorithm = model::parse_algorithm(kernel);
  if (!gpu || !algorithm) return std::nullopt;
  model::Options options;
  options.algorithm = *algorithm;
  options.pass = Pass::fwd;
  auto p = model::predict(*gpu, shape, options);
  if (!p) return std::nullopt;
  take(db.record_predictions(run_id, {*p}));
  const store::Table id = take(db.query(
      fmt::format("SELECT MAX(id) FROM predictions WHERE run_id = {}", run_id)));
  return std::get<std::int64_t>(id.rows.at(0).at(0));
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
    const bench::TimingStats& t = *r->timing;
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

void run_bench(const Context& ctx, const std::vector<const kernels::Kernel*>& selected,
               const std::vector<AttnShape>& shapes) {
  const auto device = kernels::query_device();
  if (!device) throw UserError(fmt::format("{} ({})", kNoDevice, device.error().message));
  const auto specs = take(hw::load_all_specs(ctx.models_dir));
  const hw::Spec* gpu = hw::match_device_name(specs, device->name);
  auto db = take(store::Store::open(ctx.db_path));
  store::RunInfo info = current_run_info(store::RunKind::bench, ctx, device->name);
  info.driver = bench::driver_version();
  info.cuda_version = bench::cuda_versions();
  const auto run_id = take(db.begin_run(info));
  const auto timer = take(bench::Timer::create(device->l2_bytes));
  const std::uint64_t seed = std::random_device{}();
  const bool terminal = isatty(fileno(stdout));
  fmt::print("run {}: {} on {} (model: {}), inputs seed {}\n", run_id, ctx.db_path, device->name,
             gpu ? gpu->id : "none", seed);
  const std::size_t total = shapes.size() * selected.size();
  std::size_t done = 0;
  for (const AttnShape& shape : shapes)
    for (const kernels::Kernel* kernel : selected) {
      if (terminal)
        fmt::print("\r[{}/{}] {} {} ...", ++done, total, kernel->name, describe(shape));
      std::fflush(stdout);
      store::Measurement m =
          to_measurement(bench::run_attention(*kernel, shape, *device, timer, seed + done));
      m.shape = shape;
      m.kernel = kernel->name;
      m.device = device->name;
      if (m.status == store::MeasurementStatus::ok)
        m.prediction_id = record_prediction(db, run_id, gpu, kernel->name, shape);
      take(db.record_measurement(run_id, m));
      if (terminal) fmt::print("\r\033[K");
      if (m.status == store::MeasurementStatus::ok)
        fmt::print("{:<8} {:<40} {:8.3f} ms (IQR {:.1f}%, {} samples) {:7.1f} TFLOP/s\n",
                   kernel->name, describe(shape), m.median_s * 1e3,
                   100 * (m.p75_s - m.p25_s) / m.median_s, m.samples_s.size(), m.tflops);
      else
        fmt::print("{:<8} {:<40} {}: {}\n", kernel->name, describe(shape),
                   store::to_string(m.status), m.reason);
    }
}

#endif

void bench(const Context& ctx, const BenchOptions& o) {
  std::vector<AttnShape> shapes;
  for (const auto& file : o.sweeps)
    for (const AttnShape& s : take(load_sweep(file)).shapes) shapes.push_back(s);
  if (o.sweeps.empty()) shapes.push_back(o.shape.shape());
#if FA4_HAVE_BENCH
  std::vector<const kernels::Kernel*> selected;
  for (const std::string& name : o.kernels) {
    const kernels::Kernel* k = kernels::find_kernel(name);
    if (!k) throw UserError(fmt::format("no kernel '{}': 'fa4-analyze kernels' lists them", name));
    selected.push_back(k);
  }
  // Refuse before measuring anything when the peers were asked for and cannot run.
  if (o.peers)
    if (const std::string why = peers_unavailable(o.peer); !why.empty())
      throw UserError(fmt::format("--peers: the peer runner cannot run here: {}; install PyTorch "
                                  "for {} or leave out --peers",
                                  why, o.peer.python));
  run_bench(ctx, selected, shapes);
  if (o.peers) run_and_import_peers(ctx, shapes, o.peer);
#else
  (void)ctx;
  throw UserError(fmt::format("{} (this fa4-analyze was built without CUDA)", kNoDevice));
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
  c->add_option("--peer-pass", o->peer.passes, "Passes the peers run: fwd, bwd or both")
      ->check(CLI::IsMember({"fwd", "bwd", "both"}));
  c->add_option("--python", o->peer.python, "Python interpreter with PyTorch, for --peers");
  o->shape.add_to(*c);
  c->callback([&ctx, o] { bench(ctx, *o); });
}

const SubcommandRegistration registration{70, setup};

}  // namespace
}  // namespace fa4::app
