// Workload sweeps (data/sweeps/*.json): a named list of attention shapes, written either as a
// grid (the papers' settings: total tokens and hidden size fixed, head dim and seqlen varied) or
// as explicit shapes (real models such as Llama-3 with GQA).
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "core/error.hpp"
#include "core/shape.hpp"

namespace fa4 {

struct Sweep {
  std::string name;
  std::string description;
  std::vector<AttnShape> shapes;
  // Set when the grid's total_tokens is not a multiple of some seqlen: what the rounding of
  // those shapes' batch did, for the command to print.
  std::optional<std::string> rounding_note;
};

// Errors name the file, the JSON pointer and what was expected.
Result<Sweep> load_sweep(const std::filesystem::path& file);
Result<Sweep> parse_sweep(const nlohmann::json& doc, const std::string& origin);
// The JSON text of a sweep file; `origin` names it in errors.
Result<Sweep> parse_sweep_text(std::string_view text, const std::string& origin);

// One shape object: {"batch", "heads", "heads_kv", "seqlen", "seqlen_q", "seqlen_k", "headdim",
// "headdim_v", "causal", "window", "dtype", "page_size", "seqlens_k", "ragged", "splits"};
// "seqlen_q" and "seqlen_k" each override "seqlen" for their side (as the shape flags:
// side_seqlen), heads_kv defaults to heads, headdim_v to headdim, window (a sliding window of that
// many keys, with causal) to none. Serving: page_size (tokens per KV-cache page) and splits
// (split-KV parts) default to 0 (contiguous; the kernel's choice); a ragged batch gives its key
// counts as "seqlens_k" (one per sequence) or as "ragged": {"min", "max", "seed"} (batch counts
// drawn log-uniform: core/ragged.hpp), the longest count being seqlen_k when no seqlen gives it.
Result<AttnShape> parse_shape(const nlohmann::json& object, const std::string& where);

}  // namespace fa4
