// predict end to end on one core: every shipped GPU model, every algorithm, both passes over a
// generated sweep, modelled and recorded in a fresh database file through the batch writer (what
// `fa4-analyze predict` runs). Reports predictions per second and the process's peak resident
// memory (getrusage ru_maxrss; run one size per process for a clean peak:
// --benchmark_filter='predict_and_record/1000000/').
// Aim: 1M predictions in under 30 s and under 300 MB. Run: build/tests/benchmarks/predict_benchmark
#include <benchmark/benchmark.h>
#include <sys/resource.h>
#include <unistd.h>

#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include "hw/loader.hpp"
#include "model/algorithm_traits.hpp"
#include "orchestration/predict_run.hpp"

namespace {

using namespace fa4;

// Shapes enough for `predictions` predictions at `per_shape` predictions per shape: seqlen_q and
// seqlen_k from 64 to 4096 in steps of 64, at 16k tokens and hidden 2048, every head dim, mask and
// 16-bit dtype (small enough that naive's S and P fit every GPU: none is refused).
std::vector<AttnShape> shapes_for(std::size_t predictions, std::size_t per_shape) {
  std::vector<AttnShape> shapes;
  for (Dtype dtype : {Dtype::bf16, Dtype::fp16})
    for (std::int64_t d : {64, 128, 256})
      for (bool causal : {false, true})
        for (std::int64_t sq = 64; sq <= 4096; sq += 64)
          for (std::int64_t sk = 64; sk <= 4096; sk += 64) {
            if (shapes.size() * per_shape >= predictions) return shapes;
            AttnShape s;
            s.seqlen_q = sq;
            s.seqlen_k = sk;
            s.batch = std::max<std::int64_t>(1, 16384 / std::max(sq, sk));
            s.headdim = s.headdim_v = d;
            s.heads_q = s.heads_kv = 2048 / d;
            s.causal = causal;
            s.dtype = dtype;
            shapes.push_back(s);
          }
  return shapes;
}

double peak_rss_mb() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return double(usage.ru_maxrss) / 1024;  // Linux reports KiB
}

void predict_and_record(benchmark::State& state) {
  auto specs = hw::load_all_specs(std::string(FA4_SOURCE_DIR) + "/models");
  if (!specs) throw std::runtime_error(specs.error().message);
  orchestration::PredictPlan plan;
  plan.gpus = *specs;
  plan.algorithms = {model::kAllAlgorithms.begin(), model::kAllAlgorithms.end()};
  plan.passes = {Pass::fwd, Pass::bwd};
  std::size_t pairs = 0;  // (GPU, algorithm) pairs that run
  for (const hw::Spec& gpu : plan.gpus)
    for (model::Algorithm algorithm : plan.algorithms)
      pairs += !model::unsupported_reason(gpu, algorithm);
  plan.shapes = shapes_for(std::size_t(state.range(0)), pairs * plan.passes.size());
  const auto db = std::filesystem::temp_directory_path() /
                  ("fa4-predict-benchmark-" + std::to_string(::getpid()) + ".db");
  std::size_t recorded = 0;
  for (auto _ : state) {
    state.PauseTiming();
    for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(db.string() + suffix);
    state.ResumeTiming();
    auto out = orchestration::predict_and_record(
        plan, store::RunInfo{}, [&] { return store::Store::open(db.string()); },
        [](std::size_t) {});
    if (!out) throw std::runtime_error(out.error().message);
    recorded += out->recorded;
  }
  for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(db.string() + suffix);
  state.SetItemsProcessed(std::int64_t(recorded));
  state.counters["predictions"] = double(recorded) / double(state.iterations());
  state.counters["peak_rss_MB"] = peak_rss_mb();
}

BENCHMARK(predict_and_record)->Arg(100000)->Arg(1000000)->Iterations(1)->Unit(benchmark::kSecond);

}  // namespace

BENCHMARK_MAIN();
