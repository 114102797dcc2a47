#include "hw/loader.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <tuple>

#include "core/json_keys.hpp"
#include "core/printable.hpp"
#include "core/read_file.hpp"
#include "hw/figures.hpp"

namespace fa4::hw {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// The shipped model files are about 5 KB each.
constexpr InputFileKind kModelFile{"hardware model file", std::uintmax_t{1} << 20,
                                   "the shipped models are models/*.json"};

constexpr std::string_view kSourceHint =
    "a citation: paper section, datasheet or whitepaper, or \"derived: <arithmetic>\"";

std::string lower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return char(std::tolower(c)); });
  return out;
}

std::string child(std::string_view pointer, std::string_view key) {
  return (json::json_pointer(std::string(pointer)) / std::string(key)).to_string();
}

// The figure keys that live directly under `parent` ("" for the top level, "/per_sm").
std::vector<std::string> figure_keys_under(std::string_view parent) {
  std::vector<std::string> keys;
  for (const Figure& f : figures()) {
    const std::string_view pointer = f.pointer;
    const std::size_t slash = pointer.rfind('/');
    if (pointer.substr(0, slash) == parent) keys.emplace_back(pointer.substr(slash + 1));
  }
  return keys;
}

// Line and column (both from 1) of the character at a byte offset (from 1, as nlohmann counts).
std::pair<std::size_t, std::size_t> line_and_column(std::string_view text, std::size_t byte) {
  const std::size_t at = std::min(byte == 0 ? 0 : byte - 1, text.size());
  const std::string_view before = text.substr(0, at);
  const std::size_t line = 1 + std::count(before.begin(), before.end(), '\n');
  const std::size_t line_start = before.rfind('\n');
  return {line, line_start == std::string_view::npos ? at + 1 : at - line_start};
}

// nlohmann's message without its "[json.exception...] parse error at line L, column C: " prefix.
std::string parse_message(const json::parse_error& e) {
  const std::string what = e.what();
  const std::size_t start = what.find("parse error");
  const std::size_t colon = start == std::string::npos ? start : what.find(": ", start);
  return colon == std::string::npos ? what : what.substr(colon + 2);
}

class ModelReader {
 public:
  explicit ModelReader(const fs::path& file) : file_(file.string()) {}

  Result<Spec> read(const json& root, std::string id) const {
    if (!root.is_object()) return error("(root)", "expected a JSON object");
    Spec spec;
    spec.id = std::move(id);
    if (Status s = check_root_keys(root); !s) return s.error();
    if (Status s = check_per_sm(root); !s) return s.error();
    if (Status s = read_string(root, "/name", spec.name); !s) return s.error();
    if (Status s = read_architecture(root, spec.architecture); !s) return s.error();
    if (Status s = read_device_names(root, spec.device_names); !s) return s.error();
    for (const Figure& figure : figures()) {
      if (Status s = read_figure(root, figure, spec); !s) return s.error();
    }
    return spec;
  }

 private:
  Error error(std::string_view pointer, std::string_view problem) const {
    return Error{fmt::format("{}: {}: {}", file_, pointer, problem)};
  }

  Status check_keys(const json& object, std::string_view pointer,
                    const std::vector<std::string>& known) const {
    for (const auto& [key, value] : object.items()) {
      if (std::find(known.begin(), known.end(), key) == known.end())
        return error(child(pointer, key),
                     fmt::format("unknown field; expected one of {}", fmt::join(known, ", ")));
    }
    return Ok{};
  }

  Status check_root_keys(const json& root) const {
    std::vector<std::string> known = {"name", "architecture", "device_names"};
    for (std::string& key : figure_keys_under("")) known.push_back(std::move(key));
    known.emplace_back("per_sm");
    return check_keys(root, "", known);
  }

  Status check_per_sm(const json& root) const {
    constexpr std::string_view kExpected = "expected an object of per-SM figures";
    if (!root.contains("per_sm")) return error("/per_sm", fmt::format("missing; {}", kExpected));
    if (!root["per_sm"].is_object()) return error("/per_sm", kExpected);
    return check_keys(root["per_sm"], "/per_sm", figure_keys_under("/per_sm"));
  }

  Status read_string(const json& root, std::string_view pointer, std::string& out) const {
    const json::json_pointer at{std::string(pointer)};
    if (!root.contains(at)) return error(pointer, "missing; expected a non-empty string");
    const json& node = root.at(at);
    if (!node.is_string() || node.get_ref<const std::string&>().empty())
      return error(pointer, "expected a non-empty string");
    if (Status s = check_printable(pointer, node.get_ref<const std::string&>()); !s) return s;
    out = node.get<std::string>();
    return Ok{};
  }

