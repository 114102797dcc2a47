#include "core/sweep.hpp"

#include <fstream>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/json_keys.hpp"

namespace fa4 {
namespace {

using nlohmann::json;

Result<std::int64_t> positive_int(const json& object, const std::string& key,
                                  const std::string& where) {
  if (!object.contains(key)) return Error{fmt::format("{}/{}: missing; expected a positive integer", where, key)};
  const json& v = object.at(key);
  if (!v.is_number_integer() || v.get<std::int64_t>() <= 0)
    return Error{fmt::format("{}/{}: expected a positive integer, got {}", where, key, v.dump())};
  return v.get<std::int64_t>();
}

Result<std::vector<json>> array_of(const json& object, const std::string& key,
                                   const std::string& where) {
  if (!object.contains(key) || !object.at(key).is_array() || object.at(key).empty())
    return Error{fmt::format("{}/{}: expected a non-empty array", where, key)};
  return object.at(key).get<std::vector<json>>();
}

Result<Dtype> dtype_of(const json& object, const std::string& where) {
  if (!object.contains("dtype")) return Dtype::bf16;
  if (!object.at("dtype").is_string())
    return Error{fmt::format("{}/dtype: expected \"bf16\", \"fp16\" or \"fp8\"", where)};
  auto d = parse_dtype(object.at("dtype").get<std::string>());
  if (!d) return Error{fmt::format("{}/dtype: {}", where, d.error().message)};
  return d;
}

// {"total_tokens", "hidden", "headdims": [...], "seqlens": [...], "causal": [...], "dtype"}:
// batch = total_tokens / seqlen, heads = hidden / headdim (the FA2/FA3/FA4 papers' setting).
Result<std::vector<AttnShape>> expand_grid(const json& grid, const std::string& where) {
  if (!grid.is_object()) return Error{fmt::format("{}: expected an object", where)};
  if (auto ok = check_known_keys(
          grid, {"total_tokens", "hidden", "headdims", "seqlens", "causal", "dtype"}, where);
      !ok)
    return ok.error();
  auto tokens = positive_int(grid, "total_tokens", where);
  if (!tokens) return tokens.error();
  auto hidden = positive_int(grid, "hidden", where);
  if (!hidden) return hidden.error();
  auto dims = array_of(grid, "headdims", where);
  if (!dims) return dims.error();
  auto seqlens = array_of(grid, "seqlens", where);
  if (!seqlens) return seqlens.error();
  auto masks = array_of(grid, "causal", where);
  if (!masks) return masks.error();
  auto dtype = dtype_of(grid, where);
  if (!dtype) return dtype.error();
  std::vector<AttnShape> shapes;
  for (std::size_t i = 0; i < dims->size(); ++i) {
    const json& d = (*dims)[i];
    if (!d.is_number_integer() || d.get<std::int64_t>() <= 0 || *hidden % d.get<std::int64_t>())
      return Error{fmt::format("{}/headdims/{}: expected a positive integer dividing hidden = {}",
                               where, i, *hidden)};
    for (std::size_t j = 0; j < seqlens->size(); ++j) {
      const json& s = (*seqlens)[j];
      if (!s.is_number_integer() || s.get<std::int64_t>() <= 0)
        return Error{fmt::format("{}/seqlens/{}: expected a positive integer", where, j)};
      for (std::size_t k = 0; k < masks->size(); ++k) {
        if (!(*masks)[k].is_boolean())
          return Error{fmt::format("{}/causal/{}: expected true or false", where, k)};
        AttnShape shape;
        shape.seqlen_q = shape.seqlen_k = s.get<std::int64_t>();
        shape.batch = std::max<std::int64_t>(1, *tokens / shape.seqlen_q);
        shape.headdim = shape.headdim_v = d.get<std::int64_t>();
        shape.heads_q = shape.heads_kv = *hidden / shape.headdim;
        shape.causal = (*masks)[k].get<bool>();
        shape.dtype = *dtype;
        if (auto ok = validate(shape); !ok)
          return Error{fmt::format("{}/seqlens/{}: {}", where, j, ok.error().message)};
        shapes.push_back(shape);
      }
    }
  }
  return shapes;
}

}  // namespace

Result<AttnShape> parse_shape(const json& o, const std::string& where) {
  if (!o.is_object()) return Error{fmt::format("{}: expected an object describing a shape", where)};
  if (auto ok = check_known_keys(o,
                                 {"batch", "heads", "heads_kv", "seqlen", "seqlen_q", "seqlen_k",
                                  "headdim", "headdim_v", "causal", "window", "dtype"},
                                 where);
      !ok)
    return ok.error();
  AttnShape s;
  auto batch = positive_int(o, "batch", where);
  if (!batch) return batch.error();
  auto heads = positive_int(o, "heads", where);
  if (!heads) return heads.error();
  auto headdim = positive_int(o, "headdim", where);
  if (!headdim) return headdim.error();
  s.batch = *batch;
  s.heads_q = s.heads_kv = *heads;
  s.headdim = s.headdim_v = *headdim;
  if (o.contains("heads_kv")) {
    auto kv = positive_int(o, "heads_kv", where);
    if (!kv) return kv.error();
    s.heads_kv = *kv;
  }
  if (o.contains("headdim_v")) {
    auto dv = positive_int(o, "headdim_v", where);
    if (!dv) return dv.error();
    s.headdim_v = *dv;
  }
  if (o.contains("seqlen")) {
    auto sl = positive_int(o, "seqlen", where);
    if (!sl) return sl.error();
    s.seqlen_q = s.seqlen_k = *sl;
  } else {
    auto sq = positive_int(o, "seqlen_q", where);
    if (!sq) return Error{fmt::format("{}/seqlen: missing; give \"seqlen\" or \"seqlen_q\" and "
                                      "\"seqlen_k\"", where)};
    auto sk = positive_int(o, "seqlen_k", where);
    if (!sk) return sk.error();
    s.seqlen_q = *sq;
    s.seqlen_k = *sk;
  }
  if (o.contains("causal")) {
    if (!o.at("causal").is_boolean())
      return Error{fmt::format("{}/causal: expected true or false", where)};
    s.causal = o.at("causal").get<bool>();
  }
  if (o.contains("window")) {
    auto window = positive_int(o, "window", where);
    if (!window) return window.error();
    s.window = *window;
  }
  auto dtype = dtype_of(o, where);
  if (!dtype) return dtype.error();
  s.dtype = *dtype;
  if (auto ok = validate(s); !ok) return Error{fmt::format("{}: {}", where, ok.error().message)};
  return s;
}

Result<Sweep> parse_sweep(const json& doc, const std::string& origin) {
  if (!doc.is_object()) return Error{fmt::format("{}: expected a JSON object", origin)};
  if (auto ok = check_known_keys(doc, {"name", "description", "grid", "shapes"}, origin + ": ");
      !ok)
    return ok.error();
  Sweep sweep;
  if (!doc.contains("name") || !doc.at("name").is_string())
    return Error{fmt::format("{}: /name: missing; expected a string", origin)};
  sweep.name = doc.at("name").get<std::string>();
  if (doc.contains("description") && doc.at("description").is_string())
    sweep.description = doc.at("description").get<std::string>();
  if (doc.contains("grid")) {
    auto shapes = expand_grid(doc.at("grid"), origin + ": /grid");
    if (!shapes) return shapes.error();
    sweep.shapes = std::move(shapes).value();
  }
  if (doc.contains("shapes")) {
    if (!doc.at("shapes").is_array())
      return Error{fmt::format("{}: /shapes: expected an array of shape objects", origin)};
    for (std::size_t i = 0; i < doc.at("shapes").size(); ++i) {
      auto shape = parse_shape(doc.at("shapes")[i], fmt::format("{}: /shapes/{}", origin, i));
      if (!shape) return shape.error();
      sweep.shapes.push_back(*shape);
    }
  }
  if (sweep.shapes.empty())
    return Error{fmt::format("{}: no shapes: give a /grid or a non-empty /shapes array", origin)};
  return sweep;
}

Result<Sweep> parse_sweep_text(std::string_view text, const std::string& origin) {
  auto doc = parse_json_without_duplicate_keys(text, origin);
  if (!doc) return doc.error();
  return parse_sweep(*doc, origin);
}

Result<Sweep> load_sweep(const std::filesystem::path& file) {
  std::error_code ec;
  if (std::filesystem::is_directory(file, ec))
    return Error{
        fmt::format("{}: is a folder, not a sweep file; give a JSON file such as "
                    "data/sweeps/fa3-paper.json",
                    file.string())};
  std::ifstream in(file, std::ios::binary);
  if (!in)
    return Error{fmt::format("{}: cannot open the sweep file; check the path (sweeps ship in "
                             "data/sweeps/)", file.string())};
  std::ostringstream text;
  text << in.rdbuf();
  return parse_sweep_text(text.str(), file.string());
}

}  // namespace fa4
