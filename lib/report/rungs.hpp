// Our kernel ladder, naive -> fa2 -> fa3 -> fa4: the model's algorithms (model::kAllAlgorithms, in
// ladder order) under their names (model::to_string), which are the registry's kernel names. The
// report's sections take the rungs from here rather than from a list of their own.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "model/model.hpp"

namespace fa4::report {

// The kernel's place on the ladder (naive 0 ... fa4 3); nullopt for a kernel that is no rung (an
// ablation such as fa3_no_ws, or a peer's).
inline std::optional<std::size_t> rung_index(std::string_view kernel) {
  for (std::size_t i = 0; i < model::kAllAlgorithms.size(); ++i)
    if (model::to_string(model::kAllAlgorithms[i]) == kernel) return i;
  return std::nullopt;
}

// "naive, fa2, fa3, fa4": the rungs in order, as the report's prose lists them.
inline std::string rung_names() {
  std::string out;
  for (model::Algorithm algorithm : model::kAllAlgorithms)
    out += (out.empty() ? "" : ", ") + std::string(model::to_string(algorithm));
  return out;
}

}  // namespace fa4::report