  // Names and sources reach terminals, charts and gnuplot scripts: no control characters.
  Status check_printable(std::string_view pointer, std::string_view text) const {
    const std::optional<std::size_t> at = find_control_character(text);
    if (!at) return Ok{};
    return error(pointer, fmt::format("\"{}\" holds a control character (at byte {}); write it "
                                      "on one line of printable text",
                                      printable(text), *at));
  }

  Status read_architecture(const json& root, Architecture& out) const {
    std::string text;
    if (Status s = read_string(root, "/architecture", text); !s) return s;
    const std::optional<Architecture> architecture = parse_architecture(text);
    if (!architecture) {
      std::vector<std::string_view> known;
      for (Architecture a : kAllArchitectures) known.push_back(to_string(a));
      return error("/architecture", fmt::format("unknown architecture '{}'; expected one of {}",
                                                text, fmt::join(known, ", ")));
    }
    out = *architecture;
    return Ok{};
  }

  Status read_device_names(const json& root, std::vector<std::string>& out) const {
    constexpr std::string_view kExpected =
        "expected an array of device names as cudaDeviceProp::name reports them";
    if (!root.contains("device_names"))
      return error("/device_names", fmt::format("missing; {}", kExpected));
    const json& names = root["device_names"];
    if (!names.is_array()) return error("/device_names", kExpected);
    for (std::size_t i = 0; i < names.size(); ++i) {
      const std::string pointer = fmt::format("/device_names/{}", i);
      if (!names[i].is_string() || names[i].get_ref<const std::string&>().empty())
        return error(pointer, "expected a non-empty string");
      if (Status s = check_printable(pointer, names[i].get_ref<const std::string&>()); !s) return s;
      out.push_back(names[i].get<std::string>());
    }
    return Ok{};
  }

  // A figure is {"value": <number>, "source": "<citation>"}. Errors about the number name the
  // figure's own pointer; errors about the citation name <pointer>/source.
  Status read_figure(const json& root, const Figure& figure, Spec& spec) const {
    const std::string pointer(figure.pointer);
    const std::string_view expected = describe(figure.allowed);
    const json::json_pointer at{pointer};
    if (!root.contains(at)) {
      if (figure.source_when_absent.empty())
        return error(pointer, fmt::format("missing; expected {}", expected));
      spec.sources[pointer] = figure.source_when_absent;
      return Ok{};
    }
    const json& node = root.at(at);
    if (!node.is_object())
      return error(pointer, fmt::format("expected {{\"value\": <{}>, \"source\": \"<{}>\"}}",
                                        expected, kSourceHint));
    if (Status s = check_keys(node, pointer, {"value", "source"}); !s) return s;
    if (!node.contains("value"))
      return error(child(pointer, "value"), fmt::format("missing; expected {}", expected));
    const json& value = node["value"];
    if (!value.is_number() || !is_allowed(figure.allowed, value.get<double>()))
      return error(pointer, fmt::format("expected {}", expected));
    if (!in_range(figure, value.get<double>()))
      return error(pointer, fmt::format("{:g} is out of range for the {} of a GPU: expected {}",
                                        value.get<double>(), figure.label, describe_range(figure)));
    if (!node.contains("source"))
      return error(child(pointer, "source"), fmt::format("missing; expected {}", kSourceHint));
    const json& source = node["source"];
    if (!source.is_string() ||
        source.get_ref<const std::string&>().find_first_not_of(" \t\n") == std::string::npos)
      return error(child(pointer, "source"), fmt::format("expected {}", kSourceHint));
    if (Status s = check_printable(child(pointer, "source"), source.get_ref<const std::string&>());
        !s)
      return s;
    figure.set(spec, value.get<double>());
    spec.sources[pointer] = source.get<std::string>();
    return Ok{};
  }

  std::string file_;
};

// The file's name gives the model's id, what --gpu takes and every table shows.
Status check_file_name(const fs::path& file) {
  if (!find_control_character(file.filename().string())) return Ok{};
  return Error{
      fmt::format("{}: the file name holds a control character; rename the file (its "
                  "name without .json is the model's id, what --gpu takes)",
                  printable(file.string()))};
}

