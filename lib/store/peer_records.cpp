// Parsing the peer runner's JSON Lines into measurements grouped by peer run.
#include "store/peer_records.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <nlohmann/json.hpp>

#include "core/json_keys.hpp"
#include "core/printable.hpp"
#include "core/ragged.hpp"
#include "hw/loader.hpp"

namespace fa4::store {
namespace {

using nlohmann::json;

// Thrown inside one record's parse, caught per line and turned into an Error with its line.
struct FieldError {
  std::string message;
};

const json& field(const json& o, const char* name) {
  if (!o.is_object() || !o.contains(name)) throw FieldError{fmt::format("missing \"{}\"", name)};
  return o.at(name);
}

std::string text(const json& o, const char* name) {
  const json& v = field(o, name);
  if (!v.is_string() || v.get<std::string>().empty())
    throw FieldError{fmt::format("\"{}\" must be a non-empty string", name)};
  return v.get<std::string>();
}

std::string text_or_empty(const json& o, const char* name) {
  if (!o.contains(name) || o.at(name).is_null()) return "";
  if (!o.at(name).is_string())
    throw FieldError{fmt::format("\"{}\" must be a string or null", name)};
  return o.at(name).get<std::string>();
}

double positive(const json& o, const char* name) {
  const json& v = field(o, name);
  if (!v.is_number() || !(v.get<double>() > 0))
    throw FieldError{fmt::format("\"{}\" must be a positive number", name)};
  return v.get<double>();
}

std::int64_t positive_int(const json& o, const char* name) {
  const json& v = field(o, name);
  if (!v.is_number_integer() || v.get<std::int64_t>() <= 0)
    throw FieldError{fmt::format("\"shape\".\"{}\" must be a positive integer", name)};
  return v.get<std::int64_t>();
}

std::int64_t count_or_zero(const json& o, const char* name) {
  if (!o.contains(name)) return 0;
  const json& v = o.at(name);
  if (!v.is_number_integer() || v.get<std::int64_t>() < 0)
    throw FieldError{fmt::format("\"shape\".\"{}\" must be an integer, 0 or more", name)};
  return v.get<std::int64_t>();
}

// The serving fields, each optional: "page_size" (0: contiguous), "seqlens_k" (a ragged batch's
// key counts, one per sequence), "splits" (0: the kernel's choice).
void parse_serving(const json& o, AttnShape& s) {
  s.page_size = count_or_zero(o, "page_size");
  s.splits = count_or_zero(o, "splits");
  if (!o.contains("seqlens_k")) return;
  const json& list = o.at("seqlens_k");
  if (!list.is_array() || list.empty())
    throw FieldError{"\"shape\".\"seqlens_k\" must be a non-empty array of key counts, one per "
                     "sequence"};
  for (const json& keys : list) {
    if (!keys.is_number_integer() || keys.get<std::int64_t>() < 0)
      throw FieldError{fmt::format(
          "\"shape\".\"seqlens_k\" holds {}, not a key count (an integer, 0 or more)",
          printable(keys.dump()))};
    s.seqlens_k.push_back(keys.get<std::int64_t>());
  }
}

AttnShape parse_shape(const json& o) {
  AttnShape s;
  s.batch = positive_int(o, "batch");
  s.heads_q = positive_int(o, "heads_q");
  s.heads_kv = positive_int(o, "heads_kv");
  s.seqlen_q = positive_int(o, "seqlen_q");
  s.seqlen_k = positive_int(o, "seqlen_k");
  s.headdim = positive_int(o, "headdim");
  s.headdim_v = positive_int(o, "headdim_v");
  if (!field(o, "causal").is_boolean())
    throw FieldError{"\"shape\".\"causal\" must be true or false"};
  s.causal = o.at("causal").get<bool>();
  auto dtype = parse_dtype(text(o, "dtype"));
  if (!dtype) throw FieldError{"\"shape\": " + dtype.error().message};
  s.dtype = *dtype;
  parse_serving(o, s);
  if (Status ok = validate(s); !ok) throw FieldError{"\"shape\": " + ok.error().message};
  return s;
}

MeasurementStatus parse_status(const std::string& s) {
  if (const auto status = parse_measurement_status(s)) return *status;
  throw FieldError{
      fmt::format("\"status\" is \"{}\"; expected \"ok\", \"failed\" or \"skipped\"", s)};
}

std::string versions_text(const json& record) {
  if (!record.contains("versions") || !record.at("versions").is_object()) return "";
  std::string out;
  for (const auto& [name, value] : record.at("versions").items()) {
    if (value.is_null()) continue;
    out += fmt::format("{}{} {}", out.empty() ? "" : ", ", name,
                       value.is_string() ? value.get<std::string>() : value.dump());
  }
  return out;
}

// The record's statistics describe its own samples: min <= p25 <= median <= p75 <= max, and every
// sample within [min, max] (to a relative 1e-9 for the writer's rounding).
void check_statistics(const Measurement& m) {
  constexpr double kRounding = 1e-9;
  const std::pair<const char*, double> order[] = {{"min_s", m.min_s},
                                                  {"p25_s", m.p25_s},
                                                  {"median_s", m.median_s},
                                                  {"p75_s", m.p75_s},
                                                  {"max_s", m.max_s}};
  for (std::size_t i = 1; i < std::size(order); ++i)
    if (order[i].second < order[i - 1].second * (1 - kRounding))
      throw FieldError{
          fmt::format("\"{}\" = {:g} is below \"{}\" = {:g}: the statistics contradict "
                      "themselves (expected min <= p25 <= median <= p75 <= max)",
                      order[i].first, order[i].second, order[i - 1].first, order[i - 1].second)};
  for (double sample : m.samples_s)
    if (sample < m.min_s * (1 - kRounding) || sample > m.max_s * (1 + kRounding))
      throw FieldError{
          fmt::format("\"samples_s\" holds {:g}, outside [min_s, max_s] = [{:g}, {:g}]", sample,
                      m.min_s, m.max_s)};
}

// A rate above the GPU's peak (hw::rate_above_peak) is a wrong time or a wrong shape.
void check_against_peak(const Measurement& m, const hw::Spec& gpu) {
  if (m.status != MeasurementStatus::ok) return;
  if (hw::rate_above_peak(gpu, m.shape.dtype, m.tflops))
    throw FieldError{fmt::format(
        "median_s = {:g} s gives {:.4g} TFLOP/s for {} {}, above the {} dense {} peak at its "
        "boost clock ({:.0f} TFLOP/s) by more than {:.0f}%: the time or the shape is wrong",
        m.median_s, m.tflops, describe(m.shape), to_string(m.pass), gpu.name,
        to_string(m.shape.dtype), gpu.boost_peak_tflops(m.shape.dtype),
        100 * hw::kRateAbovePeakMargin)};
}

// `name` with its spaces trimmed and each run of them made one: "NVIDIA  H200 " -> "NVIDIA H200".
std::string single_spaced(std::string_view name) {
  std::string out;
  for (const char c : name) {
    if (c != ' ')
      out += c;
    else if (!out.empty() && out.back() != ' ')
      out += ' ';
  }
  if (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

bool equal_ignoring_case(std::string_view a, std::string_view b) {
  return std::ranges::equal(a, b, [](char x, char y) {
    return std::tolower(static_cast<unsigned char>(x)) ==
           std::tolower(static_cast<unsigned char>(y));
  });
}

// The model whose device names hold `device` in any case and spacing ("nvidia h200 " is an
// H200), with `device` rewritten in the model's spelling so that the report finds it; nullptr for
// a device no model knows, whose name is stored single-spaced.
const hw::Spec* known_device(const std::vector<hw::Spec>& specs, std::string& device) {
  device = single_spaced(device);
  if (device.empty()) throw FieldError{"\"device\" must name the GPU; it holds only spaces"};
  for (const hw::Spec& spec : specs) {
    for (const std::string& name : spec.device_names) {
      if (!equal_ignoring_case(single_spaced(name), device)) continue;
      device = name;
      return &spec;
    }
  }
  return nullptr;
}

// A JSON pointer's reference token: "~" and "/" escaped as RFC 6901 says.
std::string pointer_token(std::string_view key) {
  std::string token;
  for (const char c : key) token += c == '~' ? "~0" : c == '/' ? "~1" : std::string(1, c);
  return token;
}

// Every string of the record, and every key, is one line of printable text: they reach terminals,
// the report and its gnuplot scripts, where a newline ends a command and starts another.
void refuse_control_characters(const json& node, const std::string& pointer) {
  if (node.is_string()) {
    const std::string& text = node.get_ref<const std::string&>();
    if (const auto at = find_control_character(text))
      throw FieldError{fmt::format(
          "{} holds a control character at byte {} (\"{}\"): write each field as one line of "
          "printable text",
          pointer, *at, printable(text))};
  } else if (node.is_object()) {
    for (const auto& [key, value] : node.items()) {
      if (find_control_character(key))
        throw FieldError{fmt::format("{} holds a key with a control character (\"{}\")",
                                     pointer.empty() ? "the record" : pointer, printable(key))};
      refuse_control_characters(value, pointer + "/" + pointer_token(key));
    }
  } else if (node.is_array()) {
    for (std::size_t i = 0; i < node.size(); ++i)
      refuse_control_characters(node[i], fmt::format("{}/{}", pointer, i));
  }
}

// The keys of a fa4-peer/1 record (scripts/peers/peer_common.py, RECORD_KEYS) and of its shape:
// any other is a typo or a newer writer's, and is refused rather than ignored.
void refuse_unknown_keys(const json& record) {
  Status known = check_known_keys(
      record, {"schema", "run",      "source",   "kernel", "device",      "driver",
               "cuda",   "versions", "revision", "host",   "measured_at", "shape",
               "pass",   "status",   "reason",   "check",  "samples_s",   "median_s",
               "p25_s",  "p75_s",    "min_s",    "max_s",  "tflops",      "sm_clock_mhz"},
      "");
  if (known && record.contains("shape"))
    known = check_known_keys(record.at("shape"),
                             {"batch", "heads_q", "heads_kv", "seqlen_q", "seqlen_k", "headdim",
                              "headdim_v", "causal", "dtype", "page_size", "seqlens_k", "splits"},
                             "/shape");
  if (!known) throw FieldError{known.error().message};
}

Measurement parse_measurement(const json& r, const std::string& run) {
  Measurement m;
  m.kernel = text(r, "kernel");
  m.source = text(r, "source");
  if (!m.source.starts_with("peer:"))
    throw FieldError{
        fmt::format("\"source\" is \"{}\"; peer records are tagged \"peer:...\"", m.source)};
  m.device = text(r, "device");
  m.shape = parse_shape(field(r, "shape"));
  auto pass = parse_pass(text(r, "pass"));
  if (!pass) throw FieldError{"\"pass\": " + pass.error().message};
  m.pass = *pass;
  m.status = parse_status(text(r, "status"));
  m.reason = text_or_empty(r, "reason");
  if (m.status != MeasurementStatus::ok && m.reason.empty())
    throw FieldError{fmt::format("a {} record needs a \"reason\"", to_string(m.status))};
  if (r.contains("sm_clock_mhz") && r.at("sm_clock_mhz").is_number())
    m.sm_clock_mhz = r.at("sm_clock_mhz").get<double>();
  if (m.status == MeasurementStatus::ok) {
    m.median_s = positive(r, "median_s");
    m.p25_s = positive(r, "p25_s");
    m.p75_s = positive(r, "p75_s");
    m.min_s = positive(r, "min_s");
    m.max_s = positive(r, "max_s");
    const json& samples = field(r, "samples_s");
    if (!samples.is_array() || samples.empty())
      throw FieldError{"\"samples_s\" must be a non-empty array of seconds"};
    for (const json& s : samples) {
      if (!s.is_number() || !(s.get<double>() > 0))
        throw FieldError{"\"samples_s\" holds a value that is not a positive number"};
      m.samples_s.push_back(s.get<double>());
    }
    check_statistics(m);
    m.tflops = attention_flops(m.shape, m.pass) / m.median_s / 1e12;
  }
  // describe() gives a ragged batch's range and sum; its counts tell two batches apart.
  m.import_key = fmt::format("{}/{}/{}/{}", run, m.kernel, to_string(m.pass), describe(m.shape));
  if (!m.shape.seqlens_k.empty()) m.import_key += " keys " + format_key_counts(m.shape.seqlens_k);
  return m;
}

// `device`: the record's device, as known_device spells it.
RunInfo run_info(const json& r, const std::string& run, const std::string& device,
                 const std::string& origin, const std::string& command_line) {
  RunInfo info;
  info.kind = RunKind::import;
  info.revision = text_or_empty(r, "revision");
  if (info.revision.empty()) info.revision = "unknown";
  info.host = text_or_empty(r, "host");
  info.command_line = command_line;
  info.device = device;
  info.driver = text_or_empty(r, "driver");
  info.cuda_version = text_or_empty(r, "cuda");
  info.notes = fmt::format("peer run {} measured at {} ({}); imported from {}", run,
                           text_or_empty(r, "measured_at"), versions_text(r), origin);
  return info;
}

}  // namespace

Result<std::vector<ImportedRun>> parse_peer_records(std::istream& in, const std::string& origin,
                                                    const std::string& command_line,
                                                    const std::vector<hw::Spec>& specs) {
  std::vector<ImportedRun> runs;
  std::map<std::string, std::size_t> run_index;
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    try {
      json record;
      if (auto duplicate = parse_json_noting_duplicate_key(line, record))
        throw FieldError{*duplicate};
      if (!record.is_object()) throw FieldError{"a record must be a JSON object"};
      refuse_unknown_keys(record);
      refuse_control_characters(record, "");
      const std::string schema = text(record, "schema");
      if (schema != "fa4-peer/1")
        throw FieldError{
            fmt::format("\"schema\" is \"{}\"; this version reads \"fa4-peer/1\"", schema)};
      const std::string run = text(record, "run");
      Measurement m = parse_measurement(record, run);
      const hw::Spec* gpu = known_device(specs, m.device);
      if (gpu) check_against_peak(m, *gpu);
      auto [at, inserted] = run_index.try_emplace(run, runs.size());
      if (inserted) runs.push_back({run_info(record, run, m.device, origin, command_line), {}, {}});
      ImportedRun& imported = runs[at->second];
      if (!gpu &&
          std::ranges::find(imported.unknown_devices, m.device) == imported.unknown_devices.end())
        imported.unknown_devices.push_back(m.device);
      imported.measurements.push_back(std::move(m));
    } catch (const json::exception& e) {
      return Error{fmt::format("{}:{}: not valid JSON ({}); nothing was imported", origin, number,
                               e.what())};
    } catch (const FieldError& e) {
      return Error{fmt::format("{}:{}: {}; nothing was imported", origin, number, e.message)};
    }
  }
  if (in.bad()) return Error{fmt::format("{}: read error after line {}", origin, number)};
  if (runs.empty())
    return Error{
        fmt::format("{}: no peer records (expected JSON Lines of schema fa4-peer/1)", origin)};
  return runs;
}

}  // namespace fa4::store
