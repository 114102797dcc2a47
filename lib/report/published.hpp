// Published and previously measured figures (data/published/*.json), each with its source, for
// checking the model against numbers it did not produce.
//
// A file: {"source", "citation", "figures": [...]} and, for figures read from a public repository
// or thread, "origins": {"NAME": {"repository", "path" | "pull_request" | "issue", "commit" |
// "date", "software", "flop_convention"}}. A figure: {"gpu", "kernel", "pass", "shape", "tflops"}
// and optionally "modeled_as", "role", "note", "origin" (a NAME of its file's origins: the figure
// is then copied exactly as published and must say its role) and "sliding_window" (keys per query
// as published; the model has no sliding window, so such a figure names no modeled_as).
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/shape.hpp"
#include "model/model.hpp"

namespace fa4::report {

// Where a figure was read: one repository file, pull request or issue, at a commit or a date.
struct Provenance {
  std::string repository;         // "NVIDIA/cudnn-frontend"
  std::string path;               // a file in the repository, or empty
  std::int64_t pull_request = 0;  // or 0
  std::int64_t issue = 0;         // or 0
  std::string commit;             // the commit read, or empty
  std::string date;               // YYYY-MM-DD of the post or run, or empty
  std::string software;           // the versions the source names
  std::string flop_convention;    // how the source counted the FLOPs behind its TFLOP/s
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
  std::int64_t sliding_window = 0;       // 0: none
};

Result<std::vector<PublishedFigure>> load_published(const std::filesystem::path& file);
// Every *.json under the folder, in file-name order.
Result<std::vector<PublishedFigure>> load_published_dir(const std::filesystem::path& dir);

}  // namespace fa4::report
