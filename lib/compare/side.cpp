#include "compare/side.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <functional>
#include <map>
#include <unordered_map>

#include "core/ragged.hpp"
#include "store/problem_columns.hpp"

namespace fa4::compare {
namespace {

using store::Value;

constexpr std::string_view kProblem = store::kProblemColumns;

std::int64_t integer(const Value& v) {
  if (const auto* i = std::get_if<std::int64_t>(&v)) return *i;
  if (const auto* d = std::get_if<double>(&v)) return static_cast<std::int64_t>(*d);
  return 0;
}
double real(const Value& v) {
  if (const auto* d = std::get_if<double>(&v)) return *d;
  if (const auto* i = std::get_if<std::int64_t>(&v)) return double(*i);
  return 0;
}
std::string text(const Value& v) {
  if (const auto* s = std::get_if<std::string>(&v)) return *s;
  return "";
}

// The problem from the store::kProblemColumnCount cells from `first` (store/problem_columns.hpp).
Result<std::pair<AttnShape, Pass>> problem_of(const std::vector<Value>& row, std::size_t first) {
  AttnShape s;
  s.batch = integer(row[first]);
  s.heads_q = integer(row[first + 1]);
  s.heads_kv = integer(row[first + 2]);
  s.seqlen_q = integer(row[first + 3]);
  s.seqlen_k = integer(row[first + 4]);
  s.headdim = integer(row[first + 5]);
  s.headdim_v = integer(row[first + 6]);
  s.causal = integer(row[first + 7]) != 0;
  s.window = integer(row[first + 8]);
  s.page_size = integer(row[first + 9]);
  auto keys = parse_key_counts(text(row[first + 10]), "seqlens_k");
  if (!keys) return keys.error();
  s.seqlens_k = std::move(keys).value();
  s.splits = integer(row[first + 11]);
  auto dtype = parse_dtype(text(row[first + 12]));
  if (!dtype) return dtype.error();
  s.dtype = *dtype;
  auto pass = parse_pass(text(row[first + 13]));
  if (!pass) return pass.error();
  return std::pair{s, *pass};
}

// Each row of `sql` handed to `take`; the first error (the query's or take's) returned.
Status each_row(const store::Store& db, const std::string& sql,
                const std::function<Status(const std::vector<Value>&)>& take) {
  Status failed = Ok{};
  auto done = db.query_rows(
      sql, [](std::vector<std::string>) {},
      [&](std::vector<Value> row) {
        failed = take(row);
        return failed.ok();
      });
  if (!done) return Error{fmt::format("{}: {}", db.path(), done.error().message)};
  return failed;
}

Result<std::vector<Entry>> read_measured(const store::Store& db,
                                         const std::optional<std::int64_t>& run) {
  const std::string which =
      run ? fmt::format("m.run_id = {}", *run) : "m.id IN (SELECT id FROM v_latest_measurements)";
  std::vector<Entry> entries;
  std::vector<std::vector<double>> samples;
  // Each sample's round (bench --ab) while every sample of the entry has one.
  std::vector<std::vector<int>> rounds;
  std::vector<bool> in_rounds;
  std::vector<double> clocks;
  std::unordered_map<std::int64_t, std::size_t> index_of;
  auto rows = each_row(
      db,
      fmt::format("SELECT m.id, m.device, m.kernel, m.source, m.status, m.reason, m.sm_clock_mhz, "
                  "{} FROM measurements m WHERE {} ORDER BY m.id",
                  kProblem, which),
      [&](const std::vector<Value>& row) -> Status {
        auto problem = problem_of(row, 7);
        if (!problem)
          return Error{fmt::format("{}: measurement {}: {}", db.path(), integer(row[0]),
                                   problem.error().message)};
        Entry& e = entries.emplace_back();
        e.device = text(row[1]);
        e.kernel = text(row[2]);
        e.source = text(row[3]);
        std::tie(e.shape, e.pass) = *problem;
        if (const std::string status = text(row[4]); status != "ok")
          e.samples.unusable =
              fmt::format("was {}{}{}", status, text(row[5]).empty() ? "" : ": ", text(row[5]));
        clocks.push_back(real(row[6]));
        samples.emplace_back();
        rounds.emplace_back();
        in_rounds.push_back(true);
        index_of[integer(row[0])] = entries.size() - 1;
        return Ok{};
      });
  if (!rows) return rows.error();
  auto read = each_row(
      db,
      fmt::format("SELECT s.measurement_id, s.time_s, s.round_index FROM samples s WHERE "
                  "s.measurement_id IN (SELECT m.id FROM measurements m WHERE {}) ORDER BY "
                  "s.measurement_id, s.sample_index",
                  which),
      [&](const std::vector<Value>& row) -> Status {
        if (auto it = index_of.find(integer(row[0])); it != index_of.end()) {
          const std::size_t i = it->second;
          samples[i].push_back(real(row[1]));
          in_rounds[i] = in_rounds[i] && !std::holds_alternative<std::monostate>(row[2]);
          if (in_rounds[i]) rounds[i].push_back(static_cast<int>(integer(row[2])));
        }
        return Ok{};
      });
  if (!read) return read.error();
  for (std::size_t i = 0; i < entries.size(); ++i) {
    if (!entries[i].samples.unusable.empty()) continue;
    entries[i].samples =
        side_of_measurement(samples[i], in_rounds[i] ? rounds[i] : std::vector<int>{}, clocks[i]);
  }
  return entries;
}

Result<std::vector<Entry>> read_predicted(const store::Store& db,
                                          const std::optional<std::int64_t>& run) {
  const std::string from = run ? fmt::format("predictions WHERE run_id = {}", *run)
                               : std::string("v_latest_predictions");
  std::vector<Entry> entries;
  auto rows =
      each_row(db,
               fmt::format("SELECT id, gpu, algorithm, time_s, bottleneck, {} FROM {} ORDER BY id",
                           kProblem, from),
               [&](const std::vector<Value>& row) -> Status {
                 auto problem = problem_of(row, 5);
                 if (!problem)
                   return Error{fmt::format("{}: prediction {}: {}", db.path(), integer(row[0]),
                                            problem.error().message)};
                 Entry& e = entries.emplace_back();
                 e.device = text(row[1]);
                 e.kernel = text(row[2]);
                 e.source = "model";
                 e.predicted_s = real(row[3]);
                 e.bottleneck = text(row[4]);
                 std::tie(e.shape, e.pass) = *problem;
                 return Ok{};
               });
  if (!rows) return rows.error();
  return entries;
}

std::string run_list(const std::vector<store::RunRow>& runs) {
  if (runs.empty()) return "it has no runs";
  std::string list;
  for (const auto& r : runs)
    list += fmt::format("{}{} ({})", list.empty() ? "" : ", ", r.id, r.kind);
  return "its runs are " + list;
}

}  // namespace

Result<SideSpec> parse_side(std::string_view text, std::string_view default_db,
                            std::string_view role) {
  SideSpec spec;
  spec.text = std::string(text);
  const auto run_of = [&](std::string_view digits) -> Result<std::int64_t> {
    std::int64_t id = 0;
    const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), id);
    if (ec != std::errc{} || end != digits.data() + digits.size() || id <= 0)
      return Error{fmt::format(
          "{} '{}': '{}' is not a run id; a run is a whole number above 0, as 'fa4-analyze runs' "
          "lists them (FILE.db:RUN, FILE.db or RUN)",
          role, text, digits)};
    return id;
  };
  if (text.empty())
    return Error{fmt::format("{} is empty: give FILE.db:RUN, FILE.db or a RUN of --db", role)};
  if (std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    auto id = run_of(text);
    if (!id) return id.error();
    spec.db_path = std::string(default_db);
    spec.run_id = *id;
    return spec;
  }
  const auto colon = text.rfind(':');
  if (colon == std::string_view::npos || std::filesystem::exists(std::string(text))) {
    spec.db_path = std::string(text);
    return spec;
  }
  auto id = run_of(text.substr(colon + 1));
  if (!id) return id.error();
  spec.db_path = std::string(text.substr(0, colon));
  spec.run_id = *id;
  return spec;
}

