// Published and previously measured figures (data/published/*.json), each with its source, for
// checking the model against numbers it did not produce: input, loaded here for `import`, the
// `published` command and the report (report/published.hpp compares them with the model).
//
// A file: {"source", "citation", "figures": [...]} and, for figures read from a public repository
// or thread, "origins": {"NAME": {"repository", "path" | "pull_request" | "issue", "commit" |
// "date", "software", "flop_convention"}}. A figure: {"gpu", "kernel", "pass", "shape", "tflops"}
// and optionally "modeled_as", "role", "note", "origin" (a NAME of its file's origins: the figure
// is then copied exactly as published and must say its role), "sliding_window" (keys per query
// as published, each query's own key included: the shape's window) and
// "modeled_on" (the hardware model that stands for a GPU the figure names only by architecture,
// "sm100"; its note says why) and "outside_bounds" (a NAME of the file's
// "outside_bounds_reasons": {"NAME": "why"}: the figure, still modeled and shown, is left out of
// the error bounds for what the record shows that the model cannot follow). An origin may name its
// "flop_count" where it differs from the project's convention (core/shape.hpp):
// "diagonal_inclusive" (cuDNN's benchmark_single_sdpa.py), what its benchmark "timed"
// ("kernels" or "calls") and whether it flushed L2 before each call ("l2_flushed": true or
// false). A file may say in "role_rule" how its
// figures' roles were chosen. Any other key, and a key given twice in one object, is refused with
// the file and its JSON pointer.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/shape.hpp"
#include "hw/spec.hpp"
#include "model/model.hpp"

namespace fa4::published {

// How a source counted the FLOPs behind its TFLOP/s, when it did so differently from the model.
enum class FlopCount {
  // core/shape.hpp: P = s_q*s_k or, causal, the continuous triangle (s^2/2); backward 2.5x forward.
  // Also the convention of cudnn-frontend's older benchmark and of FlashAttention's scripts.
  project,
  // cudnn-frontend's benchmark_single_sdpa.py: causal P counts the diagonal, s(s+1)/2 at
  // s_q == s_k; backward = 2*b*h_q*P*(3*d_qk + 2*d_vo) (2.6x forward at head dims 192/128).
  diagonal_inclusive,
};

// Where a figure was read: one repository file, pull request or issue, at a commit or a date.
struct Provenance {
  std::string repository;                     // "NVIDIA/cudnn-frontend"
  std::string path;                           // a file in the repository, or empty
  std::int64_t pull_request = 0;              // or 0
  std::int64_t issue = 0;                     // or 0
  std::string commit;                         // the commit read, or empty
  std::string date;                           // YYYY-MM-DD of the post or run, or empty
  std::string software;                       // the versions the source names
  std::string flop_convention;                // how the source counted the FLOPs behind its TFLOP/s
  FlopCount flop_count = FlopCount::project;  // the same, as a rule the comparison applies
  // What the benchmark timed: one framework call each (CUDA events around the call, the default)
  // or the kernels' own device durations ("timed": "kernels", no host work in the figure).
  bool times_kernels = false;
  // The benchmark flushed L2 before each timed call by writing a buffer larger than it
  // ("l2_flushed": true): the call starts with L2 full of dirty lines.
  bool flushes_l2 = false;
};

struct PublishedFigure {
  std::string source;    // "published:papers", "measured:peer-timings-h200"
  std::string citation;  // the file's citation
  std::string gpu;       // hardware model id
  std::string kernel;    // as published: "fa4", "sdpa-cudnn", "fa3-no-pipelining"
  std::optional<model::Algorithm> modeled_as;  // the model's algorithm for it, if any
  Pass pass = Pass::fwd;
  AttnShape shape;
  double tflops = 0;
  // "fitted" (a model factor was fitted to it), "target", "fit" (a factor may be fitted to it),
  // "held_out" (chosen before any fitting never to be fitted), or "" (held out)
  std::string role;
  std::string note;
  std::optional<Provenance> provenance;  // for figures with an "origin"
  std::string modeled_on;                // hardware model for a GPU named by architecture, or ""
  std::string outside_bounds;            // why it is left out of the error bounds (the file's
                                         // reason it names), or ""
  std::string where;                     // "data/published/x.json: /figures/3", for messages
  // The hardware model id the figure is modeled on: modeled_on, or its GPU.
  const std::string& model_gpu() const { return modeled_on.empty() ? gpu : modeled_on; }
};

// The FLOPs the figure's source counted for its shape and pass (its origin's flop_count).
double published_flops(const PublishedFigure& figure);

Result<std::vector<PublishedFigure>> load_published(const std::filesystem::path& file);
// Every *.json under the folder, in file-name order.
Result<std::vector<PublishedFigure>> load_published_dir(const std::filesystem::path& dir);
// The top-level files, then the published record (dir/record/*.json) when the folder has one.
Result<std::vector<PublishedFigure>> load_published_tree(const std::filesystem::path& dir);

// Ok, or the first figure whose GPU (or modeled_on) is none of the hardware models `gpus`, or whose
// TFLOP/s exceed its model's dense tensor-core peak at the boost clock by more than 10% (no kernel
// beats the tensor cores: the figure or its shape is wrong), named by its file and index.
Status check_against_models(const std::vector<PublishedFigure>& figures,
                            const std::vector<hw::Spec>& gpus);

}  // namespace fa4::published
