#include "store/sqlite.hpp"

#include <fmt/format.h>

#include <chrono>
#include <thread>

namespace fa4::store {

Error sqlite_error(sqlite3* db, std::string_view what) {
  return Error{fmt::format("{}: {}", what, sqlite3_errmsg(db))};
}

namespace {

// What no connection of the tool needs, switched off on each, since a database's contents and the
// SQL of `query` may be hostile: fts3_tokenizer taking a pointer to call (and so any address),
// loading a library, writing the schema by hand (writable_schema, the defensive flag), functions
// with side effects run from the database's own views, triggers and defaults (trusted_schema).
Status harden(sqlite3* db, const std::string& path) {
  struct Setting {
    int option;
    int value;
    const char* name;
  };
  constexpr Setting kSettings[] = {
      {SQLITE_DBCONFIG_ENABLE_FTS3_TOKENIZER, 0, "SQLITE_DBCONFIG_ENABLE_FTS3_TOKENIZER"},
      {SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, 0, "SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION"},
      {SQLITE_DBCONFIG_DEFENSIVE, 1, "SQLITE_DBCONFIG_DEFENSIVE"},
      {SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, "SQLITE_DBCONFIG_TRUSTED_SCHEMA"},
  };
  for (const Setting& setting : kSettings) {
    int now = -1;
    if (sqlite3_db_config(db, setting.option, setting.value, &now) != SQLITE_OK ||
        now != setting.value) {
      return Error{fmt::format(
          "cannot open {}: SQLite {} cannot set {} to {}; build fa4-analyze with SQLite 3.31 or "
          "newer",
          path, sqlite3_libversion(), setting.name, setting.value)};
    }
  }
  // The store never attaches other files, and query() must not make it.
  sqlite3_limit(db, SQLITE_LIMIT_ATTACHED, 0);
  return Ok{};
}

}  // namespace

Result<Db> open_db(const std::string& path, int flags) {
  sqlite3* raw = nullptr;
  const int rc = sqlite3_open_v2(path.c_str(), &raw, flags, nullptr);
  Db db(raw);  // closes the handle SQLite hands back even when opening failed
  if (rc != SQLITE_OK) {
    return Error{
        fmt::format("cannot open {}: {}", path, raw ? sqlite3_errmsg(raw) : sqlite3_errstr(rc))};
  }
  sqlite3_extended_result_codes(db.get(), 1);
  if (auto hardened = harden(db.get(), path); !hardened) return hardened.error();
  return db;
}

Status exec(sqlite3* db, std::string_view sql) {
  char* message = nullptr;
  const int rc = sqlite3_exec(db, std::string(sql).c_str(), nullptr, nullptr, &message);
  if (rc == SQLITE_OK) return Ok{};
  Error error{message ? message : sqlite3_errstr(rc)};
  sqlite3_free(message);
  return error;
}

Result<Statement> Statement::prepare(sqlite3* db, std::string_view sql) {
  sqlite3_stmt* stmt = nullptr;
  const char* tail = nullptr;
  if (sqlite3_prepare_v2(db, sql.data(), static_cast<int>(sql.size()), &stmt, &tail) != SQLITE_OK)
    return sqlite_error(db, "SQL error");
  Statement statement(db, stmt);
  if (!stmt) return Error{"SQL error: no statement to run (the text is empty or only comments)"};
  // Only whitespace and comments may follow: one statement, one result.
  sqlite3_stmt* next = nullptr;
  const std::string_view rest = sql.substr(static_cast<std::size_t>(tail - sql.data()));
  if (sqlite3_prepare_v2(db, rest.data(), static_cast<int>(rest.size()), &next, nullptr) !=
          SQLITE_OK ||
      next) {
    sqlite3_finalize(next);
    return Error{
        fmt::format("SQL error: more than one statement; run them one at a time "
                    "(the second starts at '{}')",
                    rest.substr(0, 40))};
  }
  return statement;
}

Statement& Statement::check_bind(int rc) {
  if (bind_rc_ == SQLITE_OK) bind_rc_ = rc;
  return *this;
}

Statement& Statement::bind(int index, std::int64_t value) {
  return check_bind(sqlite3_bind_int64(handle(), index, value));
}

Statement& Statement::bind(int index, double value) {
  return check_bind(sqlite3_bind_double(handle(), index, value));
}

Statement& Statement::bind(int index, bool value) {
  return check_bind(sqlite3_bind_int(handle(), index, value ? 1 : 0));
}

Statement& Statement::bind(int index, std::string_view text) {
  return check_bind(sqlite3_bind_text64(handle(), index, text.data(), text.size(), SQLITE_TRANSIENT,
                                        SQLITE_UTF8));
}

Statement& Statement::bind_null(int index) {
  return check_bind(sqlite3_bind_null(handle(), index));
}

Statement& Statement::bind_or_null(int index, std::string_view text) {
  return text.empty() ? bind_null(index) : bind(index, text);
}

Result<bool> Statement::step() {
  if (bind_rc_ != SQLITE_OK) {
    return Error{fmt::format("cannot bind a value to '{}': {}", sqlite3_sql(handle()),
                             sqlite3_errstr(bind_rc_))};
  }
  const int rc = sqlite3_step(handle());
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  return sqlite_error(db_, "SQL error");
}

Status Statement::run() {
  for (;;) {
    auto row = step();
    if (!row) return row.error();
    if (!*row) return Ok{};
  }
}

void Statement::reset() {
  sqlite3_reset(handle());
  bind_rc_ = SQLITE_OK;
}

int Statement::column_count() const { return sqlite3_column_count(handle()); }

std::string Statement::column_name(int column) const {
  return sqlite3_column_name(handle(), column);
}

int Statement::column_type(int column) const { return sqlite3_column_type(handle(), column); }

std::int64_t Statement::column_int(int column) const {
  return sqlite3_column_int64(handle(), column);
}

double Statement::column_double(int column) const {
  return sqlite3_column_double(handle(), column);
}

std::string Statement::column_text(int column) const {
  const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(handle(), column));
  return text ? std::string(text, static_cast<std::size_t>(sqlite3_column_bytes(handle(), column)))
              : std::string();
}

Result<Transaction> Transaction::begin(sqlite3* db) {
  // The busy timeout makes SQLite wait for the write lock; some SQLITE_BUSY results skip it
  // (WAL recovery by another connection, a snapshot taken before another commit): retry those.
  constexpr int kRetries = 50;
  constexpr auto kHandlerWaited = std::chrono::milliseconds(200);
  for (int attempt = 0;; ++attempt) {
    const auto start = std::chrono::steady_clock::now();
    const int rc = sqlite3_exec(db, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr);
    if (rc == SQLITE_OK) return Transaction(db);
    const bool busy = (rc & 0xff) == SQLITE_BUSY || (rc & 0xff) == SQLITE_LOCKED;
    if (!busy) return sqlite_error(db, "cannot start a transaction");
    if (attempt == kRetries || std::chrono::steady_clock::now() - start > kHandlerWaited)
      return Error{fmt::format(
          "cannot start a transaction: {}: another process holds the database's write lock; "
          "wait for it to finish and run the command again (nothing was written)",
          sqlite3_errmsg(db))};
    std::this_thread::sleep_for(std::chrono::milliseconds(5 + 5 * (attempt % 8)));
  }
}

Transaction::~Transaction() {
  if (db_) sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
}

Status Transaction::commit() {
  if (sqlite3_exec(db_, "COMMIT", nullptr, nullptr, nullptr) != SQLITE_OK)
    return sqlite_error(db_, "cannot commit");
  db_ = nullptr;
  return Ok{};
}

}  // namespace fa4::store