Result<Side> read_side(const store::Store& db, const SideSpec& spec) {
  Side side;
  side.label = spec.run_id ? fmt::format("{}:{}", db.path(), *spec.run_id) : db.path();
  auto runs = db.list_runs();
  if (!runs) return runs.error();
  if (spec.run_id) {
    const auto run = std::find_if(runs->begin(), runs->end(),
                                  [&](const store::RunRow& r) { return r.id == *spec.run_id; });
    if (run == runs->end())
      return Error{fmt::format("'{}': {} has no run {}; {} (fa4-analyze runs --db {})", spec.text,
                               db.path(), *spec.run_id, run_list(*runs), db.path())};
    if (run->measurements == 0 && run->predictions == 0)
      return Error{
          fmt::format("'{}': run {} of {} is a {} run with no measurements or "
                      "predictions to compare; {}",
                      spec.text, run->id, db.path(), run->kind, run_list(*runs))};
    side.predicted = run->measurements == 0;
  } else {
    const bool measured = std::any_of(runs->begin(), runs->end(),
                                      [](const store::RunRow& r) { return r.measurements > 0; });
    const bool predicted = std::any_of(runs->begin(), runs->end(),
                                       [](const store::RunRow& r) { return r.predictions > 0; });
    if (!measured && !predicted)
      return Error{fmt::format("'{}': {} has no measurements or predictions to compare", spec.text,
                               db.path())};
    side.predicted = !measured;
  }
  auto entries = side.predicted ? read_predicted(db, spec.run_id) : read_measured(db, spec.run_id);
  if (!entries) return entries.error();
  side.entries = std::move(*entries);
  return side;
}

