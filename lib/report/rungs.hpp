// Our kernel ladder, naive -> fa2 -> fa3 -> fa4, and the peers beside it: the model's algorithms
// (model::kAllAlgorithms, in ladder order) under their names (model::to_string), which are the
// registry's kernel names; the backward rungs carry a "_bwd" suffix (fa2_bwd, fa3_bwd). A kernel
// named after a rung and an underscore (fa3_no_ws, fa3_bwd_atomics) is an ablation or variant of
// it. The report's sections take the rungs from here rather than from a list of their own.
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "core/shape.hpp"
#include "model/model.hpp"

namespace fa4::report {

// "fa3" forward, "fa3_bwd" backward: the registry's name of a rung of the pass.
inline std::string rung_kernel(model::Algorithm algorithm, Pass pass) {
  return std::string(model::to_string(algorithm)) + (pass == Pass::bwd ? "_bwd" : "");
}

// The kernel's place on the ladder of its pass (naive 0 ... fa4 3); nullopt for a kernel that is no
// rung of that pass (an ablation such as fa3_no_ws, or a peer's).
inline std::optional<std::size_t> rung_index(std::string_view kernel, Pass pass = Pass::fwd) {
  for (std::size_t i = 0; i < model::kAllAlgorithms.size(); ++i)
    if (rung_kernel(model::kAllAlgorithms[i], pass) == kernel) return i;
  return std::nullopt;
}

// The rung of the pass that `kernel` ablates ("fa3_no_pingpong" -> "fa3", "fa3_bwd_atomics" ->
// "fa3_bwd"); "" for a kernel that is no ablation of a rung of that pass.
inline std::string ablated_rung(std::string_view kernel, Pass pass) {
  for (model::Algorithm algorithm : model::kAllAlgorithms) {
    const std::string rung = rung_kernel(algorithm, pass);
    if (kernel.size() <= rung.size() || !kernel.starts_with(rung) || kernel[rung.size()] != '_')
      continue;
    // fa2_bwd and its variants are backward kernels, no forward ablation of fa2.
    if (pass == Pass::fwd && kernel.starts_with(rung_kernel(algorithm, Pass::bwd))) continue;
    return rung;
  }
  return "";
}

// The peers, in the order the report's columns show them; cuDNN (PyTorch SDPA's cuDNN backend) is
// the one our kernels are held against.
inline constexpr std::string_view kCudnn = "sdpa_cudnn";
inline constexpr std::array<std::string_view, 5> kPeerOrder = {
    "sdpa_cudnn", "sdpa_flash", "sdpa_efficient", "triton_fa", "sdpa_math"};

// "naive, fa2, fa3, fa4": the rungs in order, as the report's prose lists them.
inline std::string rung_names() {
  std::string out;
  for (model::Algorithm algorithm : model::kAllAlgorithms)
    out += (out.empty() ? "" : ", ") + std::string(model::to_string(algorithm));
  return out;
}

}  // namespace fa4::report
