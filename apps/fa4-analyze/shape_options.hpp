// The shape flags shared by the subcommands that take one attention problem (model, bench,
// roofline, whatif): --batch --heads --heads-kv --seqlen | --seqlen-q --seqlen-k --headdim
// --headdim-v --causal --window --dtype, and serving's --page-size, --seqlens-k | --ragged and
// --splits.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>
#include <vector>

#include "core/shape.hpp"

namespace fa4::app {

class ShapeOptions {
 public:
  void add_to(CLI::App& command);
  // The shape the flags describe, validated; throws UserError with the reason.
  AttnShape shape() const;
  // Whether any shape flag was given on the command line (after parsing).
  bool any_given() const;

 private:
  // A ragged batch's key counts from --seqlens-k or --ragged (none for a uniform batch), with
  // the batch and the capacity they imply when --batch or the key length is not given.
  void add_ragged_keys(AttnShape& s) const;

  std::int64_t batch_ = 2, heads_ = 16, heads_kv_ = 0, seqlen_ = 8192, seqlen_q_ = 0, seqlen_k_ = 0,
               headdim_ = 128, headdim_v_ = 0, window_ = 0, page_size_ = 0, splits_ = 0;
  bool causal_ = false;
  std::string dtype_ = "bf16", seqlens_k_, ragged_;
  std::vector<const CLI::Option*> flags_;
  const CLI::Option *batch_flag_ = nullptr, *seqlen_flag_ = nullptr, *seqlen_k_flag_ = nullptr,
                    *seqlens_k_flag_ = nullptr, *ragged_flag_ = nullptr;
};

}  // namespace fa4::app
