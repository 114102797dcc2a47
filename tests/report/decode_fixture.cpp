#include "decode_fixture.hpp"

#include <fmt/format.h>

#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <tuple>

#include "report/measured_runs.hpp"
#include "report_inputs.hpp"

namespace fa4::report::testing {
namespace {

using Csv = std::vector<std::map<std::string, std::string>>;

Csv read_csv(const std::string& name) {
  const std::string path = std::string(FA4_SOURCE_DIR) + "/data/measurements/decode/" + name;
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read " + path);
  Csv rows;
  std::vector<std::string> header;
  for (std::string line; std::getline(in, line);) {
    std::vector<std::string> cells(1);
    bool quoted = false;  // a quoted cell keeps its commas ("8192,1,7")
    for (char c : line) {
      if (c == '"')
        quoted = !quoted;
      else if (c == ',' && !quoted)
        cells.emplace_back();
      else
        cells.back() += c;
    }
    if (header.empty()) {
      header = cells;
      continue;
    }
    auto& row = rows.emplace_back();
    for (std::size_t i = 0; i < header.size() && i < cells.size(); ++i) row[header[i]] = cells[i];
  }
  return rows;
}

std::int64_t integer_of(const std::map<std::string, std::string>& row, const std::string& key) {
  return std::stoll(row.at(key));
}

std::string source_of(const std::string& kernel) {
  if (kernel == "sdpa_cudnn") return "peer:torch-cudnn";
  if (kernel == "sdpa_flash") return "peer:torch-flash";
  return "ours";
}

store::MeasurementRow row(int run, std::string kernel, AttnShape shape, double seconds) {
  store::MeasurementRow m;
  static std::int64_t next_id = 1000;
  m.id = next_id++;
  m.run_id = run;
  m.started_at = fmt::format("2026-12-{:02}T{:02}:00:00Z", run < 8 ? 1 : 2, run);
  m.revision = fmt::format("notes-run{}", run);
  m.device = kDecodeDevice;
  m.source = source_of(kernel);
  m.kernel = std::move(kernel);
  m.shape = std::move(shape);
  m.median_s = seconds;
  m.tflops = attention_flops(m.shape, Pass::fwd) / seconds / 1e12;
  return m;
}

std::vector<store::MeasurementRow> run2() {
  std::vector<store::MeasurementRow> out;
  for (const auto& r : read_csv("2026-12-01-h200-run2.csv")) {
    std::string kernel = r.at("kernel");
    if (kernel == "fa3_decode") continue;  // the overlapped loop, not kept
    if (kernel == "fa3_decode_no_overlap") kernel = "fa3_decode";
    AttnShape s = decode_shape(integer_of(r, "batch"), integer_of(r, "seqlen_q"),
                               integer_of(r, "seqlen_k"), integer_of(r, "heads_q"));
    s.causal = r.at("causal") == "1";
    out.push_back(row(2, kernel, s, std::stod(r.at("ms")) * 1e-3));
  }
  return out;
}

std::vector<store::MeasurementRow> run4() {
  std::vector<store::MeasurementRow> out;
  for (const auto& r : read_csv("2026-12-01-h200-run4-spec.csv"))
    out.push_back(row(
        4, r.at("kernel"),
        decode_shape(integer_of(r, "batch"), integer_of(r, "seqlen_q"), integer_of(r, "seqlen_k")),
        std::stod(r.at("us")) * 1e-6));
  return out;
}

// Its ragged rows are left out: the run recorded their key counts' range and sum, not the counts.
std::vector<store::MeasurementRow> run5() {
  std::vector<store::MeasurementRow> out;
  for (const auto& r : read_csv("2026-12-01-h200-run5-paged.csv")) {
    const std::string layout = r.at("layout");
    if (layout.find("ragged") != std::string::npos) continue;
    AttnShape s = decode_shape(integer_of(r, "batch"), 1, integer_of(r, "seqlen_k"));
    if (layout.starts_with("paged")) s.page_size = std::stoll(layout.substr(5));
    out.push_back(row(5, r.at("kernel"), s, std::stod(r.at("us")) * 1e-6));
  }
  return out;
}

// The partitions fa3_decode chooses now (core/decode_tiles.hpp's chosen_partition), with cuDNN
// and flash in the same call: dense, 64 query heads, a paged cache and the ragged batch of
// data/sweeps/decode.json, its key counts as recorded.
std::vector<store::MeasurementRow> run10() {
  std::vector<store::MeasurementRow> out;
  for (const auto& r : read_csv("2026-12-02-h200-run10-chosen.csv")) {
    AttnShape s = decode_shape(integer_of(r, "batch"), 1, integer_of(r, "seqlen_k"),
                               integer_of(r, "heads_q"));
    s.page_size = integer_of(r, "page_size");
    std::stringstream counts(r.at("seqlens_k"));
    for (std::string c; std::getline(counts, c, ',');) s.seqlens_k.push_back(std::stoll(c));
    out.push_back(row(10, r.at("kernel"), s, std::stod(r.at("us")) * 1e-6));
  }
  return out;
}

}  // namespace

AttnShape decode_shape(std::int64_t batch, std::int64_t seqlen_q, std::int64_t seqlen_k,
                       std::int64_t heads_q) {
  AttnShape s;
  s.batch = batch;
  s.heads_q = heads_q;
  s.heads_kv = 8;
  s.seqlen_q = seqlen_q;
  s.seqlen_k = seqlen_k;
  s.causal = seqlen_q > 1;
  return s;
}

std::vector<store::MeasurementRow> decode_measurements() {
  std::vector<store::MeasurementRow> out;
  for (const auto& run : {run2(), run4(), run5(), run10()}) merge_latest(out, run);
  return out;
}

std::vector<store::CeilingRow> decode_ceilings() {
  std::vector<store::CeilingRow> out;
  for (const auto& [run, unit, value] : {std::tuple{10, "hbm_read", 4.46}, {4, "hbm_copy", 3.83}}) {
    store::CeilingRow c;
    c.run_id = run;
    c.started_at = run == 10 ? "2026-12-02T10:00:00Z" : "2026-12-01T04:00:00Z";
    c.ceiling.device = kDecodeDevice;
    c.ceiling.unit = unit;
    c.ceiling.value = value;
    c.ceiling.value_unit = "TB/s";
    out.push_back(c);
  }
  return out;
}

ReportInputs decode_inputs() {
  ReportInputs in;
  in.gpus = real_specs();
  in.measurements = decode_measurements();
  in.ceilings = decode_ceilings();
  in.chart_folder = "golden-serving";
  return in;
}

}  // namespace fa4::report::testing
