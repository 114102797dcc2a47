// Shared by the store tests: a scratch folder, file bytes, raw SQLite access and a prediction
// with a distinct value in every field.
#pragma once

#include <filesystem>
#include <string>

#include "model/model.hpp"
#include "store/sqlite.hpp"
#include "store/store.hpp"

namespace fa4::store::testing {

// A fresh folder under the system temp folder, removed with everything in it.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  std::string file(const std::string& name) const { return (path_ / name).string(); }

 private:
  std::filesystem::path path_;
};

std::string read_bytes(const std::string& path);
void write_bytes(const std::string& path, const std::string& bytes);

// A plain SQLite connection (no store) for setting up and inspecting files; throws on failure.
Db raw_open(const std::string& path);
void raw_exec(sqlite3* db, const std::string& sql);
// raw_open on a new file with the migrations up to `version` applied: an older database.
Db raw_open_at_version(const std::string& path, int version);

// A new in-memory store; throws on failure.
Store memory_store();

// The first cell of `sql`'s first row (a failed query fails the test), and that cell as an integer.
Value first_cell(const Store& store, const std::string& sql);
std::int64_t first_integer(const Store& store, const std::string& sql);

// A run of `kind` at `revision`, from host "test", other fields empty.
RunInfo run_info(RunKind kind, std::string revision);

// Every field set, each numeric field to a different value.
model::Prediction sample_prediction();

}  // namespace fa4::store::testing
