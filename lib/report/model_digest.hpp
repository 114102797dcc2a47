// The model's predictions the report shows beside its inputs, made once before any section
// renders (render_report), so that the sections render and do not predict: the published figures
// beside the model (the published section and the summary's trust line), and one representative
// prediction per kernel and pass (the factors section).
#pragma once

#include <string>
#include <vector>

#include "core/error.hpp"
#include "hw/spec.hpp"
#include "model/model.hpp"
#include "report/published.hpp"

namespace fa4::report {

// A kernel's prediction at the factors section's shape on the first GPU built for it.
struct RepresentativePrediction {
  model::Algorithm algorithm;
  Pass pass;
  const hw::Spec* gpu = nullptr;
  Result<model::Prediction> prediction;
};

struct ModelDigest {
  std::vector<FigureVsModel> published;  // point into the figures digest_model was given
  std::vector<RepresentativePrediction> representatives;
};

// FA4's hd128 setting at seqlen 8k (32k tokens, hidden 2048): the representative shape.
AttnShape representative_shape();

ModelDigest digest_model(const std::vector<hw::Spec>& gpus,
                         const std::vector<PublishedFigure>& figures);
// The rows point into `figures`: a temporary would leave them dangling.
ModelDigest digest_model(const std::vector<hw::Spec>& gpus,
                         std::vector<PublishedFigure>&& figures) = delete;

}  // namespace fa4::report
