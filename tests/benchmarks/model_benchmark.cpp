// Throughput of the analytic model: a 10,000-shape sweep predicted on one core.
// Aim: the whole sweep in under 50 ms. Run: build/tests/benchmarks/model_benchmark
#include <benchmark/benchmark.h>

#include <stdexcept>
#include <vector>

#include "hw/loader.hpp"
#include "model/model.hpp"

namespace {

using namespace fa4;

std::vector<AttnShape> ten_thousand_shapes() {
  std::vector<AttnShape> shapes;
  const std::int64_t dims[] = {64, 96, 128, 192, 256};
  const std::int64_t heads[] = {8, 16, 32, 64, 128};
  for (std::int64_t seqlen = 128; shapes.size() < 10000; seqlen += 128)
    for (std::int64_t d : dims)
      for (std::int64_t h : heads)
        for (bool causal : {false, true}) {
          AttnShape s;
          s.seqlen_q = s.seqlen_k = seqlen;
          s.batch = std::max<std::int64_t>(1, 32768 / seqlen);
          s.headdim = s.headdim_v = d;
          s.heads_q = h;
          s.heads_kv = h / 8 ? h / 8 : 1;
          s.causal = causal;
          shapes.push_back(s);
        }
  shapes.resize(10000);
  return shapes;
}

const std::vector<hw::Spec>& specs() {
  static const std::vector<hw::Spec> loaded = [] {
    auto r = hw::load_all_specs(std::string(FA4_SOURCE_DIR) + "/models");
    if (!r) throw std::runtime_error(r.error().message);
    return std::move(r).value();
  }();
  return loaded;
}

void predict_sweep(benchmark::State& state, const char* gpu_id, model::Algorithm algorithm) {
  const hw::Spec& gpu = **hw::find_spec(specs(), gpu_id);
  const auto shapes = ten_thousand_shapes();
  model::Options options;
  options.algorithm = algorithm;
  for (auto _ : state) {
    double total = 0;
    for (const AttnShape& s : shapes) {
      auto p = model::predict(gpu, s, options);
      total += p ? p->tflops : 0;
    }
    benchmark::DoNotOptimize(total);
  }
  state.SetItemsProcessed(state.iterations() * std::int64_t(shapes.size()));
}

BENCHMARK_CAPTURE(predict_sweep, fa3_h100_10k_shapes, "h100-sxm", model::Algorithm::fa3)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(predict_sweep, fa4_b200_10k_shapes, "b200", model::Algorithm::fa4)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(predict_sweep, fa2_h200_10k_shapes, "h200", model::Algorithm::fa2)
    ->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