Status check_unique(const std::vector<Spec>& specs, const fs::path& dir) {
  std::map<std::string, std::string> owner_of_id, owner_of_device;
  for (const Spec& spec : specs) {
    if (auto [it, fresh] = owner_of_id.emplace(lower(spec.id), spec.id); !fresh)
      return Error{fmt::format("{}: ids '{}' and '{}' differ only in case; rename one file",
                               dir.string(), it->second, spec.id)};
    for (const std::string& device : spec.device_names) {
      if (auto [it, fresh] = owner_of_device.emplace(device, spec.id); !fresh)
        return Error{
            fmt::format("{}: device name '{}' is in both {}.json and {}.json; keep it in one model",
                        dir.string(), device, it->second, spec.id)};
    }
  }
  return Ok{};
}

}  // namespace

Result<Spec> parse_spec(std::string_view text, const fs::path& file) {
  if (Status s = check_file_name(file); !s) return s.error();
  json root;
  std::optional<std::string> duplicate;
  try {
    duplicate = parse_json_noting_duplicate_key(text, root);
  } catch (const json::parse_error& e) {
    const auto [line, column] = line_and_column(text, e.byte);
    return Error{fmt::format("{}: line {}, column {} (byte {}): invalid JSON: {}", file.string(),
                             line, column, e.byte, parse_message(e))};
  } catch (const json::out_of_range& e) {  // a number too large for a double: 4.8e2026
    return Error{fmt::format("{}: invalid JSON: {}; write the figure as a finite number",
                             file.string(), e.what())};
  }
  if (duplicate) return Error{fmt::format("{}: {}", file.string(), *duplicate)};
  return ModelReader(file).read(root, file.stem().string());
}

Result<Spec> load_spec(const fs::path& file) {
  Result<std::string> text = read_regular_file(file, kModelFile);
  if (!text) return text.error();
  return parse_spec(*text, file);
}

Result<std::vector<Spec>> load_all_specs(const fs::path& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec))
    return Error{fmt::format("{}: not a folder; expected the folder of hardware models "
                             "(models/*.json)",
                             printable(dir.string()))};
  // Every *.json entry, whatever it is: read_regular_file refuses a link that loops or leads to
  // something other than a regular file, with its name.
  std::vector<fs::path> files;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
    if (it->path().extension() == ".json") files.push_back(it->path());
  if (ec) return Error{fmt::format("{}: cannot list: {}", printable(dir.string()), ec.message())};
  if (files.empty())
    return Error{fmt::format("{}: no hardware models (*.json) in this folder", dir.string())};
  std::sort(files.begin(), files.end());

  std::vector<Spec> specs;
  for (const fs::path& file : files) {
    Result<Spec> spec = load_spec(file);
    if (!spec) return spec.error();
    specs.push_back(std::move(spec).value());
  }
  if (Status s = check_unique(specs, dir); !s) return s.error();
  std::sort(specs.begin(), specs.end(), [](const Spec& a, const Spec& b) {
    return std::tie(a.compute_capability, a.id) < std::tie(b.compute_capability, b.id);
  });
  return specs;
}

Result<const Spec*> find_spec(const std::vector<Spec>& specs, std::string_view name) {
  const std::string wanted = lower(name);
  for (const Spec& spec : specs) {
    if (lower(spec.id) == wanted) return &spec;
  }
  for (const Spec& spec : specs) {
    for (const std::string& device : spec.device_names) {
      if (lower(device) == wanted) return &spec;
    }
  }
  std::vector<const Spec*> by_prefix;
  for (const Spec& spec : specs) {
    if (lower(spec.id).starts_with(wanted + "-")) by_prefix.push_back(&spec);
  }
  if (by_prefix.size() == 1) return by_prefix.front();
  if (specs.empty()) return Error{fmt::format("unknown GPU '{}': no hardware models loaded", name)};
  std::vector<std::string_view> ids;
  for (const Spec& spec : specs) ids.push_back(spec.id);
  return Error{fmt::format("unknown GPU '{}': use one of {}", name, fmt::join(ids, ", "))};
}

const Spec* match_device_name(const std::vector<Spec>& specs, std::string_view device_name) {
  for (const Spec& spec : specs) {
    for (const std::string& device : spec.device_names) {
      if (device == device_name) return &spec;
    }
  }
  return nullptr;
}

std::string_view source_of(const Spec& spec, std::string_view json_pointer) {
  const auto it = spec.sources.find(std::string(json_pointer));
  return it == spec.sources.end() ? std::string_view{} : std::string_view{it->second};
}

}  // namespace fa4::hw