Result<Side> read_side_by_runs(const store::Store& db, const SideSpec& spec) {
  if (spec.run_id)
    return Error{fmt::format(
        "'{}' names run {}; with each run one round a side is a whole database: give FILE.db",
        spec.text, *spec.run_id)};
  Side side;
  // One configuration: its device, kernel, source and problem cells, as stored.
  struct Rounds {
    std::size_t entry = 0;
    std::map<std::int64_t, std::pair<double, double>> by_run;  // run -> (median, clock)
  };
  std::map<std::vector<std::string>, Rounds> configs;
  std::vector<Entry> entries;
  auto rows = each_row(
      db,
      fmt::format("SELECT m.id, m.run_id, m.device, m.kernel, m.source, m.status, m.reason, "
                  "m.sm_clock_mhz, m.time_median_s, {} FROM measurements m ORDER BY m.id",
                  kProblem),
      [&](const std::vector<Value>& row) -> Status {
        auto problem = problem_of(row, 9);
        if (!problem)
          return Error{fmt::format("{}: measurement {}: {}", db.path(), integer(row[0]),
                                   problem.error().message)};
        std::vector<std::string> key{text(row[2]), text(row[3]), text(row[4])};
        for (std::size_t c = 9; c < row.size(); ++c)
          key.push_back(std::holds_alternative<std::string>(row[c])
                            ? text(row[c])
                            : fmt::format("{}", integer(row[c])));
        auto [it, fresh] = configs.try_emplace(std::move(key));
        if (fresh) {
          it->second.entry = entries.size();
          Entry& e = entries.emplace_back();
          e.device = text(row[2]);
          e.kernel = text(row[3]);
          e.source = text(row[4]);
          std::tie(e.shape, e.pass) = *problem;
        }
        Entry& e = entries[it->second.entry];
        if (const std::string status = text(row[5]); status != "ok") {
          e.samples.unusable =
              fmt::format("was {}{}{}", status, text(row[6]).empty() ? "" : ": ", text(row[6]));
          return Ok{};
        }
        it->second.by_run[integer(row[1])] = {real(row[8]), real(row[7])};  // its latest there
        return Ok{};
      });
  if (!rows) return rows.error();
  if (entries.empty())
    return Error{
        fmt::format("'{}': {} has no measurements to compare run by run", spec.text, db.path())};
  std::size_t runs = 0;
  for (auto& [key, rounds] : configs) {
    Entry& e = entries[rounds.entry];
    if (rounds.by_run.empty()) continue;  // unusable: no ok measurement
    std::vector<double> medians, clocks;
    for (const auto& [run, median_clock] : rounds.by_run) {
      medians.push_back(median_clock.first);
      if (median_clock.second > 0) clocks.push_back(median_clock.second);
    }
    runs = std::max(runs, medians.size());
    std::sort(clocks.begin(), clocks.end());
    e.samples = side_of(std::move(medians), clocks.empty() ? 0 : median_of_sorted(clocks));
  }
  side.label = fmt::format("{} ({} runs as rounds)", db.path(), runs);
  side.entries = std::move(entries);
  return side;
}

Side merge_sides(std::vector<Side> sides, std::vector<std::string>& left_out) {
  const bool measured =
      std::any_of(sides.begin(), sides.end(), [](const Side& s) { return !s.predicted; });
  Side merged;
  merged.predicted = !measured;
  std::size_t kept = 0;
  for (Side& side : sides) {
    if (side.predicted != merged.predicted) {
      left_out.push_back(side.label);
      continue;
    }
    ++kept;
    for (Entry& e : side.entries) {
      e.db = side.label;
      merged.entries.push_back(std::move(e));
    }
  }
  merged.label = fmt::format("{} databases", kept);
  return merged;
}

}  // namespace fa4::compare
