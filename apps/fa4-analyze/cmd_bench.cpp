// fa4-analyze bench: check and time registered kernels on the GPU (lib/bench) and record every
// measurement, with its samples, linked to the model's prediction for the same shape on the
// detected GPU's hardware model (lib/orchestration: each kernel's model configuration). --pass
// bwd benches the backward kernels: an untimed forward kernel (fa3 where it runs, else fa2) makes
// O and LSE, the gradients are checked against the oracle, then the whole backward is timed.
// --kernel A,B --ab times two kernels (or a kernel and a peer, through torch_peers.py --serve) in
// alternating rounds on each shape (lib/orchestration/ab_rounds.hpp), records both with the round
// of every sample, and prints compare's verdict on them (lib/compare/verdict.hpp).
// Without a CUDA device it says so and exits 1; the arguments are checked before.
#include <fmt/format.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <memory>
#include <optional>
#include <random>

#include "compare/comparison.hpp"
#include "compare/output.hpp"
#include "compare/side.hpp"
#include "context.hpp"
#include "core/sweep.hpp"
#include "hw/loader.hpp"
#include "no_device.hpp"
#include "open_store.hpp"
#include "orchestration/ab_rounds.hpp"
#include "orchestration/kernel_models.hpp"
#include "orchestration/peer_rounds.hpp"
#include "peer_runner.hpp"
#include "report/table_format.hpp"
#include "run_info.hpp"
#include "shape_options.hpp"
#include "store/store.hpp"
#include "threshold_option.hpp"
#include "user_error.hpp"
#if FA4_HAVE_BENCH
#include "bench/attention_bwd_run.hpp"
#include "bench/attention_run.hpp"
#include "bench/sm_clock.hpp"
#include "orchestration/bench_prediction.hpp"
#include "orchestration/stop_signal.hpp"
#include "orchestration/sweep_loop.hpp"
#endif

