// Reading: the runs list, read-only SQL queries and the predictions a report shows.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <map>
#include <tuple>

#include "core/stats.hpp"
#include "store/migrations.hpp"
#include "store/problem_columns.hpp"
#include "store/schema_objects.hpp"
#include "store/store.hpp"

namespace fa4::store {
namespace {

std::string blob_literal(const Statement& statement, int column) {
  const auto* bytes =
      static_cast<const unsigned char*>(sqlite3_column_blob(statement.handle(), column));
  const int size = sqlite3_column_bytes(statement.handle(), column);
  std::string text = "x'";
  for (int i = 0; i < size; ++i) text += fmt::format("{:02x}", bytes[i]);
  return text + "'";
}

Value read_value(const Statement& statement, int column) {
  switch (statement.column_type(column)) {
    case SQLITE_NULL:
      return std::monostate{};
    case SQLITE_INTEGER:
      return statement.column_int(column);
    case SQLITE_FLOAT:
      return statement.column_double(column);
    case SQLITE_BLOB:
      return blob_literal(statement, column);
    default:
      return statement.column_text(column);
  }
}

// PRAGMA query_only for as long as it lives: the connection refuses to write.
class QueryOnly {
 public:
  explicit QueryOnly(sqlite3* db) : db_(db) {}
  QueryOnly(const QueryOnly&) = delete;
  QueryOnly& operator=(const QueryOnly&) = delete;
  Status enable() { return exec(db_, "PRAGMA query_only = 1"); }
  ~QueryOnly() { sqlite3_exec(db_, "PRAGMA query_only = 0", nullptr, nullptr, nullptr); }

 private:
  sqlite3* db_;
};

// Functions a read never needs that a hostile query could misuse: fts3_tokenizer hands out a
// library address and takes one to call; load_extension loads a library.
constexpr std::array<std::string_view, 2> kRefusedFunctions = {"fts3_tokenizer", "load_extension"};

// Besides the tool's own tables: SQLite's catalogue and the table-valued functions a read may use
// (PRAGMA's, whose pragma SQLite authorizes separately, and JSON's).
bool is_readable_builtin(std::string_view table) {
  return table == "sqlite_master" || table == "sqlite_schema" || table == "sqlite_temp_master" ||
         table == "sqlite_temp_schema" || table.starts_with("pragma_") || table == "json_each" ||
         table == "json_tree";
}

bool equal_ignoring_case(std::string_view a, std::string_view b) {
  return a.size() == b.size() &&
         sqlite3_strnicmp(a.data(), b.data(), static_cast<int>(a.size())) == 0;
}

// What a query may read and call, judged as SQLite compiles it (sqlite3_set_authorizer): reads of
// the tool's tables and views and of the built-ins above, any function but the refused ones. Writes
// are left to the read-only check, which says so in its own words. `refusal` holds why the last
// statement was refused.
class ReadAuthorizer {
 public:
  explicit ReadAuthorizer(sqlite3* db) : db_(db) {
    for (const SchemaObject& object : expected_schema_objects(latest_schema_version()))
      if (object.type == "table" || object.type == "view") tables_.push_back(object.name);
    sqlite3_set_authorizer(db_, &ReadAuthorizer::judge, this);
  }
  ReadAuthorizer(const ReadAuthorizer&) = delete;
  ReadAuthorizer& operator=(const ReadAuthorizer&) = delete;
  ~ReadAuthorizer() { sqlite3_set_authorizer(db_, nullptr, nullptr); }

  const std::string& refusal() const { return refusal_; }

 private:
  // A read that names no database is of a common table expression or of no column (count(*)):
  // only column reads of a schema's table are judged.
  static int judge(void* self, int action, const char* table, const char* function,
                   const char* database, const char*) {
    auto& authorizer = *static_cast<ReadAuthorizer*>(self);
    if (action == SQLITE_READ && table && database) return authorizer.judge_read(table);
    if (action == SQLITE_FUNCTION && function) return authorizer.judge_function(function);
    return SQLITE_OK;
  }

  int judge_read(std::string_view table) {
    if (is_readable_builtin(table)) return SQLITE_OK;
    for (const std::string& ours : tables_)
      if (equal_ignoring_case(table, ours)) return SQLITE_OK;
    refusal_ = fmt::format(
        "query reads only the results database's tables and views (lib/store/SCHEMA.md); '{}' is "
        "not one of them",
        table);
    return SQLITE_DENY;
  }

  int judge_function(std::string_view function) {
    for (std::string_view refused : kRefusedFunctions) {
      if (!equal_ignoring_case(function, refused)) continue;
      refusal_ = fmt::format(
          "query does not run {}(): it handles library addresses or loads code, and no read "
          "needs it",
          refused);
      return SQLITE_DENY;
    }
    return SQLITE_OK;
  }

