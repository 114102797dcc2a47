#include "core/sweep.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <optional>
#include <utility>

#include "core/json_keys.hpp"
#include "core/printable.hpp"
#include "core/ragged.hpp"
#include "core/read_file.hpp"

namespace fa4 {
namespace {

using nlohmann::json;

// A sweep of a million explicit shapes is about 100 MB of JSON; the shipped ones are a few KB.
constexpr InputFileKind kSweepFile{"sweep file", std::uintmax_t{256} << 20,
                                   "sweeps ship in data/sweeps/"};

// A string field ("name", "description"): present or not, a string without control characters.
Result<std::optional<std::string>> text_field(const json& doc, const std::string& key,
                                              const std::string& origin) {
  if (!doc.contains(key)) return std::optional<std::string>{};
  const json& v = doc.at(key);
  if (!v.is_string())
    return Error{
        fmt::format("{}: /{}: must be a string, got {}", origin, key, printable(v.dump()))};
  const std::string& text = v.get_ref<const std::string&>();
  if (auto at = find_control_character(text))
    return Error{
        fmt::format("{}: /{}: \"{}\" holds a control character at byte {}; write it on "
                    "one line of printable text",
                    origin, key, printable(text), *at)};
  return std::optional<std::string>{text};
}

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

// The grid's shapes, and what the rounding of their batch did when some seqlen does not divide
// total_tokens (nothing when all do).
struct ExpandedGrid {
  std::vector<AttnShape> shapes;
  std::optional<std::string> rounding_note;
};

// The note for the seqlens that do not divide total_tokens (batch rounded down, at least 1).
std::optional<std::string> rounding_note(std::int64_t tokens, const std::vector<json>& seqlens,
                                         const std::string& where) {
  std::vector<std::int64_t> rounded;
  for (const json& s : seqlens)
    if (tokens % s.get<std::int64_t>() != 0) rounded.push_back(s.get<std::int64_t>());
  if (rounded.empty()) return std::nullopt;
  const std::int64_t first = rounded.front(), batch = std::max<std::int64_t>(1, tokens / first);
  return fmt::format(
      "{}: total_tokens = {} is not a multiple of {} of the {} seqlens: their batch is "
      "total_tokens / seqlen rounded down, at least 1 (seqlen {}: batch {}, {} tokens); give a "
      "total_tokens that every seqlen divides to model exactly that many tokens",
      where, tokens, rounded.size(), seqlens.size(), first, batch, batch * first);
}

// {"total_tokens", "hidden", "headdims": [...], "seqlens": [...], "causal": [...], "dtype"}:
// batch = total_tokens / seqlen, heads = hidden / headdim (the FA2/FA3/FA4 papers' setting).
Result<ExpandedGrid> expand_grid(const json& grid, const std::string& where) {
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
  ExpandedGrid out;
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
        out.shapes.push_back(shape);
      }
    }
  }
  out.rounding_note = rounding_note(*tokens, *seqlens, where);
  return out;
}

// "seqlen", "seqlen_q", "seqlen_k" into the shape's two lengths, by side_seqlen's rule.
Status read_seqlens(const json& o, const std::string& where, AttnShape& s) {
  constexpr const char* kKeys[] = {"seqlen", "seqlen_q", "seqlen_k"};
  std::int64_t given[3] = {0, 0, 0};  // 0: not given
  for (int i = 0; i < 3; ++i) {
    if (!o.contains(kKeys[i])) continue;
    auto length = positive_int(o, kKeys[i], where);
    if (!length) return length.error();
    given[i] = *length;
  }
  s.seqlen_q = side_seqlen(given[1], given[0]);
  s.seqlen_k = side_seqlen(given[2], given[0]);
  if (s.seqlen_k == 0 && !s.seqlens_k.empty())  // a ragged batch's capacity: its longest sequence
    s.seqlen_k =
        std::max<std::int64_t>(1, *std::max_element(s.seqlens_k.begin(), s.seqlens_k.end()));
  if (s.seqlen_q != 0 && s.seqlen_k != 0) return Ok{};
  const char* absent = given[0] == 0 && given[1] == 0 && given[2] == 0 ? "seqlen"
                       : s.seqlen_q == 0                               ? "seqlen_q"
                                                                       : "seqlen_k";
  return Error{fmt::format(
      "{}/{}: missing; give \"seqlen\" (both lengths), or \"seqlen_q\" and \"seqlen_k\"", where,
      absent)};
}

