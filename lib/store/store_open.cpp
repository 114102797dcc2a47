// Store::open: decides whether a file is ours before writing a byte to it, then migrates it.
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "store/migrations.hpp"
#include "store/store.hpp"

namespace fa4::store {
namespace {

constexpr std::string_view kSqliteHeader{"SQLite format 3\0", 16};

// The folder must take new files: SQLite keeps <db>-wal and <db>-shm beside the database.
Status check_folder(const std::string& path) {
  const std::filesystem::path parent = std::filesystem::path(path).parent_path();
  const std::string folder = parent.empty() ? std::string(".") : parent.string();
  struct stat info {};
  if (::stat(folder.c_str(), &info) != 0) {
    return Error{
        fmt::format("cannot create results database {}: folder {} does not exist; "
                    "create it or pass another --db",
                    path, folder)};
  }
  if (!S_ISDIR(info.st_mode))
    return Error{
        fmt::format("cannot create results database {}: {} is not a folder", path, folder)};
  if (::access(folder.c_str(), W_OK) != 0) {
    return Error{
        fmt::format("cannot write results database {}: folder {} is not writable "
                    "(SQLite keeps the -wal and -shm files beside the database); "
                    "pass another --db",
                    path, folder)};
  }
  return Ok{};
}

// An empty file is an empty SQLite database; anything else must start with SQLite's header.
Status check_header(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file) return Error{fmt::format("cannot read {}: {}", path, std::strerror(errno))};
  std::string header(kSqliteHeader.size(), '\0');
  file.read(header.data(), static_cast<std::streamsize>(header.size()));
  if (file.gcount() == 0 || header == kSqliteHeader) return Ok{};
  return Error{
      fmt::format("{} is not an SQLite database: pass the results database with --db "
                  "(or FA4_DB), or move {} away to start a new one",
                  path, path)};
}

// Everything that can be known about the file before SQLite opens it.
Status check_path(const std::string& path, bool create) {
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) {
    if (errno != ENOENT)
      return Error{fmt::format("cannot open results database {}: {}", path, std::strerror(errno))};
    if (!create) {
      return Error{fmt::format(
          "no results database at {}: run 'fa4-analyze predict' first or pass --db", path)};
    }
    return check_folder(path);
  }
  if (S_ISDIR(info.st_mode)) {
    return Error{
        fmt::format("{} is a folder, not a results database: pass a file path with --db", path)};
  }
  if (!S_ISREG(info.st_mode))
    return Error{fmt::format("{} is not a regular file: pass a results database with --db", path)};
  // Write bits are checked as well as access(): root may write anywhere, but a write-protected
  // file says "do not change me".
  if ((info.st_mode & 0222) == 0 || ::access(path.c_str(), W_OK) != 0) {
    return Error{fmt::format(
        "results database {} is read-only: make it writable (chmod u+w {}) or pass another --db",
        path, path)};
  }
  if (auto header = check_header(path); !header) return header;
  return check_folder(path);
}

// A failure while reading or migrating: a busy database gets the message that says how to fix it.
Error open_failure(sqlite3* db, const std::string& path, const Error& error,
                   const OpenOptions& options) {
  const int code = sqlite3_errcode(db);
  if (code == SQLITE_BUSY || code == SQLITE_LOCKED) {
    return Error{fmt::format(
        "results database {} is locked by another process (waited {} ms): wait for the other "
        "fa4-analyze or sqlite3 session to finish, or pass another --db",
        path, options.busy_timeout.count())};
  }
  return Error{fmt::format("cannot use results database {}: {}", path, error.message)};
}

Result<std::int64_t> count_schema_objects(sqlite3* db) {
  auto count = Statement::prepare(db, "SELECT COUNT(*) FROM sqlite_master");
  if (!count) return count.error();
  if (auto row = count->step(); !row) return row.error();
  return count->column_int(0);
}

}  // namespace

Result<Store> Store::open(const std::string& path, const OpenOptions& options) {
  const bool in_memory = path == ":memory:";
  if (!in_memory) {
    if (auto usable = check_path(path, options.create); !usable) return usable.error();
  }
  const int create = options.create || in_memory ? SQLITE_OPEN_CREATE : 0;
  auto opened = open_db(path, SQLITE_OPEN_READWRITE | create);
  if (!opened) return opened.error();
  Db db = std::move(opened).value();
  sqlite3_busy_timeout(db.get(), static_cast<int>(options.busy_timeout.count()));
  // The store never attaches other files, and query() must not create them.
  sqlite3_limit(db.get(), SQLITE_LIMIT_ATTACHED, 0);

  // Reads only, until the file is known to be ours.
  auto objects = count_schema_objects(db.get());
  if (!objects) return open_failure(db.get(), path, objects.error(), options);
  auto version = read_schema_version(db.get());
  if (!version) return open_failure(db.get(), path, version.error(), options);
  if (!*version && *objects > 0) {
    return Error{fmt::format(
        "{} is an SQLite database but not an fa4-analyze results database (it has tables and no "
        "schema_version table): pass another --db",
        path)};
  }
  const int from = version->value_or(0);
  const int latest = latest_schema_version();
  if (from > latest) {
    return Error{fmt::format(
        "{} was written by a newer fa4-analyze (schema {} > {}): upgrade fa4-analyze or use "
        "another --db",
        path, from, latest)};
  }

  // WAL lets readers (query, report) run beside a writer; NORMAL sync is safe with WAL.
  const std::string_view setup = in_memory ? "PRAGMA foreign_keys = ON"
                                           : "PRAGMA journal_mode = WAL; PRAGMA synchronous = "
                                             "NORMAL; PRAGMA foreign_keys = ON";
  if (auto done = exec(db.get(), setup); !done)
    return open_failure(db.get(), path, done.error(), options);
  for (int step = from + 1; step <= latest; ++step) {
    if (auto done = apply_migration(db.get(), step); !done)
      return open_failure(db.get(), path, done.error(), options);
  }
  return Store(path, std::move(db));
}

}  // namespace fa4::store
