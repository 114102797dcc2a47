#include "report/prediction_digest.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <memory>

namespace fa4::report {
namespace {

SweepGroupKey key_of(const std::vector<hw::Spec>& gpus, const store::ReportRow& r) {
  const auto it =
      std::find_if(gpus.begin(), gpus.end(), [&](const auto& g) { return g.id == r.gpu; });
  const AttnShape& s = r.shape;
  return {std::size_t(it - gpus.begin()),
          r.gpu,
          r.pass,
          s.headdim,
          s.headdim_v,
          s.causal,
          s.heads_q,
          s.heads_kv,
          s.dtype};
}

bool charted(const SweepGroupKey& key) {
  return key.heads_q == key.heads_kv && key.dtype == Dtype::bf16 && key.headdim == key.headdim_v;
}

SweepPoint point_of(const store::ReportRow& r) {
  return {r.shape.seqlen_q, r.shape.seqlen_k, r.shape.batch};
}

// The token count most of the shapes have (the smallest of equals).
std::int64_t common_tokens(const std::set<SweepPoint>& shapes) {
  std::map<std::int64_t, int> count;
  for (const SweepPoint& p : shapes) ++count[p.batch * p.seqlen_q];
  return std::max_element(count.begin(), count.end(),
                          [](auto& a, auto& b) { return a.second < b.second; })
      ->first;
}

}  // namespace

ReadPredictions read_from(std::vector<store::ReportRow> rows) {
  auto held = std::make_shared<const std::vector<store::ReportRow>>(std::move(rows));
  return [held](const store::ReportRowFilter& filter, const VisitPrediction& visit) {
    for (const store::ReportRow& r : *held)
      if ((filter.gpu.empty() || r.gpu == filter.gpu) &&
          (!filter.square_only || r.shape.seqlen_q == r.shape.seqlen_k))
        visit(r);
    return Status{Ok{}};
  };
}

Result<PredictionDigest> digest_predictions(ReadPredictions read,
                                            const std::vector<hw::Spec>& gpus) {
  PredictionDigest d;
  // First pass: counts, runs, and the distinct shapes of each charted group (for its tokens).
  std::set<std::pair<std::size_t, std::string>> ranked_gpus;
  std::map<SweepGroupKey, std::set<SweepPoint>> shapes;
  auto first = read({}, [&](const store::ReportRow& r) {
    ++d.count;
    d.runs.insert({r.run_id, r.revision});
    d.runs_of_gpu[r.gpu].insert(fmt::format("{} (revision {})", r.run_id, r.revision));
    d.model_versions_of_gpu[r.gpu].insert(r.model_version);
    const SweepGroupKey key = key_of(gpus, r);
    ranked_gpus.insert({key.gpu_rank, r.gpu});
    if (!charted(key)) return;
    d.charted[key].kernels.insert(r.algorithm);
    shapes[key].insert(point_of(r));
  });
  if (!first) return first.error();
  for (const auto& [rank, gpu] : ranked_gpus) d.gpus.push_back(gpu);
  for (auto& [key, group] : d.charted) group.tokens = common_tokens(shapes[key]);
  shapes.clear();
  // Second pass: the points the lines draw (square shapes only, contiguous and uniform: a paged
  // or ragged variant of a point is left to the CSV).
  auto second = read({.square_only = true}, [&](const store::ReportRow& r) {
    const auto group = d.charted.find(key_of(gpus, r));
    if (group == d.charted.end() || serving_fields(r.shape) != ServingFields{}) return;
    const SweepPoint p = point_of(r);
    if (p.seqlen_q == p.seqlen_k && p.batch * p.seqlen_q == group->second.tokens)
      group->second.tflops[p][r.algorithm] = r.tflops;
  });
  if (!second) return second.error();
  d.read = std::move(read);
  return d;
}

}  // namespace fa4::report
