#include "store/published_figures.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>

#include "core/json_keys.hpp"
#include "core/read_file.hpp"
#include "core/sweep.hpp"
#include "hw/loader.hpp"

namespace fa4::published {
namespace {

using nlohmann::json;

Result<std::string> string_at(const json& o, const char* key, const std::string& where) {
  if (!o.contains(key) || !o.at(key).is_string())
    return Error{fmt::format("{}/{}: missing; expected a string", where, key)};
  return o.at(key).get<std::string>();
}

using Origins = std::map<std::string, Provenance, std::less<>>;

std::string optional_string(const json& o, const char* key) {
  return o.contains(key) && o.at(key).is_string() ? o.at(key).get<std::string>() : "";
}

std::int64_t optional_positive(const json& o, const char* key) {
  return o.contains(key) && o.at(key).is_number_integer() ? o.at(key).get<std::int64_t>() : 0;
}

Result<Provenance> parse_origin(const json& o, const std::string& where) {
  if (!o.is_object()) return Error{fmt::format("{}: expected an object", where)};
  if (auto ok = check_known_keys(o,
                                 {"repository", "software", "flop_convention", "flop_count", "path",
                                  "pull_request", "issue", "commit", "date", "timed", "l2_flushed"},
                                 where);
      !ok)
    return ok.error();
  Provenance p;
  const std::pair<const char*, std::string*> required[] = {{"repository", &p.repository},
                                                           {"software", &p.software},
                                                           {"flop_convention", &p.flop_convention}};
  for (const auto& [key, field] : required) {
    auto text = string_at(o, key, where);
    if (!text) return text.error();
    *field = *text;
  }
  const std::string count = optional_string(o, "flop_count");
  if (count == "diagonal_inclusive")
    p.flop_count = FlopCount::diagonal_inclusive;
  else if (!count.empty() || o.contains("flop_count"))
    return Error{
        fmt::format("{}/flop_count: expected \"diagonal_inclusive\", or leave it out for "
                    "the project's convention (core/shape.hpp)",
                    where)};
  const std::string timed = optional_string(o, "timed");
  if (timed == "kernels")
    p.times_kernels = true;
  else if (timed != "calls" && o.contains("timed"))
    return Error{fmt::format("{}/timed: expected \"kernels\" (the benchmark summed the kernels' "
                             "device durations) or \"calls\" (it timed each call; the default)",
                             where)};
  if (o.contains("l2_flushed")) {
    if (!o.at("l2_flushed").is_boolean())
      return Error{
          fmt::format("{}/l2_flushed: expected true (the benchmark wrote a buffer larger "
                      "than L2 before each timed call) or false",
                      where)};
    p.flushes_l2 = o.at("l2_flushed").get<bool>();
  }
  p.path = optional_string(o, "path");
  p.pull_request = optional_positive(o, "pull_request");
  p.issue = optional_positive(o, "issue");
  p.commit = optional_string(o, "commit");
  p.date = optional_string(o, "date");
  if (p.path.empty() && p.pull_request <= 0 && p.issue <= 0)
    return Error{
        fmt::format("{}: name where the figures were read: \"path\", \"pull_request\" "
                    "or \"issue\" (a positive number)",
                    where)};
  if (p.commit.empty() && p.date.empty())
    return Error{fmt::format("{}: name when: \"commit\" or \"date\"", where)};
  return p;
}

Result<Origins> parse_origins(const json& doc, const std::string& origin) {
  Origins origins;
  if (!doc.contains("origins")) return origins;
  if (!doc.at("origins").is_object())
    return Error{fmt::format("{}/origins: expected an object of named origins", origin)};
  for (const auto& [name, o] : doc.at("origins").items()) {
    auto p = parse_origin(o, fmt::format("{}/origins/{}", origin, name));
    if (!p) return p.error();
    origins.emplace(name, *p);
  }
  return origins;
}

// The file's named reasons for leaving figures out of the error bounds.
using Reasons = std::map<std::string, std::string, std::less<>>;

Result<Reasons> parse_reasons(const json& doc, const std::string& origin) {
  Reasons reasons;
  if (!doc.contains("outside_bounds_reasons")) return reasons;
  const json& all = doc.at("outside_bounds_reasons");
  if (!all.is_object())
    return Error{
        fmt::format("{}/outside_bounds_reasons: expected an object of named reasons", origin)};
  for (const auto& [name, text] : all.items()) {
    if (!text.is_string() || text.get<std::string>().empty())
      return Error{fmt::format(
          "{}/outside_bounds_reasons/{}: expected a string saying why the figures that name it "
          "are left out of the error bounds",
          origin, name)};
    reasons.emplace(name, text.get<std::string>());
  }
  return reasons;
}

// A figure read from an origin is copied as published: it names its role, and its sliding
// window (as the source names it, beside the shape) becomes the shape's window.
Status parse_record_fields(const json& f, const Origins& origins, const Reasons& reasons,
                           const std::string& where, PublishedFigure& fig) {
  if (f.contains("sliding_window")) {
    const std::int64_t window = optional_positive(f, "sliding_window");
    if (window <= 0)
      return Error{fmt::format("{}/sliding_window: expected a positive integer", where)};
    if (fig.shape.window)
      return Error{fmt::format(
          "{}/sliding_window: the shape has its own window; give the window once", where)};
    fig.shape.window = window;
    if (auto ok = validate(fig.shape); !ok)
      return Error{fmt::format("{}/sliding_window: {}", where, ok.error().message)};
  }
  if (f.contains("outside_bounds")) {
    auto name = string_at(f, "outside_bounds", where);
    if (!name) return name.error();
    const auto it = reasons.find(*name);
    if (it == reasons.end())
      return Error{fmt::format(
          "{}/outside_bounds: \"{}\" is not one of the file's outside_bounds_reasons; add it "
          "there with the reason",
          where, *name)};
    fig.outside_bounds = it->second;
  }
  if (f.contains("modeled_on")) {
    auto on = string_at(f, "modeled_on", where);
    if (!on) return on.error();
    fig.modeled_on = *on;
  }
  if (!f.contains("origin")) return Ok{};
  auto name = string_at(f, "origin", where);
  if (!name) return name.error();
  const auto it = origins.find(*name);
  if (it == origins.end())
    return Error{fmt::format("{}/origin: \"{}\" is not one of the file's origins; add it there",
                             where, *name)};
  fig.provenance = it->second;
  if (fig.role != "fit" && fig.role != "held_out")
    return Error{fmt::format(
        "{}/role: a figure with an origin says \"fit\" or \"held_out\", chosen before fitting",
        where)};
  return Ok{};
}

Result<PublishedFigure> parse_figure(const json& f, const Origins& origins, const Reasons& reasons,
                                     const std::string& where) {
  PublishedFigure fig;
  if (!f.is_object()) return Error{fmt::format("{}: expected an object", where)};
  if (auto ok =
          check_known_keys(f,
                           {"gpu", "kernel", "pass", "shape", "tflops", "role", "origin",
                            "modeled_as", "modeled_on", "sliding_window", "outside_bounds", "note"},
                           where);
      !ok)
    return ok.error();
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
  if (!f.contains("shape"))
    return Error{fmt::format("{}/shape: missing; expected an object", where)};
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
    if (!algorithm)
      return Error{fmt::format("{}/modeled_as: {}", where, algorithm.error().message)};
    fig.modeled_as = *algorithm;
  }
  if (f.contains("role")) {
    auto role = string_at(f, "role", where);
    if (!role) return role.error();
    if (*role != "fitted" && *role != "target" && *role != "fit" && *role != "held_out")
      return Error{
          fmt::format("{}/role: expected \"fitted\", \"target\", \"fit\" or \"held_out\"", where)};
    fig.role = *role;
  }
  fig.note = optional_string(f, "note");
  fig.where = where;
  if (auto ok = parse_record_fields(f, origins, reasons, where, fig); !ok) return ok.error();
  return fig;
}

Status check_against_model(const PublishedFigure& f, const std::vector<hw::Spec>& gpus) {
  auto gpu = hw::find_spec(gpus, f.model_gpu());
  if (!gpu)
    return Error{fmt::format(
        "{}/{}: {}; add its hardware model to the models folder, or give \"modeled_on\" the "
        "model that stands for it",
        f.where, f.modeled_on.empty() ? "gpu" : "modeled_on", gpu.error().message)};
  const hw::Spec& spec = **gpu;
  if (hw::rate_above_peak(spec, f.shape.dtype, f.tflops))
    return Error{fmt::format(
        "{}/tflops: {:g} TFLOP/s is above the {} dense {} peak at its boost clock ({:.0f} "
        "TFLOP/s) by more than {:.0f}%: no kernel beats the tensor cores; correct the figure or "
        "its shape",
        f.where, f.tflops, spec.id, to_string(f.shape.dtype),
        spec.boost_peak_tflops(f.shape.dtype), 100 * hw::kRateAbovePeakMargin)};
  return Ok{};
}

}  // namespace

