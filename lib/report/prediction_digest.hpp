// What the report shows of the stored predictions, gathered by reading them as a stream
// (Store::for_each_report_row) so that the report never holds them all: a sweep may store
// millions. Two passes make the digest (counts, runs, and the few points each chart line draws);
// the CSV files that list every prediction read them once more, as they are written.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/error.hpp"
#include "hw/spec.hpp"
#include "store/store.hpp"

namespace fa4::report {

using VisitPrediction = std::function<void(const store::ReportRow&)>;
// Reads the predictions `filter` keeps in the store's report order (Store::for_each_report_row),
// calling `visit` with each.
using ReadPredictions =
    std::function<Status(const store::ReportRowFilter& filter, const VisitPrediction& visit)>;

// Reads rows held in memory (tests, small inputs), in their order.
ReadPredictions read_from(std::vector<store::ReportRow> rows);

// A chart line's family: one GPU, pass, head dims, mask, heads and dtype.
struct SweepGroupKey {
  std::size_t gpu_rank;  // position in the hardware list: the report's GPU order
  std::string gpu;
  Pass pass;
  std::int64_t headdim, headdim_v;
  bool causal;
  std::int64_t heads_q, heads_kv;
  Dtype dtype;
  auto operator<=>(const SweepGroupKey&) const = default;
};

struct SweepPoint {
  std::int64_t seqlen_q, seqlen_k, batch;
  auto operator<=>(const SweepPoint&) const = default;
};

struct SweepGroup {
  std::set<model::Algorithm> kernels;
  // The token count (batch x seqlen_q) most of the group's shapes have: a chart's line keeps to
  // one, so two sweeps stored side by side do not zigzag.
  std::int64_t tokens = 0;
  // TFLOP/s of the group's shapes with seqlen_q = seqlen_k at `tokens`: the points drawn.
  std::map<SweepPoint, std::map<model::Algorithm, double>> tflops;
};

struct PredictionDigest {
  std::size_t count = 0;
  std::set<std::pair<std::int64_t, std::string>> runs;  // (run id, revision) of every prediction
  std::vector<std::string> gpus;                        // with predictions, in the report's order
  // Per GPU: "3 (revision abc1234)" of its runs, and its model versions.
  std::map<std::string, std::set<std::string>> runs_of_gpu, model_versions_of_gpu;
  // The groups the charts draw: bf16, as many KV heads as query heads, equal head dims (the
  // papers' setting).
  std::map<SweepGroupKey, SweepGroup> charted;
  ReadPredictions read;  // every prediction again, for the CSV files
};

// Reads the predictions twice through `read`; `gpus` orders them as the report does.
Result<PredictionDigest> digest_predictions(ReadPredictions read,
                                            const std::vector<hw::Spec>& gpus);

}  // namespace fa4::report
