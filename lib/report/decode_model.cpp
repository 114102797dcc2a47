#include "report/decode_model.hpp"

#include "model/profiles.hpp"
#include "report/roofline.hpp"

namespace fa4::report {

bool is_decode(const AttnShape& shape) { return regime(shape) == "decode"; }

std::optional<model::Options> our_decode_options(std::string_view kernel, const AttnShape& shape) {
  // The registry's decode kernels (lib/orchestration/kernel_models.cpp models both as fa3 with
  // these profile rows; the report sits below that layer, so it names them here).
  if (kernel != "fa3_decode" && kernel != "fa3_decode_nosplit") return std::nullopt;
  model::Options options;
  options.algorithm = model::Algorithm::fa3;
  options.pass = Pass::fwd;
  return model::with_kernel_profile(kernel, shape, options);
}

std::optional<model::Prediction> predict_our_decode(const hw::Spec& gpu, std::string_view kernel,
                                                    const AttnShape& shape) {
  const auto options = our_decode_options(kernel, shape);
  if (!options) return std::nullopt;
  auto p = model::predict(gpu, shape, *options);
  if (!p) return std::nullopt;
  return *p;
}

double moved_hbm_bytes(std::string_view kernel, const AttnShape& shape, Pass pass,
                       const hw::Spec* gpu) {
  if (gpu && pass == Pass::fwd)
    if (const auto p = predict_our_decode(*gpu, kernel, shape); p && p->hbm_bytes > 0)
      return p->hbm_bytes;
  return attention_min_hbm_bytes(shape, pass);
}

}  // namespace fa4::report
