// Every registered kernel's prediction (lib/orchestration/kernel_models.cpp) on every shipped GPU
// model over a grid of shapes, one JSON line each (or the model's refusal): the kernels' part of
// scripts/model-identity.sh, which diffs it before and after a change that must not move a figure.
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "hw/loader.hpp"
#include "model/describe.hpp"
#include "orchestration/kernel_models.hpp"

namespace {

std::vector<fa4::AttnShape> shape_grid() {
  std::vector<fa4::AttnShape> out;
  for (std::int64_t headdim : {64, 96, 128, 192, 256})
    for (std::int64_t seqlen : {128, 512, 1024, 4096, 8192, 16384})
      for (bool causal : {false, true})
        for (std::int64_t heads_kv : {16, 2})
          for (fa4::Dtype dtype : {fa4::Dtype::bf16, fa4::Dtype::fp8}) {
            fa4::AttnShape s;
            s.batch = std::max<std::int64_t>(1, 16384 / seqlen);
            s.heads_q = 16;
            s.heads_kv = heads_kv;
            s.seqlen_q = s.seqlen_k = seqlen;
            s.headdim = headdim;
            s.headdim_v = headdim == 192 ? 128 : headdim;
            s.causal = causal;
            s.dtype = dtype;
            out.push_back(s);
          }
  fa4::AttnShape decode;  // one query row against a long cache
  decode.batch = 8;
  decode.heads_q = 32;
  decode.heads_kv = 8;
  decode.seqlen_q = 1;
  decode.seqlen_k = 8192;
  out.push_back(decode);
  fa4::AttnShape windowed = decode;
  windowed.seqlen_q = windowed.seqlen_k = 8192;
  windowed.causal = true;
  windowed.window = 1024;
  out.push_back(windowed);
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string models = argc > 1 ? argv[1] : std::string(FA4_SOURCE_DIR) + "/models";
  auto specs = fa4::hw::load_all_specs(models);
  if (!specs) {
    fmt::print(stderr, "{}\n", specs.error().message);
    return 1;
  }
  const auto shapes = shape_grid();
  for (const auto& kernel : fa4::orchestration::kernel_models())
    for (const auto& gpu : *specs)
      for (std::size_t i = 0; i < shapes.size(); ++i) {
        auto p = fa4::model::predict(gpu, shapes[i],
                                     fa4::orchestration::model_options(kernel, shapes[i]));
        fmt::print("{} {} {} {}\n", kernel.kernel, gpu.id, i,
                   p ? fa4::model::prediction_json(*p).dump() : "refused: " + p.error().message);
      }
  return 0;
}
