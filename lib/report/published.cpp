#include "report/published.hpp"

#include <algorithm>
#include <fstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/sweep.hpp"

namespace fa4::report {
namespace {

using nlohmann::json;

Result<std::string> string_at(const json& o, const char* key, const std::string& where) {
  if (!o.contains(key) || !o.at(key).is_string())
    return Error{fmt::format("{}/{}: missing; expected a string", where, key)};
  return o.at(key).get<std::string>();
}

Result<PublishedFigure> parse_figure(const json& f, const std::string& where) {
  PublishedFigure fig;
  auto gpu = string_at(f, "gpu", where);
  if (!gpu) return gpu.error();
  auto kernel = string_at(f, "kernel", where);
  if (!kernel) return kernel.error();
  auto pass = string_at(f, "pass", where);
  if (!pass) return pass.error();
  auto parsed_pass = parse_pass(*pass);
  if (!parsed_pass) return Error{fmt::format("{}/pass: {}", where, parsed_pass.error().message)};
  if (!f.contains("tflops") || !f.at("tflops").is_number() || f.at("tflops").get<double>() <= 0)
    return Error{fmt::format("{}/tflops: expected a positive number", where)};
  if (!f.contains("shape")) return Error{fmt::format("{}/shape: missing; expected an object", where)};
  auto shape = parse_shape(f.at("shape"), where + "/shape");
  if (!shape) return shape.error();
  fig.gpu = *gpu;
  fig.kernel = *kernel;
  fig.pass = *parsed_pass;
  fig.shape = *shape;
  fig.tflops = f.at("tflops").get<double>();
  if (f.contains("modeled_as")) {
    auto name = string_at(f, "modeled_as", where);
    if (!name) return name.error();
    auto algorithm = model::parse_algorithm(*name);
    if (!algorithm) return Error{fmt::format("{}/modeled_as: {}", where, algorithm.error().message)};
    fig.modeled_as = *algorithm;
  }
  if (f.contains("role")) {
    auto role = string_at(f, "role", where);
    if (!role) return role.error();
    if (*role != "fitted" && *role != "target")
      return Error{fmt::format("{}/role: expected \"fitted\" or \"target\"", where)};
    fig.role = *role;
  }
  if (f.contains("note") && f.at("note").is_string()) fig.note = f.at("note").get<std::string>();
  return fig;
}

}  // namespace

Result<std::vector<PublishedFigure>> load_published(const std::filesystem::path& file) {
  std::ifstream in(file);
  if (!in) return Error{fmt::format("{}: cannot open the published-figures file", file.string())};
  json doc;
  try {
    doc = json::parse(in);
  } catch (const json::parse_error& e) {
    return Error{fmt::format("{}: not valid JSON ({}); fix the file", file.string(), e.what())};
  }
  const std::string origin = file.string() + ": ";
  auto source = string_at(doc, "source", origin);
  if (!source) return source.error();
  auto citation = string_at(doc, "citation", origin);
  if (!citation) return citation.error();
  if (!doc.contains("figures") || !doc.at("figures").is_array())
    return Error{fmt::format("{}/figures: expected an array", origin)};
  std::vector<PublishedFigure> figures;
  for (std::size_t i = 0; i < doc.at("figures").size(); ++i) {
    auto fig = parse_figure(doc.at("figures")[i], fmt::format("{}/figures/{}", origin, i));
    if (!fig) return fig.error();
    fig->source = *source;
    fig->citation = *citation;
    figures.push_back(std::move(fig).value());
  }
  return figures;
}

Result<std::vector<PublishedFigure>> load_published_dir(const std::filesystem::path& dir) {
  std::vector<std::filesystem::path> files;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec))
    if (entry.path().extension() == ".json") files.push_back(entry.path());
  if (ec) return Error{fmt::format("{}: cannot list published figures: {}", dir.string(), ec.message())};
  std::sort(files.begin(), files.end());
  std::vector<PublishedFigure> all;
  for (const auto& file : files) {
    auto figures = load_published(file);
    if (!figures) return figures.error();
    all.insert(all.end(), figures->begin(), figures->end());
  }
  return all;
}

}  // namespace fa4::report
