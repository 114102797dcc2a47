#include "store/curate.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <tuple>
#include <vector>

#include "store/migrations.hpp"
#include "store/sqlite.hpp"
#include "store/store.hpp"

namespace fa4::store {
namespace {

namespace fs = std::filesystem;

// The columns that make a measurement the same problem (v_latest_measurements' grouping).
constexpr std::string_view kMeasurementKey =
    "kernel, source, pass, batch, heads_q, heads_kv, seqlen_q, seqlen_k, headdim, headdim_v, "
    "causal, dtype, sliding_window, page_size, seqlens_k, splits";

std::string quoted(std::string_view text) {
  std::string out = "'";
  for (const char c : text) out += c == '\'' ? std::string("''") : std::string(1, c);
  return out + "'";
}

std::string id_list(const std::set<std::int64_t>& ids) {
  std::string out;
  for (const std::int64_t id : ids) out += fmt::format("{}{}", out.empty() ? "" : ", ", id);
  return out;
}

std::string text_of(const Value& v) {
  if (const auto* s = std::get_if<std::string>(&v)) return *s;
  if (const auto* i = std::get_if<std::int64_t>(&v)) return std::to_string(*i);
  if (const auto* d = std::get_if<double>(&v)) return fmt::format("{}", *d);
  return "";
}

std::int64_t int_of(const Value& v) {
  if (const auto* i = std::get_if<std::int64_t>(&v)) return *i;
  return 0;
}

// One source's latest row of a problem (or a unit): where it is and when its run started.
struct Held {
  std::size_t source = 0;
  std::int64_t id = 0;
  std::string started_at;
};

// Keeps `row` for `key` unless a row held started at the same time or later.
void keep_latest(std::map<std::string, Held>& held, const std::string& key, Held row) {
  auto [at, inserted] = held.try_emplace(key, row);
  if (!inserted && row.started_at > at->second.started_at) at->second = std::move(row);
}

// A table's rows as read, with the index of each column.
struct Rows {
  QueryResult result;
  std::size_t column(std::string_view name) const {
    const auto at = std::find(result.columns.begin(), result.columns.end(), name);
    return static_cast<std::size_t>(at - result.columns.begin());
  }
};

Result<Rows> read(const Store& db, const std::string& sql) {
  auto r = db.query(sql);
  if (!r) return r.error();
  return Rows{std::move(*r)};
}

// INSERT INTO table (columns but `skip`) VALUES (...), each value from the row or from
// `replace` where it names the column. Returns the new row's id.
// The columns of `table` in the record.
Result<std::set<std::string>> columns_of(sqlite3* db, std::string_view table) {
  auto st = Statement::prepare(db, fmt::format("SELECT name FROM pragma_table_info('{}')", table));
  if (!st) return st.error();
  std::set<std::string> names;
  for (;;) {
    auto row = st->step();
    if (!row) return row.error();
    if (!*row) return names;
    names.insert(st->column_text(0));
  }
}

// What a later migration gives every earlier row: NULL, 0 or ''.
bool is_default(const Value& v) {
  if (const auto* i = std::get_if<std::int64_t>(&v)) return *i == 0;
  if (const auto* s = std::get_if<std::string>(&v)) return s->empty();
  return std::holds_alternative<std::monostate>(v);
}

// `has`: the record's columns of `table`.
Result<std::int64_t> insert(sqlite3* db, std::string_view table, const std::set<std::string>& has,
                            const Rows& rows, const std::vector<Value>& row,
                            const std::set<std::string>& skip,
                            const std::map<std::string, Value>& replace) {
  std::string names, marks;
  std::vector<Value> values;
  for (std::size_t c = 0; c < rows.result.columns.size(); ++c) {
    const std::string& name = rows.result.columns[c];
    if (skip.contains(name)) continue;
    // A column of a later schema than the record's: only its earlier rows' value fits.
    if (!has.contains(name)) {
      if (is_default(row[c])) continue;
      return Error{
          fmt::format("{}.{} holds {}, which the record's schema cannot: curate the "
                      "sources with a build of their schema",
                      table, name, text_of(row[c]))};
    }
    names += (names.empty() ? "" : ", ") + name;
    marks += marks.empty() ? "?" : ", ?";
    const auto r = replace.find(name);
    values.push_back(r == replace.end() ? row[c] : r->second);
  }
  auto st =
      Statement::prepare(db, fmt::format("INSERT INTO {} ({}) VALUES ({})", table, names, marks));
  if (!st) return st.error();
  for (std::size_t i = 0; i < values.size(); ++i) {
    const int at = static_cast<int>(i + 1);
    std::visit(
        [&](const auto& v) {
          using T = std::decay_t<decltype(v)>;
          if constexpr (std::is_same_v<T, std::monostate>)
            st->bind_null(at);
          else if constexpr (std::is_same_v<T, std::string>)
            st->bind(at, std::string_view(v));
          else
            st->bind(at, v);
        },
        values[i]);
  }
  if (auto ran = st->run(); !ran) return ran.error();
  return sqlite3_last_insert_rowid(db);
}

// What one source gives the record.
struct Taken {
  Rows runs, measurements, samples, predictions, factors, ceilings, ceiling_samples;
};

// `scratch`: an empty folder for the sources' private copies.
Result<CurateCounts> curate_into(std::span<const CurateSource> sources, std::string_view device,
                                 const std::string& out, const fs::path& scratch) {
  std::error_code ec;
  std::vector<Store> dbs;
  int version = 1;
  for (std::size_t i = 0; i < sources.size(); ++i) {
    const CurateSource& s = sources[i];
    // A private copy (with a live write-ahead log), so that no reader leaves a -shm or -wal
    // file beside the source, nor waits on its lock.
    const std::string copy = (scratch / fmt::format("{}.db", i)).string();
    fs::copy_file(s.path, copy, ec);
    if (!ec && fs::exists(s.path + "-wal")) fs::copy_file(s.path + "-wal", copy + "-wal", ec);
    if (ec) return Error{fmt::format("cannot copy {} to {}: {}", s.path, copy, ec.message())};
    // The file's own version (the store reads an older one through a copy migrated in memory).
    {
      auto raw = open_db(copy, SQLITE_OPEN_READONLY);
      if (!raw) return Error{fmt::format("{}: {}", s.path, raw.error().message)};
      auto v = read_schema_version(raw->get());
      if (!v) return Error{fmt::format("{}: {}", s.path, v.error().message)};
      version = std::max(version, v->value_or(1));
    }
    auto db = Store::open(copy, {.create = false, .read_only = true});
    if (!db) return Error{fmt::format("{}: {}", s.path, db.error().message)};
    dbs.push_back(std::move(*db));
  }
  // The latest row of each problem and unit, as the report merges the sources.
  std::map<std::string, Held> measured, ceiled;
  for (std::size_t i = 0; i < dbs.size(); ++i) {
    auto m = read(dbs[i], fmt::format("SELECT id, started_at, {} FROM v_latest_measurements "
                                      "WHERE device = {}",
                                      kMeasurementKey, quoted(device)));
    if (!m) return Error{fmt::format("{}: {}", sources[i].path, m.error().message)};
    for (const auto& row : m->result.rows) {
      std::string key;
      for (std::size_t c = 2; c < row.size(); ++c) key += text_of(row[c]) + '\x1f';
      keep_latest(measured, key, {i, int_of(row[0]), text_of(row[1])});
    }
    auto c = read(dbs[i], fmt::format("SELECT id, started_at, unit FROM v_latest_ceilings WHERE "
                                      "device = {}",
                                      quoted(device)));
    if (!c) return Error{fmt::format("{}: {}", sources[i].path, c.error().message)};
    for (const auto& row : c->result.rows)
      keep_latest(ceiled, text_of(row[2]), {i, int_of(row[0]), text_of(row[1])});
  }
  if (measured.empty() && ceiled.empty())
    return Error{fmt::format("no source holds a measurement or a ceiling of device '{}'", device)};

  // Each source's kept rows, their samples, linked predictions with their factors, and runs.
  std::vector<std::set<std::int64_t>> measurement_ids(dbs.size()), ceiling_ids(dbs.size());
  for (const auto& [key, h] : measured) measurement_ids[h.source].insert(h.id);
  for (const auto& [key, h] : ceiled) ceiling_ids[h.source].insert(h.id);
  std::vector<Taken> taken(dbs.size());
  for (std::size_t i = 0; i < dbs.size(); ++i) {
    if (measurement_ids[i].empty() && ceiling_ids[i].empty()) continue;
    const std::string m = id_list(measurement_ids[i]), c = id_list(ceiling_ids[i]);
    const std::string predictions =
        fmt::format("SELECT prediction_id FROM measurements WHERE id IN ({})", m);
    const std::pair<Rows*, std::string> reads[] = {
        {&taken[i].measurements, fmt::format("SELECT * FROM measurements WHERE id IN ({}) "
                                             "ORDER BY id",
                                             m)},
        {&taken[i].samples, fmt::format("SELECT * FROM samples WHERE measurement_id IN ({}) "
                                        "ORDER BY measurement_id, sample_index",
                                        m)},
        {&taken[i].predictions,
         fmt::format("SELECT * FROM predictions WHERE id IN ({}) ORDER BY id", predictions)},
        {&taken[i].factors, fmt::format("SELECT * FROM prediction_factors WHERE prediction_id "
                                        "IN ({}) ORDER BY prediction_id, position",
                                        predictions)},
        {&taken[i].ceilings, fmt::format("SELECT * FROM ceilings WHERE id IN ({}) ORDER BY id", c)},
        {&taken[i].ceiling_samples, fmt::format("SELECT * FROM ceiling_samples WHERE ceiling_id "
                                                "IN ({}) ORDER BY ceiling_id, sample_index",
                                                c)},
        {&taken[i].runs,
         fmt::format("SELECT * FROM runs WHERE id IN (SELECT run_id FROM measurements WHERE id IN "
                     "({0}) UNION SELECT run_id FROM ceilings WHERE id IN ({1}) UNION SELECT "
                     "run_id FROM predictions WHERE id IN ({2})) ORDER BY id",
                     m, c, predictions)},
    };
    for (const auto& [rows, sql] : reads) {
      auto r = read(dbs[i], sql);
      if (!r) return Error{fmt::format("{}: {}", sources[i].path, r.error().message)};
      *rows = std::move(*r);
    }
  }
  dbs.clear();

  // A new database at the sources' newest schema (so that every build that reads the sources
  // reads the record), then every row in one transaction.
  auto db = open_db(out, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
  if (!db) return db.error();
  for (int v = 1; v <= version; ++v)
    if (auto s = apply_migration(db->get(), v); !s) return s.error();
  std::map<std::string, std::set<std::string>, std::less<>> columns;
  for (const char* table : {"runs", "predictions", "prediction_factors", "measurements", "samples",
                            "ceilings", "ceiling_samples"}) {
    auto names = columns_of(db->get(), table);
    if (!names) return names.error();
    columns[table] = std::move(*names);
  }
  auto tx = Transaction::begin(db->get());
  if (!tx) return tx.error();
  CurateCounts n;
  // Runs oldest first, so that the record's ids keep "the highest id is the latest".
  std::vector<std::tuple<std::string, std::size_t, std::size_t>> order;  // started_at, source, row
  for (std::size_t i = 0; i < taken.size(); ++i)
    for (std::size_t r = 0; r < taken[i].runs.result.rows.size(); ++r)
      order.emplace_back(text_of(taken[i].runs.result.rows[r][taken[i].runs.column("started_at")]),
                         i, r);
  std::sort(order.begin(), order.end());
  std::vector<std::map<std::int64_t, std::int64_t>> run_id(taken.size()),
      prediction_id(taken.size()), measurement_id(taken.size()), ceiling_id(taken.size());
  for (const auto& [started_at, i, r] : order) {
    const Rows& runs = taken[i].runs;
    const auto& row = runs.result.rows[r];
    const std::int64_t old = int_of(row[runs.column("id")]);
    const std::string notes = text_of(row[runs.column("notes")]);
    const std::string from = fmt::format("curated from {} run {}", sources[i].label, old);
    auto id = insert(db->get(), "runs", columns.find("runs")->second, runs, row, {"id"},
                     {{"notes", notes.empty() ? from : notes + "; " + from}});
    if (!id) return id.error();
    run_id[i][old] = *id;
    ++n.runs;
  }
  const auto mapped = [](const std::map<std::int64_t, std::int64_t>& ids, const Value& v) {
    const auto at = ids.find(int_of(v));
    return std::holds_alternative<std::monostate>(v) || at == ids.end() ? Value{}
                                                                        : Value{at->second};
  };
  using Ids = std::map<std::int64_t, std::int64_t>;
  // Copies `rows` into `table`, each link column (a foreign key) mapped to the record's id; a
  // table with an id column gets new ids, noted in `ids`.
  const auto copy = [&](std::string_view table, const Rows& rows, Ids* ids,
                        const std::map<std::string, const Ids*>& links,
                        std::int64_t* count) -> Status {
    for (const auto& row : rows.result.rows) {
      std::map<std::string, Value> replace;
      for (const auto& [column, link] : links)
        replace[column] = mapped(*link, row[rows.column(column)]);
      auto id = insert(db->get(), table, columns.find(table)->second, rows, row,
                       ids ? std::set<std::string>{"id"} : std::set<std::string>{}, replace);
      if (!id) return id.error();
      if (ids) (*ids)[int_of(row[rows.column("id")])] = *id;
      if (count) ++*count;
    }
    return Ok{};
  };
  for (std::size_t i = 0; i < taken.size(); ++i) {
    const Taken& t = taken[i];
    for (const Status& s :
         {copy("predictions", t.predictions, &prediction_id[i], {{"run_id", &run_id[i]}},
               &n.predictions),
          copy("prediction_factors", t.factors, nullptr, {{"prediction_id", &prediction_id[i]}},
               nullptr),
          copy("measurements", t.measurements, &measurement_id[i],
               {{"run_id", &run_id[i]}, {"prediction_id", &prediction_id[i]}}, &n.measurements),
          copy("samples", t.samples, nullptr, {{"measurement_id", &measurement_id[i]}}, &n.samples),
          copy("ceilings", t.ceilings, &ceiling_id[i], {{"run_id", &run_id[i]}}, &n.ceilings),
          copy("ceiling_samples", t.ceiling_samples, nullptr, {{"ceiling_id", &ceiling_id[i]}},
               nullptr)})
      if (!s) return s.error();
  }
  if (auto s = tx->commit(); !s) return s.error();
  db->reset();
  // The record must open as any database the tool wrote.
  if (auto check = Store::open(out, {.create = false, .read_only = true}); !check)
    return Error{fmt::format("the record {} does not open: {}", out, check.error().message)};
  return n;
}

}  // namespace

Result<CurateCounts> curate(std::span<const CurateSource> sources, std::string_view device,
                            const std::string& out) {
  std::error_code ec;
  if (fs::exists(out, ec))
    return Error{fmt::format("{} exists: curate writes a new database (remove it first)", out)};
  const fs::path scratch =
      fs::temp_directory_path(ec) / fmt::format("fa4-curate-{}", static_cast<long>(::getpid()));
  if (!ec) fs::create_directories(scratch, ec);
  if (ec)
    return Error{fmt::format("cannot make a scratch folder for the sources: {}", ec.message())};
  auto n = curate_into(sources, device, out, scratch);
  fs::remove_all(scratch, ec);
  if (!n)
    for (const char* suffix : {"", "-wal", "-shm"}) fs::remove(out + suffix, ec);
  return n;
}

}  // namespace fa4::store
