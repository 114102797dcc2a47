#include "report/model_digest.hpp"

#include "model/algorithm_traits.hpp"
#include "report/tile_cases.hpp"

namespace fa4::report {
namespace {

// The first GPU built for the algorithm, else the first that runs it.
const hw::Spec* representative_gpu(const std::vector<hw::Spec>& gpus, model::Algorithm a) {
  for (const auto& g : gpus)
    if (native_algorithm(g) == a) return &g;
  for (const auto& g : gpus)
    if (!model::unsupported_reason(g, a)) return &g;
  return nullptr;
}

}  // namespace

AttnShape representative_shape() {
  AttnShape s;
  s.batch = 4;
  s.heads_q = s.heads_kv = 16;
  s.seqlen_q = s.seqlen_k = 8192;
  s.headdim = s.headdim_v = 128;
  return s;
}

ModelDigest digest_model(const std::vector<hw::Spec>& gpus,
                         const std::vector<PublishedFigure>& figures) {
  ModelDigest out;
  out.published = compare_with_model(gpus, figures);
  for (model::Algorithm a : model::kAllAlgorithms) {
    const hw::Spec* gpu = representative_gpu(gpus, a);
    if (!gpu) continue;
    for (Pass pass : {Pass::fwd, Pass::bwd}) {
      model::Options options;
      options.algorithm = a;
      options.pass = pass;
      out.representatives.push_back(
          {a, pass, gpu, model::predict(*gpu, representative_shape(), options)});
    }
  }
  return out;
}

}  // namespace fa4::report