namespace fa4::app {
namespace {

constexpr std::string_view kBenchNeeds = "bench needs one";

constexpr int kDefaultAbRounds = 10;
constexpr int kMaxAbRounds = 1000;
// Alternating rounds see the same clocks: a smaller change than compare's 5% for separate runs
// is worth a verdict (README, "Comparing runs").
constexpr std::string_view kDefaultAbThreshold = "2%";

struct BenchOptions {
  std::vector<std::string> kernels;
  std::vector<std::string> sweeps;
  ShapeOptions shape;
  std::string pass = "fwd";
  bool peers = false;
  bool resume = false;
  PeerRunOptions peer;
  bool ab = false;
  int rounds = kDefaultAbRounds;
  std::string threshold{kDefaultAbThreshold};
  bool rounds_given = false, threshold_given = false;
};

// One side of --ab (or one kernel of a plain bench): one of our registered kernels, or a peer.
struct BenchSide {
  std::string name;
  std::string peer_source;  // "peer:torch-cudnn" for a peer; empty for ours
  bool peer() const { return !peer_source.empty(); }
};

std::string joined(const std::vector<std::string>& names) {
  std::string list;
  for (const std::string& n : names) list += (list.empty() ? "" : ", ") + n;
  return list;
}

// --ab's own options, and the options that do not go with it, before anything is loaded.
void check_ab_options(const BenchOptions& o) {
  if (!o.ab) {
    if (o.rounds_given)
      throw UserError(fmt::format(
          "--rounds {} counts the alternating rounds of --ab: add --ab (--kernel A,B --ab "
          "--rounds {}) or leave out --rounds",
          o.rounds, o.rounds));
    if (o.threshold_given)
      throw UserError(fmt::format(
          "--threshold {} is the smallest change bench --ab's verdict counts: add --ab, or "
          "judge recorded runs with 'fa4-analyze compare --threshold {}'",
          o.threshold, o.threshold));
    return;
  }
  if (o.kernels.size() != 2)
    throw UserError(fmt::format(
        "--ab compares two kernels and --kernel names {} ({}): name the baseline and then the "
        "contender, e.g. --kernel fa3,fa4 --ab (or a kernel and a peer: --kernel fa3,sdpa_cudnn "
        "--ab)",
        o.kernels.size(), joined(o.kernels)));
  if (o.kernels[0] == o.kernels[1])
    throw UserError(fmt::format(
        "--ab: --kernel names {} twice; an A/B comparison times two different kernels "
        "(--kernel fa3,fa4 --ab); to compare two builds of one kernel use scripts/gpu-ab.sh "
        "--trees A B",
        o.kernels[0]));
  if (o.rounds < orchestration::kMinAbRounds || o.rounds > kMaxAbRounds)
    throw UserError(fmt::format(
        "--rounds {}: an A/B verdict takes one sample of each kernel a round and needs at least "
        "{} a side; give --rounds from {} to {} (default {})",
        o.rounds, orchestration::kMinAbRounds, orchestration::kMinAbRounds, kMaxAbRounds,
        kDefaultAbRounds));
  parse_threshold(o.threshold);
  if (o.resume)
    throw UserError(
        "--resume skips configurations already recorded one at a time, and --ab measures each "
        "shape's two kernels together in one run: leave out --resume (a stopped --ab run keeps "
        "every shape it finished)");
  if (o.peers)
    throw UserError(fmt::format(
        "--peers times the peers after our kernels, in a separate process; with --ab name the "
        "peer as one of the two, e.g. --kernel {},sdpa_cudnn --ab",
        o.kernels[0]));
}

// Each name of --kernel: a registered kernel of `pass` (its model configuration names every one,
// lib/orchestration/kernel_models.cpp) or, with --ab, a peer (torch_peers.py --list-peers).
std::vector<BenchSide> resolve_kernels(const BenchOptions& o, Pass pass) {
  std::vector<BenchSide> sides;
  std::optional<Result<std::vector<PeerName>>> peers;
  const auto peer_list = [&]() -> const Result<std::vector<PeerName>>& {
    if (!peers) peers = list_peers(o.peer);
    return *peers;
  };
  for (const std::string& name : o.kernels) {
    if (const auto model = orchestration::find_kernel_model(name)) {
      if ((*model)->pass != pass)
        throw UserError(fmt::format(
            "'{}' is a {} kernel and --pass {} benches {} kernels: pass --pass {} for it, and "
            "bench the two passes in separate calls",
            name, (*model)->pass == Pass::bwd ? "backward" : "forward", to_string(pass),
            pass == Pass::bwd ? "backward" : "forward", to_string((*model)->pass)));
      sides.push_back({name, ""});
      continue;
    }
    const auto& known = peer_list();
    const PeerName* peer = nullptr;
    std::vector<std::string> peer_names;
    if (known)
      for (const PeerName& p : *known) {
        peer_names.push_back(p.name);
        if (p.name == name) peer = &p;
      }
    if (peer && o.ab) {
      sides.push_back({name, peer->source});
      continue;
    }
    if (peer)
      throw UserError(fmt::format(
          "--kernel {}: '{}' is a peer, not one of our kernels; time it with --peers, or beside "
          "one of ours in alternating rounds: --kernel fa3,{} --ab",
          name, name, name));
    const std::string peers_said =
        known ? fmt::format("the peers are {} (scripts/peers/README.md)", joined(peer_names))
              : fmt::format("the peers could not be listed: {}", known.error().message);
    throw UserError(fmt::format(
        "--kernel {}: no registered kernel or peer of that name; 'fa4-analyze kernels' lists "
        "the kernels, {}",
        name, peers_said));
  }
  return sides;
}

#if FA4_HAVE_BENCH

// Recorded with an ok measurement whose samples drifted (core/stats.hpp, sample_flag).
std::string drift_warning(double drift) {
  return fmt::format(
      "samples drifted {:+.1f}% from the first quarter to the last: the GPU changed "
      "speed mid-measurement (clock or power limit?); compare kernels in "
      "alternating rounds (bench --kernel A,B --ab)",
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
    // Taken in rounds (--ab): the statistics are of the rounds' medians.
    const std::size_t rounds =
        m.sample_rounds.empty() ? 0 : std::size_t(m.sample_rounds.back()) + 1;
    const std::string counted =
        rounds ? fmt::format("median of {} rounds, IQR {:.1f}% of them, {} samples", rounds,
                             100 * (m.p75_s - m.p25_s) / m.median_s, m.samples_s.size())
               : fmt::format("IQR {:.1f}%, {} samples", 100 * (m.p75_s - m.p25_s) / m.median_s,
                             m.samples_s.size());
    fmt::print("{:<8} {:<40} {:8.3f} ms ({}) {:7.1f} TFLOP/s {:5.2f} TB/s{}{}\n", label,
               describe(shape), m.median_s * 1e3, counted, m.tflops, tb_s, share,
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
  store::RunInfo info = gpu_run_info(store::RunKind::bench, ctx, device->name);
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

// --ab's verdict on one shape, as compare gives it (compare/verdict.hpp, each round one sample).
void print_verdict(const std::array<store::Measurement, 2>& m, const compare::Rules& rules) {
  for (const store::Measurement& side : m)
    if (side.status != store::MeasurementStatus::ok) {
      fmt::print("  {} against {}: UNSURE: {} was {}\n", m[1].kernel, m[0].kernel, side.kernel,
                 store::to_string(side.status));
      return;
    }
  const auto side = [](const store::Measurement& x) {
    return compare::side_of_measurement(x.samples_s, x.sample_rounds, x.sm_clock_mhz);
  };
  const compare::Judgement j = compare::judge(side(m[0]), side(m[1]), rules);
  if (j.ratio > 0)
    fmt::print(
        "  {} against {}: {}: time ratio {:.4f}, 95% interval [{:.4f}, {:.4f}], U test p = "
        "{:.2g}: {}\n",
        m[1].kernel, m[0].kernel, compare::to_string(j.verdict), j.ratio, j.interval.lo,
        j.interval.hi, j.p, j.reason);
  else
    fmt::print("  {} against {}: {}: {}\n", m[1].kernel, m[0].kernel, compare::to_string(j.verdict),
               j.reason);
}

// The two sides of one shape for --ab, prepared: ours share one PreparedAttention (the same
// inputs on the same buffers, each output checked once), a peer's is its runner's.
struct AbContext {
  const std::vector<BenchSide>& sides;
  Pass pass;
  const kernels::DeviceCaps& device;
  const bench::Timer& timer;
  std::array<orchestration::PeerRounds*, 2> peers{};  // the runner of each peer side
  store::Store& db;
  std::int64_t run_id;
  const hw::Spec* gpu;
  std::uint64_t seed;
};

Result<std::array<orchestration::PreparedSide, 2>> prepare_ab(const AbContext& c,
                                                              const AttnShape& shape,
                                                              std::size_t index) {
  const std::uint64_t seed = c.seed + index + 1;
  std::vector<const kernels::Kernel*> ours;
  std::array<std::size_t, 2> ours_index{};
  for (std::size_t s = 0; s < 2; ++s)
    if (!c.sides[s].peer()) {
      ours_index[s] = ours.size();
      ours.push_back(kernels::find_kernel(c.sides[s].name));
    }
  std::shared_ptr<const bench::PreparedAttention> prepared;
  if (!ours.empty()) {
    auto p = c.pass == Pass::fwd ? bench::PreparedAttention::forward(ours, shape, c.device, seed)
                                 : bench::PreparedAttention::backward(
                                       ours, forward_for(shape, c.device), shape, c.device, seed);
    if (!p) return p.error();
    prepared = std::make_shared<const bench::PreparedAttention>(std::move(*p));
  }
  std::array<orchestration::PreparedSide, 2> out;
  for (std::size_t s = 0; s < 2; ++s) {
    store::Measurement& m = out[s].measurement;
    m.kernel = c.sides[s].name;
    if (!c.sides[s].peer()) {
      const std::size_t k = ours_index[s];
      const bench::AttentionRun& check = prepared->checked(k);
      m.status = check.outcome == bench::Outcome::ok       ? store::MeasurementStatus::ok
                 : check.outcome == bench::Outcome::failed ? store::MeasurementStatus::failed
                                                           : store::MeasurementStatus::skipped;
      if (m.status != store::MeasurementStatus::ok) {
        m.reason = check.reason;
        continue;
      }
      if (auto linked = orchestration::link_prediction(c.db, c.run_id, c.gpu, m.kernel, shape, m);
          !linked)
        return linked.error();
      const bench::Timer& timer = c.timer;
      out[s].time_round = [prepared, k, &timer]() -> Result<orchestration::RoundTiming> {
        Result<bench::AttentionRun> r = prepared->time(k, timer);
        if (!r) return r.error();
        if (!r->timing) return Error{r->reason};
        return orchestration::RoundTiming{r->timing->samples_s, bench::current_sm_clock_mhz()};
      };
      continue;
    }
    m.source = c.sides[s].peer_source;
    if (serving_fields(shape) != ServingFields{}) {
      m.status = store::MeasurementStatus::skipped;
      m.reason = "SDPA takes no paged KV cache, ragged key lengths or split count";
      continue;
    }
    orchestration::PeerRounds* peer = c.peers[s];
    auto check = peer->prepare(shape, seed);
    if (!check) return check.error();
    m.status = check->status;
    m.reason = check->reason;
    if (m.status != store::MeasurementStatus::ok) continue;
    out[s].time_round = [peer]() -> Result<orchestration::RoundTiming> {
      auto samples = peer->round();
      if (!samples) return samples.error();
      return orchestration::RoundTiming{std::move(*samples), bench::current_sm_clock_mhz()};
    };
  }
  return out;
}

// bench --kernel A,B --ab: each shape's two sides timed in alternating rounds, both recorded with
// the round of every sample, a verdict per shape, then the whole run as compare judges it.
void run_ab(const Context& ctx, const std::vector<BenchSide>& sides,
            const std::vector<AttnShape>& shapes, Pass pass, int rounds,
            const compare::Rules& rules, const PeerRunOptions& peer_options, bool single_shape) {
  const auto device = kernels::query_device();
  if (!device) throw UserError(no_device_message(kBenchNeeds, device.error().message));
  std::vector<std::string> ours;
  for (const BenchSide& side : sides)
    if (!side.peer()) ours.push_back(side.name);
  if (single_shape) check_supported(ours, shapes.at(0), *device);
  std::array<std::unique_ptr<orchestration::PeerRounds>, 2> peers;
  for (std::size_t s = 0; s < 2; ++s)
    if (sides[s].peer()) {
      peers[s] = take(orchestration::PeerRounds::start(peer_options.python, peer_runner_path(),
                                                       sides[s].name, pass));
      if (peers[s]->device() != device->name)
        fmt::print("note: PyTorch names the device {}, CUDA {}\n", peers[s]->device(),
                   device->name);
    }
  const auto specs = take(hw::load_all_specs(ctx.models_dir));
  const hw::Spec* gpu = hw::match_device_name(specs, device->name);
  auto db = open_store(ctx);
  store::RunInfo info = gpu_run_info(store::RunKind::bench, ctx, device->name);
  info.notes = fmt::format(
      "--ab: {} (A, baseline) against {} (B, contender) in {} alternating rounds a shape (A B, "
      "B A, ...); each round one sample, its median",
      sides[0].name, sides[1].name, rounds);
  const auto run_id = take(db.begin_run(info));
  const auto timer = take(bench::Timer::create(device->l2_bytes));
  const std::uint64_t seed = std::random_device{}();
  const bool terminal = isatty(fileno(stdout));
  fmt::print("run {}: {} on {} (model: {}), inputs seed {}\n", run_id, ctx.db_path, device->name,
             gpu ? gpu->id : "none", seed);
  fmt::print(
      "A/B: {} (A) against {} (B), {} rounds a shape, A B then B A in turn: each round a whole "
      "timing (warm-up, samples until stable), its median one sample of the verdict; {}\n",
      sides[0].name, sides[1].name, rounds,
      ours.size() == 2 ? "both kernels on the same inputs"
                       : "the peer's inputs drawn by PyTorch (the same distribution, not the "
                         "same bytes)");
  for (const std::string& name : ours)
    if (const auto* k = take(orchestration::find_kernel_model(name)); !k->approximation.empty())
      fmt::print("note: the model predicts {} as {}\n", name, k->approximation);
  if (pass == Pass::bwd)
    fmt::print(
        "backward: our kernels' O and LSE come from one untimed forward ({} on this device where "
        "it can run the shape, else fa2); the timing covers the whole backward, TFLOP/s at 2.5x "
        "the forward FLOPs\n",
        forward_for(shapes.at(0), *device).name);
  const orchestration::StopOnSignal stop;
  const AbContext c{.sides = sides,
                    .pass = pass,
                    .device = *device,
                    .timer = timer,
                    .peers = {peers[0].get(), peers[1].get()},
                    .db = db,
                    .run_id = run_id,
                    .gpu = gpu,
                    .seed = seed};
  const HbmCeiling hbm = measured_hbm_ceiling(db, device->name);
  std::size_t shape_index = 0;
  auto prepare = [&](const AttnShape& shape, std::size_t index) {
    shape_index = index;
    return prepare_ab(c, shape, index);
  };
  auto turn = [&](const orchestration::AbTurn& t, int total) {
    if (!terminal) return;
    fmt::print("\r\033[K[{}/{}] {} round {}/{} {} ...", shape_index + 1, shapes.size(),
               describe(shapes[shape_index]), t.round + 1, total,
               sides[t.side == orchestration::AbSide::a ? 0 : 1].name);
    std::fflush(stdout);
  };
  auto recorded = [&](const AttnShape& shape, const orchestration::AbRounds& pair,
                      std::array<std::int64_t, 2> ids) {
    if (terminal) fmt::print("\r\033[K");
    for (std::size_t s = 0; s < 2; ++s)
      print_result(pair.sides[s].kernel, shape, pass, pair.sides[s], ids[s], hbm);
    print_verdict(pair.sides, rules);
  };
  const orchestration::AbSummary summary = take(orchestration::run_ab_sweep(
      db, shapes, pass,
      {.run_id = run_id, .device = device->name, .rounds = rounds, .stop = &stop.requested()},
      prepare, recorded, turn));
  // The whole run as `compare RUN --kernel A --against B` prints it, read back from the database.
  const compare::SideSpec spec{ctx.db_path, run_id, fmt::format("{}:{}", ctx.db_path, run_id)};
  if (summary.recorded > 0) {
    auto compared = compare::compare_sides(
        take(compare::read_side(db, spec)), take(compare::read_side(db, spec)),
        {.kernels = {}, .kernel = sides[0].name, .against = sides[1].name}, rules);
    if (!compared) throw UserError(compared.error().message);
    fmt::print("\nbaseline {} against contender {} (threshold {:g}%)\n", compared->baseline_name(),
               compared->contender_name(), 100 * rules.threshold);
    fmt::print("{}",
               report::format_text(compare::comparison_table(*compared), {.row_count = false}));
    fmt::print("{}\n", compare::summary_line(*compared));
    fmt::print(
        "again, or as markdown: fa4-analyze compare {}:{} --kernel {} --against {} "
        "--threshold {:g}% [--markdown]\n",
        ctx.db_path, run_id, sides[0].name, sides[1].name, 100 * rules.threshold);
  }
  if (summary.stopped)
    throw Interrupted(fmt::format(
        "stopped by {} after {} of {} shapes: {} recorded in run {} of {} (the last one with the "
        "rounds it finished); run the command again for the rest",
        stop.signal_number() == SIGTERM ? "SIGTERM" : "SIGINT", summary.recorded, summary.total,
        summary.recorded, run_id, ctx.db_path));
}

#endif

void bench(const Context& ctx, const BenchOptions& o) {
  check_ab_options(o);
  const Pass pass = take(parse_pass(o.pass));
  const std::vector<BenchSide> sides = resolve_kernels(o, pass);
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
#if FA4_HAVE_BENCH
  for (const BenchSide& side : sides)
    if (!side.peer() && !kernels::find_kernel(side.name))
      throw UserError(fmt::format(
          "--kernel {}: the model knows it but this build has no such kernel: rebuild, or "
          "'fa4-analyze kernels' lists what it has",
          side.name));
  // Refuse before measuring anything when the peers were asked for and cannot run.
  if (o.peers)
    if (const std::string why = peers_unavailable(o.peer); !why.empty())
      throw UserError(fmt::format("--peers: the peer runner cannot run here: {}; install PyTorch "
                                  "for {} or leave out --peers",
                                  why, o.peer.python));
  for (const BenchSide& side : sides)
    if (side.peer())
      if (const std::string why = peers_unavailable(o.peer); !why.empty())
        throw UserError(fmt::format(
            "--kernel {}: the peer runner cannot run here: {}; install PyTorch for {} or name "
            "two of our kernels",
            side.name, why, o.peer.python));
  if (o.ab) {
    compare::Rules rules;
    rules.threshold = parse_threshold(o.threshold);
    run_ab(ctx, sides, shapes, pass, o.rounds, rules, o.peer, o.sweeps.empty());
    return;
  }
  run_bench(ctx, o.kernels, shapes,
            {.pass = pass, .resume = o.resume, .single_shape = o.sweeps.empty()});
  if (o.peers) run_and_import_peers(ctx, shapes, o.peer);
#else
  (void)ctx;
  (void)sides;
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
  c->add_option("--python", o->peer.python,
                "Python interpreter with PyTorch, for --peers and a peer of --ab");
  c->add_flag("--ab", o->ab,
              "Time the two kernels of --kernel A,B (or a kernel and a peer: fa3,sdpa_cudnn) in "
              "alternating rounds on each shape (A B, B A, ...), record both with the round of "
              "every sample, and print compare's verdict of B against A (each round one sample, "
              "its median)");
  CLI::Option* rounds =
      c->add_option("--rounds", o->rounds,
                    fmt::format("With --ab: rounds a shape, from {} to {} (default {})",
                                orchestration::kMinAbRounds, kMaxAbRounds, kDefaultAbRounds));
  CLI::Option* threshold = c->add_option(
      "--threshold", o->threshold,
      fmt::format("With --ab: the smallest change worth a verdict (default {}; compare's "
                  "rules, 'fa4-analyze compare --help')",
                  kDefaultAbThreshold));
  o->shape.add_to(*c);
  c->callback([&ctx, o, peer_pass, rounds, threshold] {
    if (peer_pass->count() == 0) o->peer.passes = o->pass;
    o->rounds_given = rounds->count() > 0;
    o->threshold_given = threshold->count() > 0;
    bench(ctx, *o);
  });
}

const SubcommandRegistration registration{70, setup};

}  // namespace
}  // namespace fa4::app
