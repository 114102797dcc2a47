// Small RAII wrappers over the SQLite C API: a connection, a prepared statement and a
// transaction. Failures come back as fa4::Error values carrying sqlite3_errmsg.
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>

#include "core/error.hpp"

namespace fa4::store {

struct CloseDb {
  void operator()(sqlite3* db) const { sqlite3_close_v2(db); }
};
using Db = std::unique_ptr<sqlite3, CloseDb>;

// Opens `path` with sqlite3_open_v2 `flags`; extended result codes on; what the tool never needs
// off (fts3_tokenizer's pointers, extension loading, schema writes, ATTACH, side effects from the
// database's own schema: sqlite.cpp, harden).
Result<Db> open_db(const std::string& path, int flags);

// Runs one or more statements that return no rows.
Status exec(sqlite3* db, std::string_view sql);

// "<what>: <sqlite3_errmsg>".
Error sqlite_error(sqlite3* db, std::string_view what);

class Statement {
 public:
  static Result<Statement> prepare(sqlite3* db, std::string_view sql);

  // Binds are 1-based, like SQLite's. A failed bind is reported by the next step().
  Statement& bind(int index, std::int64_t value);
  Statement& bind(int index, double value);  // NaN is stored as NULL
  Statement& bind(int index, bool value);
  Statement& bind(int index, std::string_view text);
  Statement& bind_null(int index);
  // Empty text is stored as NULL.
  Statement& bind_or_null(int index, std::string_view text);

  // true: a row is ready to read; false: the statement is done.
  Result<bool> step();
  // Steps a statement that returns no rows to its end.
  Status run();
  // Makes the statement ready to run again; bindings are kept until rebound.
  void reset();

  int column_count() const;
  std::string column_name(int column) const;
  int column_type(int column) const;  // SQLITE_INTEGER, SQLITE_FLOAT, SQLITE_TEXT, ...
  std::int64_t column_int(int column) const;
  double column_double(int column) const;
  std::string column_text(int column) const;  // "" for NULL

  sqlite3_stmt* handle() const { return stmt_.get(); }

 private:
  struct Finalize {
    void operator()(sqlite3_stmt* stmt) const { sqlite3_finalize(stmt); }
  };
  Statement(sqlite3* db, sqlite3_stmt* stmt) : db_(db), stmt_(stmt) {}
  Statement& check_bind(int rc);

  sqlite3* db_;
  std::unique_ptr<sqlite3_stmt, Finalize> stmt_;
  int bind_rc_ = SQLITE_OK;
};

// BEGIN IMMEDIATE on construction (takes the write lock up front, so a busy database fails here
// rather than halfway); ROLLBACK on destruction unless commit() succeeded.
class Transaction {
 public:
  static Result<Transaction> begin(sqlite3* db);
  Transaction(Transaction&& other) noexcept : db_(std::exchange(other.db_, nullptr)) {}
  Transaction& operator=(Transaction&&) = delete;
  ~Transaction();
  Status commit();

 private:
  explicit Transaction(sqlite3* db) : db_(db) {}
  sqlite3* db_;
};

}  // namespace fa4::store
