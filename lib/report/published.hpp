// Published and previously measured figures (data/published/*.json), each with its source, for
// checking the model against numbers it did not produce.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/shape.hpp"
#include "model/model.hpp"

namespace fa4::report {

struct PublishedFigure {
  std::string source;    // "published:papers", "measured:peer-timings-h200"
  std::string citation;  // the file's citation
  std::string gpu;       // hardware model id
  std::string kernel;    // as published: "fa4", "sdpa-cudnn", "fa3-no-pipelining"
  std::optional<model::Algorithm> modeled_as;  // the model's algorithm for it, if any
  Pass pass = Pass::fwd;
  AttnShape shape;
  double tflops = 0;
  std::string role;  // "fitted" (a model factor was fitted to it), "target", or "" (held out)
  std::string note;
};

Result<std::vector<PublishedFigure>> load_published(const std::filesystem::path& file);
// Every *.json under the folder, in file-name order.
Result<std::vector<PublishedFigure>> load_published_dir(const std::filesystem::path& dir);

}  // namespace fa4::report