Result<std::vector<PublishedFigure>> load_published(const std::filesystem::path& file) {
  const auto text = read_regular_file(
      file, {"published-figures file", std::uintmax_t{16} << 20, "data/published/*.json"});
  if (!text) return text.error();
  auto parsed = parse_json_without_duplicate_keys(*text, file.string());
  if (!parsed) return parsed.error();
  const json doc = std::move(parsed).value();
  const std::string origin = file.string() + ": ";
  if (auto ok = check_known_keys(
          doc, {"source", "citation", "role_rule", "outside_bounds_reasons", "origins", "figures"},
          origin);
      !ok)
    return ok.error();
  auto source = string_at(doc, "source", origin);
  if (!source) return source.error();
  auto citation = string_at(doc, "citation", origin);
  if (!citation) return citation.error();
  if (!doc.contains("figures") || !doc.at("figures").is_array())
    return Error{fmt::format("{}/figures: expected an array", origin)};
  auto origins = parse_origins(doc, origin);
  if (!origins) return origins.error();
  auto reasons = parse_reasons(doc, origin);
  if (!reasons) return reasons.error();
  std::vector<PublishedFigure> figures;
  for (std::size_t i = 0; i < doc.at("figures").size(); ++i) {
    auto fig = parse_figure(doc.at("figures")[i], *origins, *reasons,
                            fmt::format("{}/figures/{}", origin, i));
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
  if (ec)
    return Error{fmt::format("{}: cannot list published figures: {}", dir.string(), ec.message())};
  std::sort(files.begin(), files.end());
  std::vector<PublishedFigure> all;
  for (const auto& file : files) {
    auto figures = load_published(file);
    if (!figures) return figures.error();
    all.insert(all.end(), figures->begin(), figures->end());
  }
  return all;
}

Result<std::vector<PublishedFigure>> load_published_tree(const std::filesystem::path& dir) {
  auto all = load_published_dir(dir);
  if (!all) return all;
  const std::filesystem::path record = dir / "record";
  std::error_code ec;
  if (!std::filesystem::is_directory(record, ec)) return all;
  auto published = load_published_dir(record);
  if (!published) return published.error();
  all->insert(all->end(), published->begin(), published->end());
  return all;
}

Status check_against_models(const std::vector<PublishedFigure>& figures,
                            const std::vector<hw::Spec>& gpus) {
  for (const PublishedFigure& f : figures)
    if (Status checked = check_against_model(f, gpus); !checked) return checked;
  return Ok{};
}

double published_flops(const PublishedFigure& f) {
  const FlopCount count = f.provenance ? f.provenance->flop_count : FlopCount::project;
  if (count == FlopCount::project) return attention_flops(f.shape, f.pass);
  const AttnShape& s = f.shape;
  const double sq = double(s.seqlen_q), sk = double(s.seqlen_k);
  // The lower triangle with its diagonal (top-left alignment, as cuDNN's benchmark masks); with a
  // sliding window W its first W rows' triangle, then W keys a row.
  const double side = std::min(sq, sk), w = double(s.window);
  const double pairs = !s.causal                ? sq * sk
                       : !s.window || side <= w ? side * (side + 1) / 2
                                                : w * (w + 1) / 2 + (side - w) * w;
  const double d = double(s.headdim), dv = double(s.headdim_v);
  const double per_pair = f.pass == Pass::fwd ? d + dv : 3 * d + 2 * dv;
  return 2 * double(s.batch) * double(s.heads_q) * pairs * per_pair;
}

}  // namespace fa4::published
