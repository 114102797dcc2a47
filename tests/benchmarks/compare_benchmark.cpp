// compare end to end on one core: two runs of 10,000 configurations each (10 samples a
// measurement, as bench records a stable kernel) read from a database file, matched, judged (U
// test, 2000 bootstrap resamplings a side) and printed as the text table.
// Aim: under a second for 10,000 configurations. Run: build/tests/benchmarks/compare_benchmark
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <filesystem>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "compare/comparison.hpp"
#include "compare/output.hpp"
#include "report/table_format.hpp"

namespace {

using namespace fa4;

store::ImportedRun synthetic_run(std::size_t configurations, double scale, unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<double> jitter(0, 0.003);
  store::ImportedRun run;
  run.info.kind = store::RunKind::import;
  run.info.revision = "benchmark";
  run.info.device = "NVIDIA H200";
  for (std::size_t i = 0; i < configurations; ++i) {
    store::Measurement m;
    m.kernel = "fa3";
    m.device = "NVIDIA H200";
    m.shape.seqlen_q = 64 * std::int64_t(1 + i % 100);
    m.shape.seqlen_k = 64 * std::int64_t(1 + i / 100);
    m.shape.batch = 1;
    const double base = 1e-6 * double(m.shape.seqlen_q * m.shape.seqlen_k) / 4096;
    for (int s = 0; s < 10; ++s) m.samples_s.push_back(base * scale * (1 + jitter(rng)));
    const TimingStats t = summarize(m.samples_s);
    m.median_s = t.median_s;
    m.p25_s = t.p25_s;
    m.p75_s = t.p75_s;
    m.min_s = t.min_s;
    m.max_s = t.max_s;
    m.tflops = attention_flops(m.shape, Pass::fwd) / m.median_s / 1e12;
    m.sm_clock_mhz = 1980;
    run.measurements.push_back(std::move(m));
  }
  return run;
}

void compare_two_runs(benchmark::State& state) {
  const auto configurations = static_cast<std::size_t>(state.range(0));
  const std::string path = (std::filesystem::temp_directory_path() /
                            ("fa4-compare-benchmark-" + std::to_string(::getpid()) + ".db"))
                               .string();
  {
    auto db = store::Store::open(path);
    if (!db) throw std::runtime_error(db.error().message);
    auto imported = db->import_runs(
        {synthetic_run(configurations, 1.0, 1), synthetic_run(configurations, 1.01, 2)});
    if (!imported) throw std::runtime_error(imported.error().message);
  }
  std::size_t rows = 0;
  for (auto _ : state) {
    auto db = store::Store::open(path, {.create = false, .read_only = true});
    if (!db) throw std::runtime_error(db.error().message);
    auto baseline = compare::read_side(*db, compare::SideSpec{path, 1, path});
    auto contender = compare::read_side(*db, compare::SideSpec{path, 2, path});
    if (!baseline || !contender) throw std::runtime_error("cannot read the runs");
    auto c = compare::compare_sides(std::move(*baseline), std::move(*contender), {}, {});
    if (!c) throw std::runtime_error(c.error().message);
    const std::string text = report::format_text(compare::comparison_table(*c));
    benchmark::DoNotOptimize(text.data());
    rows = c->rows.size();
  }
  std::filesystem::remove(path);
  state.counters["configurations"] = double(rows);
  state.counters["configurations_per_s"] =
      benchmark::Counter(double(rows) * double(state.iterations()), benchmark::Counter::kIsRate);
}
BENCHMARK(compare_two_runs)->Arg(1000)->Arg(10000)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