// "ragged": {"min", "max", "seed"}, the batch's key counts drawn log-uniform (core/ragged.hpp).
Status read_ragged_distribution(const json& o, const std::string& where, AttnShape& s) {
  const std::string at = where + "/ragged";
  const json& spec = o.at("ragged");
  if (!spec.is_object())
    return Error{fmt::format(
        "{}: expected {{\"min\": ..., \"max\": ..., \"seed\": ...}} (log-uniform key counts of "
        "the batch's sequences), got {}",
        at, printable(spec.dump()))};
  if (auto ok = check_known_keys(spec, {"min", "max", "seed"}, at); !ok) return ok.error();
  RaggedDistribution d;
  for (auto [key, field] : {std::pair{"min", &d.min}, std::pair{"max", &d.max},
                            std::pair{"seed", &d.seed}}) {
    if (!spec.contains(key) || !spec.at(key).is_number_integer())
      return Error{fmt::format("{}/{}: expected a whole number, got {}", at, key,
                               spec.contains(key) ? printable(spec.at(key).dump()) : "nothing")};
    *field = spec.at(key).get<std::int64_t>();
  }
  if (auto ok = check_ragged(d, at); !ok) return ok.error();
  auto counts = ragged_key_counts(d, s.batch, at);
  if (!counts) return counts.error();
  s.seqlens_k = std::move(counts).value();
  return Ok{};
}

// "seqlens_k": a ragged batch's key count per sequence, non-negative integers; or "ragged".
Status read_ragged_keys(const json& o, const std::string& where, AttnShape& s) {
  if (o.contains("ragged") && o.contains("seqlens_k"))
    return Error{fmt::format(
        "{}/ragged: the shape gives its key counts twice, as \"seqlens_k\" and as \"ragged\"; "
        "keep one",
        where)};
  if (o.contains("ragged")) return read_ragged_distribution(o, where, s);
  if (!o.contains("seqlens_k")) return Ok{};
  const json& list = o.at("seqlens_k");
  if (!list.is_array() || list.empty())
    return Error{fmt::format(
        "{}/seqlens_k: expected a non-empty array of key counts, one per sequence", where)};
  for (std::size_t i = 0; i < list.size(); ++i) {
    if (!list[i].is_number_integer() || list[i].get<std::int64_t>() < 0)
      return Error{fmt::format("{}/seqlens_k/{}: expected a key count (0 or more), got {}", where,
                               i, printable(list[i].dump()))};
    s.seqlens_k.push_back(list[i].get<std::int64_t>());
  }
  return Ok{};
}

}  // namespace

Result<AttnShape> parse_shape(const json& o, const std::string& where) {
  if (!o.is_object()) return Error{fmt::format("{}: expected an object describing a shape", where)};
  if (auto ok = check_known_keys(
          o,
          {"batch", "heads", "heads_kv", "seqlen", "seqlen_q", "seqlen_k", "headdim", "headdim_v",
           "causal", "window", "dtype", "page_size", "seqlens_k", "ragged", "splits"},
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
  if (auto ok = read_ragged_keys(o, where, s); !ok) return ok.error();
  if (auto ok = read_seqlens(o, where, s); !ok) return ok.error();
  for (auto [key, field] : {std::pair{"page_size", &s.page_size}, std::pair{"splits", &s.splits}}) {
    if (!o.contains(key)) continue;
    auto value = positive_int(o, key, where);
    if (!value) return value.error();
    *field = *value;
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
  auto name = text_field(doc, "name", origin);
  if (!name) return name.error();
  if (!*name) return Error{fmt::format("{}: /name: missing; expected a string", origin)};
  sweep.name = **name;
  auto description = text_field(doc, "description", origin);
  if (!description) return description.error();
  sweep.description = description->value_or("");
  if (doc.contains("grid")) {
    auto grid = expand_grid(doc.at("grid"), origin + ": /grid");
    if (!grid) return grid.error();
    sweep.shapes = std::move(grid->shapes);
    sweep.rounding_note = std::move(grid->rounding_note);
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
  auto text = read_regular_file(file, kSweepFile);
  if (!text) return text.error();
  return parse_sweep_text(*text, file.string());
}

}  // namespace fa4
