// The shape flags shared by the subcommands that take one attention problem (model, bench):
// --batch --heads --heads-kv --seqlen | --seqlen-q --seqlen-k --headdim --headdim-v --causal
// --window --dtype.
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
  std::int64_t batch_ = 2, heads_ = 16, heads_kv_ = 0, seqlen_ = 8192, seqlen_q_ = 0, seqlen_k_ = 0,
               headdim_ = 128, headdim_v_ = 0, window_ = 0;
  bool causal_ = false;
  std::string dtype_ = "bf16";
  std::vector<const CLI::Option*> flags_;
};

}  // namespace fa4::app