  sqlite3* db_;
  std::vector<std::string> tables_;
  std::string refusal_;
};

// Asks `interrupt` every kProgressSteps virtual-machine steps while a statement runs; true stops
// the statement with SQLITE_INTERRUPT.
class InterruptCheck {
 public:
  InterruptCheck(sqlite3* db, const std::function<bool()>& interrupt)
      : db_(db), interrupt_(interrupt) {
    if (interrupt_) sqlite3_progress_handler(db_, kProgressSteps, &InterruptCheck::ask, this);
  }
  InterruptCheck(const InterruptCheck&) = delete;
  InterruptCheck& operator=(const InterruptCheck&) = delete;
  ~InterruptCheck() { sqlite3_progress_handler(db_, 0, nullptr, nullptr); }

 private:
  static constexpr int kProgressSteps = 1000;
  static int ask(void* self) { return static_cast<InterruptCheck*>(self)->interrupt_() ? 1 : 0; }

  sqlite3* db_;
  const std::function<bool()>& interrupt_;
};

constexpr std::string_view kReportColumns =
    "run_id, id, started_at, revision, gpu, algorithm, tile_m, tile_n, exp_emulation, "
    "conditional_rescale, two_cta, cycles_mma, cycles_exp_mufu, cycles_exp_fma, cycles_fma, "
    "cycles_smem, cycles_tmem, cycles_hbm, tile_bottleneck, tile_time_cycles, time_s, flops, "
    "tflops, fraction_of_peak, bottleneck, model_version";
constexpr int kReportColumnCount = 26;
static_assert(std::ranges::count(kReportColumns, ',') + 1 == kReportColumnCount);

Result<ReportRow> read_report_row(const Statement& s) {
  ReportRow row;
  int i = 0;
  row.run_id = s.column_int(i++);
  row.prediction_id = s.column_int(i++);
  row.started_at = s.column_text(i++);
  row.revision = s.column_text(i++);
  row.gpu = s.column_text(i++);
  auto algorithm = model::parse_algorithm(s.column_text(i++));
  if (!algorithm) return algorithm.error();
  row.algorithm = *algorithm;
  row.tile.m = static_cast<int>(s.column_int(i++));
  row.tile.n = static_cast<int>(s.column_int(i++));
  row.exp_emulation = s.column_double(i++);
  row.conditional_rescale = s.column_int(i++) != 0;
  row.two_cta = s.column_int(i++) != 0;
  row.cycles.mma = s.column_double(i++);
  row.cycles.exp_mufu = s.column_double(i++);
  row.cycles.exp_fma = s.column_double(i++);
  row.cycles.fma = s.column_double(i++);
  row.cycles.smem = s.column_double(i++);
  row.cycles.tmem = s.column_double(i++);
  row.cycles.hbm = s.column_double(i++);
  row.tile_bottleneck = s.column_text(i++);
  row.tile_time_cycles = s.column_double(i++);
  row.time_s = s.column_double(i++);
  row.flops = s.column_double(i++);
  row.tflops = s.column_double(i++);
  row.fraction_of_peak = s.column_double(i++);
  row.bottleneck = s.column_text(i++);
  row.model_version = s.column_text(i++);
  auto problem = read_problem(s, kReportColumnCount);
  if (!problem) return problem.error();
  std::tie(row.shape, row.pass) = *problem;
  return row;
}

constexpr std::string_view kRunColumns =
    "id, started_at, kind, revision, host, command_line, device, driver, cuda_version, notes";

// v_runs counts each run's rows through the run_id indexes, so a damaged index fails the whole
// list; on a damaged database it is read again from the tables alone.
std::string runs_through_indexes() {
  return fmt::format("SELECT {}, predictions, measurements FROM v_runs ORDER BY id", kRunColumns);
}
std::string runs_from_tables_alone() {
  return fmt::format(
      "SELECT {}, COALESCE(p.n, 0), COALESCE(m.n, 0) FROM runs r "
      "LEFT JOIN (SELECT run_id, COUNT(*) AS n FROM predictions NOT INDEXED GROUP BY run_id) p "
      "ON p.run_id = r.id "
      "LEFT JOIN (SELECT run_id, COUNT(*) AS n FROM measurements NOT INDEXED GROUP BY run_id) m "
      "ON m.run_id = r.id ORDER BY r.id",
      kRunColumns);
}

Result<std::vector<RunRow>> read_runs(sqlite3* db, const std::string& sql) {
  auto select = Statement::prepare(db, sql);
  if (!select) return select.error();
  std::vector<RunRow> runs;
  for (;;) {
    auto more = select->step();
    if (!more) return more.error();
    if (!*more) return runs;
    RunRow& run = runs.emplace_back();
    run.id = select->column_int(0);
    run.started_at = select->column_text(1);
    run.kind = select->column_text(2);
    run.revision = select->column_text(3);
    run.host = select->column_text(4);
    run.command_line = select->column_text(5);
    run.device = select->column_text(6);
    run.driver = select->column_text(7);
    run.cuda_version = select->column_text(8);
    run.notes = select->column_text(9);
    run.predictions = select->column_int(10);
    run.measurements = select->column_int(11);
  }
}

bool failed_on_damage(sqlite3* db) { return (sqlite3_errcode(db) & 0xff) == SQLITE_CORRUPT; }

}  // namespace

Result<std::vector<RunRow>> Store::list_runs() const {
  auto runs = read_runs(db_.get(), runs_through_indexes());
  if (!runs && failed_on_damage(db_.get())) runs = read_runs(db_.get(), runs_from_tables_alone());
  if (!runs) return Error{fmt::format("{}: cannot list runs: {}", path_, runs.error().message)};
  return runs;
}

Status Store::query_rows(std::string_view sql,
                         const std::function<void(std::vector<std::string>)>& on_columns,
                         const std::function<bool(std::vector<Value>)>& on_row,
                         const std::function<bool()>& interrupt) const {
  ReadAuthorizer authorizer(db_.get());
  InterruptCheck interrupt_check(db_.get(), interrupt);
  auto statement = Statement::prepare(db_.get(), sql);
  if (!statement && !authorizer.refusal().empty()) return Error{authorizer.refusal()};
  if (!statement) return statement.error();
  if (!sqlite3_stmt_readonly(statement->handle()) || statement->column_count() == 0) {
    return Error{fmt::format(
        "query only reads: '{}' would write to {} or change the connection; use SELECT, WITH or "
        "a PRAGMA that returns rows (PRAGMA table_info(runs))",
        sql, path_)};
  }
  QueryOnly query_only(db_.get());
  if (auto on = query_only.enable(); !on) return on.error();
  std::vector<std::string> columns;
  for (int c = 0; c < statement->column_count(); ++c) columns.push_back(statement->column_name(c));
  on_columns(std::move(columns));
  for (;;) {
    auto more = statement->step();
    if (!more) return more.error();
    if (!*more) return Ok{};
    std::vector<Value> row;
    for (int c = 0; c < statement->column_count(); ++c) row.push_back(read_value(*statement, c));
    if (!on_row(std::move(row))) return Ok{};
  }
}

Result<QueryResult> Store::query(std::string_view sql) const {
  QueryResult table;
  auto done = query_rows(
      sql, [&](std::vector<std::string> columns) { table.columns = std::move(columns); },
      [&](std::vector<Value> row) {
        table.rows.push_back(std::move(row));
        return true;
      });
  if (!done) return done.error();
  return table;
}

Status Store::for_each_report_row(const ReportRowFilter& filter,
                                  const std::function<void(const ReportRow&)>& visit) const {
  std::string where;
  if (!filter.gpu.empty()) where = "WHERE gpu = ?1";
  if (filter.square_only)
    where += where.empty() ? "WHERE seqlen_q = seqlen_k" : " AND seqlen_q = seqlen_k";
  auto select = Statement::prepare(
      db_.get(), fmt::format("SELECT {}, {} FROM v_latest_predictions {} ORDER BY gpu, algorithm, "
                             "pass, dtype, causal, headdim, headdim_v, batch, heads_q, heads_kv, "
                             "seqlen_q, seqlen_k, page_size, seqlens_k, splits, id",
                             kReportColumns, kProblemColumns, where));
  if (!select) return select.error();
  if (!filter.gpu.empty()) select->bind(1, filter.gpu);
  for (;;) {
    auto more = select->step();
    if (!more)
      return Error{fmt::format("{}: cannot read predictions: {}", path_, more.error().message)};
    if (!*more) return Ok{};
    auto row = read_report_row(*select);
    if (!row) {
      return Error{
          fmt::format("{}: prediction {}: {}", path_, select->column_int(1), row.error().message)};
    }
    visit(*row);
  }
}

Result<std::vector<ReportRow>> Store::predictions_for_report() const {
  std::vector<ReportRow> rows;
  auto read = for_each_report_row({}, [&](const ReportRow& row) { rows.push_back(row); });
  if (!read) return read.error();
  return rows;
}

Result<std::vector<MeasurementRow>> Store::measurements_for_report() const {
  auto select = Statement::prepare(
      db_.get(),
      fmt::format("SELECT id, run_id, started_at, revision, device, kernel, source, status, "
                  "reason, time_median_s, tflops, predicted_tflops, predicted_gpu, {} "
                  "FROM v_latest_measurements ORDER BY device, pass, dtype, causal, headdim, "
                  "headdim_v, batch, heads_q, heads_kv, seqlen_q, seqlen_k, page_size, seqlens_k, "
                  "splits, kernel, source",
                  kProblemColumns));
  if (!select) return select.error();
  std::vector<MeasurementRow> rows;
  for (;;) {
    auto more = select->step();
    if (!more)
      return Error{fmt::format("{}: cannot read measurements: {}", path_, more.error().message)};
    if (!*more) break;
    MeasurementRow& row = rows.emplace_back();
    row.id = select->column_int(0);
    row.run_id = select->column_int(1);
    row.started_at = select->column_text(2);
    row.revision = select->column_text(3);
    row.device = select->column_text(4);
    row.kernel = select->column_text(5);
    row.source = select->column_text(6);
    const std::string status = select->column_text(7);
    const auto parsed = parse_measurement_status(status);
    if (!parsed)
      return Error{fmt::format("{}: measurement {}: unknown status '{}'", path_, row.id, status)};
    row.status = *parsed;
    row.reason = select->column_text(8);
    row.median_s = select->column_double(9);
    row.tflops = select->column_double(10);
    row.predicted_tflops = select->column_double(11);
    row.predicted_gpu = select->column_text(12);
    auto problem = read_problem(*select, 13);
    if (!problem)
      return Error{fmt::format("{}: measurement {}: {}", path_, row.id, problem.error().message)};
    std::tie(row.shape, row.pass) = *problem;
  }
  if (Status s = read_samples(rows); !s) return s.error();
  return rows;
}

Status Store::read_samples(std::vector<MeasurementRow>& rows) const {
  auto select = Statement::prepare(
      db_.get(),
      "SELECT measurement_id, time_s, round_index FROM samples WHERE measurement_id IN (SELECT "
      "id FROM v_latest_measurements) ORDER BY measurement_id, sample_index");
  if (!select) return select.error();
  struct Taken {
    std::vector<double> samples;
    std::vector<int> rounds;  // one per sample when every sample has its round
    bool in_rounds = true;
  };
  std::map<std::int64_t, Taken> taken;
  for (;;) {
    auto more = select->step();
    if (!more)
      return Error{fmt::format("{}: cannot read samples: {}", path_, more.error().message)};
    if (!*more) break;
    Taken& t = taken[select->column_int(0)];
    t.samples.push_back(select->column_double(1));
    t.in_rounds = t.in_rounds && select->column_type(2) != SQLITE_NULL;
    if (t.in_rounds) t.rounds.push_back(static_cast<int>(select->column_int(2)));
  }
  for (MeasurementRow& row : rows)
    if (auto it = taken.find(row.id); it != taken.end())
      row.samples_s = round_medians(it->second.samples,
                                    it->second.in_rounds ? it->second.rounds : std::vector<int>{});
  return Ok{};
}

Result<std::vector<CeilingRow>> Store::latest_ceilings() const {
  auto select = Statement::prepare(
      db_.get(),
      "SELECT run_id, started_at, device, unit, value, value_unit, per_sm_per_clk, sm_clock_mhz, "
      "time_median_s, method FROM v_latest_ceilings ORDER BY device, unit");
  if (!select) return select.error();
  std::vector<CeilingRow> rows;
  for (;;) {
    auto more = select->step();
    if (!more)
      return Error{fmt::format("{}: cannot read ceilings: {}", path_, more.error().message)};
    if (!*more) return rows;
    CeilingRow& row = rows.emplace_back();
    row.run_id = select->column_int(0);
    row.started_at = select->column_text(1);
    Ceiling& c = row.ceiling;
    c.device = select->column_text(2);
    c.unit = select->column_text(3);
    c.value = select->column_double(4);
    c.value_unit = select->column_text(5);
    c.per_sm_per_clk = select->column_double(6);
    c.sm_clock_mhz = select->column_double(7);
    c.median_s = select->column_double(8);
    c.method = select->column_text(9);
  }
}

QueryResult to_query_result(const std::vector<RunRow>& runs) {
  QueryResult table{{"id", "started_at", "kind", "revision", "host", "device", "driver",
                     "cuda_version", "predictions", "measurements", "notes", "command_line"},
                    {}};
  for (const RunRow& r : runs) {
    table.rows.push_back({r.id, r.started_at, r.kind, r.revision, r.host, r.device, r.driver,
                          r.cuda_version, r.predictions, r.measurements, r.notes, r.command_line});
  }
  return table;
}

}  // namespace fa4::store
