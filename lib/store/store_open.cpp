// Store::open: decides whether a file is ours before writing a byte to it, then migrates it.
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>
#include <thread>
#include <vector>

#include "store/migrations.hpp"
#include "store/schema_objects.hpp"
#include "store/store.hpp"

namespace fa4::store {
namespace {

constexpr std::string_view kSqliteHeader{"SQLite format 3\0", 16};

// Writers' advice for a database on a read-only file system (a read-only mount).
Error read_only_mount(const std::string& path) {
  return Error{fmt::format(
      "results database {} is on a read-only file system: the commands that only read it (query, "
      "runs, report) work; to write, copy it to a writable folder and pass the copy with --db",
      path)};
}

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
  if (::access(folder.c_str(), W_OK) != 0 && errno == EROFS) return read_only_mount(path);
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

// Everything that can be known about the file before SQLite opens it. A reader needs only a
// readable SQLite file; a writer needs write access to it and its folder.
Status check_path(const std::string& path, bool create, bool read_only) {
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) {
    if (errno != ENOENT)
      return Error{fmt::format("cannot open results database {}: {}", path, std::strerror(errno))};
    if (!create || read_only) {
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
  if (read_only) return check_header(path);
  if (::access(path.c_str(), W_OK) != 0 && errno == EROFS) return read_only_mount(path);
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

// A damaged database: what is wrong and how to get the data back.
Error damaged(const std::string& path, const std::string& finding) {
  return Error{fmt::format(
      "results database {} is damaged ({}): recover what it holds into a new file with "
      "'sqlite3 {} .recover | sqlite3 recovered.db' and pass --db recovered.db, or pass --db with "
      "a new file to start afresh",
      path, finding, path)};
}

// A failure while reading or migrating: a busy or damaged database gets the message that says how
// to fix it.
Error open_failure(sqlite3* db, const std::string& path, const Error& error,
                   const OpenOptions& options) {
  const int code = sqlite3_errcode(db) & 0xff;  // the primary code of an extended one
  if (code == SQLITE_CORRUPT || code == SQLITE_NOTADB) return damaged(path, error.message);
  if (code == SQLITE_BUSY || code == SQLITE_LOCKED) {
    return Error{fmt::format(
        "results database {} is locked by another process (waited {} ms): wait for the other "
        "fa4-analyze or sqlite3 session to finish, or pass another --db",
        path, options.busy_timeout.count())};
  }
  return Error{fmt::format("cannot use results database {}: {}", path, error.message)};
}

// Whether `db`'s last failure was another connection's lock.
bool failed_busy(sqlite3* db) {
  const int code = sqlite3_errcode(db) & 0xff;
  return code == SQLITE_BUSY || code == SQLITE_LOCKED;
}

Result<std::int64_t> count_schema_objects(sqlite3* db) {
  auto count = Statement::prepare(db, "SELECT COUNT(*) FROM sqlite_master");
  if (!count) return count.error();
  if (auto row = count->step(); !row) return row.error();
  return count->column_int(0);
}

// Databases up to this size get PRAGMA integrity_check, which also compares each index with its
// table (a damaged index silently drops rows from queries); larger ones get quick_check, which
// skips that comparison and takes time linear in the size. On data/runs/*.db (0.1-0.5 MB) both
// take 1-11 ms; on a 135 MB database (590k predictions) quick_check takes 0.9-2.3 s and
// integrity_check 8.1 s (2 shared cores under load).
constexpr std::uintmax_t kFullCheckBytes = std::uintmax_t{16} << 20;

// Interrupts what `db` is running (sqlite3_interrupt) once `budget` has passed, and again each
// millisecond until it is stopped; the integrity check stops at the next page it visits. The
// watcher is running before the constructor returns, and SQLite forgets an interrupt that comes
// before a statement starts: together these cut short any check that outlasts its budget, however
// the system schedules the two threads.
class Watchdog {
 public:
  Watchdog(sqlite3* db, std::optional<std::chrono::milliseconds> budget) {
    if (!budget) return;
    const auto deadline = std::chrono::steady_clock::now() + *budget;
    std::unique_lock lock(mutex_);
    watcher_ = std::thread([this, db, deadline] {
      std::unique_lock watching(mutex_);
      watching_ = true;
      started_.notify_one();
      const auto stopped = [this] { return done_; };
      if (finished_.wait_until(watching, deadline, stopped)) return;
      fired_ = true;
      do sqlite3_interrupt(db);
      while (!finished_.wait_for(watching, std::chrono::milliseconds(1), stopped));
    });
    started_.wait(lock, [this] { return watching_; });
  }
  Watchdog(const Watchdog&) = delete;
  Watchdog& operator=(const Watchdog&) = delete;
  ~Watchdog() { stop(); }

  // Stops the watch; whether it fired.
  bool stop() {
    if (watcher_.joinable()) {
      {
        std::lock_guard lock(mutex_);
        done_ = true;
      }
      finished_.notify_one();
      watcher_.join();
    }
    return fired_;
  }

 private:
  std::mutex mutex_;
  std::condition_variable started_, finished_;
  bool watching_ = false, done_ = false, fired_ = false;
  std::thread watcher_;
};

// Whole (or cut short by `budget`), or the damage the check found (the first finding and how many
// there are), on one line.
Result<IntegrityCheck> integrity_of(sqlite3* db, const std::string& path,
                                    const OpenOptions& options,
                                    std::optional<std::chrono::milliseconds> budget) {
  std::error_code ec;
  const std::uintmax_t bytes = std::filesystem::file_size(path, ec);
  const bool full = ec || bytes <= kFullCheckBytes;
  const std::string pragma = full ? "integrity_check" : "quick_check";
  auto check = Statement::prepare(db, "PRAGMA " + pragma);
  if (!check) return open_failure(db, path, check.error(), options);
  std::vector<std::string> findings;
  Watchdog watchdog(db, budget);
  for (;;) {
    auto row = check->step();
    if (!row) {
      if (watchdog.stop() && (sqlite3_errcode(db) & 0xff) == SQLITE_INTERRUPT)
        return IntegrityCheck::cut_short;
      return open_failure(db, path, row.error(), options);
    }
    if (!*row) break;
    // A row may hold several findings, one a line, under a "*** in database main ***" line.
    std::istringstream lines(check->column_text(0));
    for (std::string line; std::getline(lines, line);)
      if (line != "ok" && line.rfind("***", 0) != 0) findings.push_back(line);
  }
  watchdog.stop();
  if (findings.empty()) return IntegrityCheck::whole;
  return damaged(path,
                 fmt::format("PRAGMA {} found {} problem{}, the first: {}", pragma, findings.size(),
                             findings.size() == 1 ? "" : "s", findings.front()));
}

// One read transaction for as long as it lives, so that what is read together (the schema
// objects and the schema version) comes from one state of a file another process may be migrating.
class ReadSnapshot {
 public:
  explicit ReadSnapshot(sqlite3* db) : db_(db) {
    began_ = sqlite3_exec(db_, "BEGIN", nullptr, nullptr, nullptr) == SQLITE_OK;
  }
  ReadSnapshot(const ReadSnapshot&) = delete;
  ReadSnapshot& operator=(const ReadSnapshot&) = delete;
  ~ReadSnapshot() {
    if (began_) sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
  }

 private:
  sqlite3* db_;
  bool began_ = false;
};

// Reads only: the number of schema objects and the schema version of a file that is ours, or why
// it is not (another program's database, a newer fa4-analyze's, or one whose schema holds
// objects fa4-analyze did not create: schema_objects.hpp).
struct SchemaState {
  std::int64_t objects = 0;
  int version = 0;
};
Result<SchemaState> read_schema_state(sqlite3* db, const std::string& path,
                                      const OpenOptions& options) {
  auto objects = count_schema_objects(db);
  if (!objects) return open_failure(db, path, objects.error(), options);
  auto version = read_schema_version(db);
  if (!version) return open_failure(db, path, version.error(), options);
  if (!*version && *objects > 0) {
    return Error{fmt::format(
        "{} is an SQLite database but not an fa4-analyze results database (it has tables and no "
        "schema_version table): pass another --db",
        path)};
  }
  const int from = version->value_or(0);
  if (from > latest_schema_version()) {
    return Error{fmt::format(
        "{} was written by a newer fa4-analyze (schema {} > {}): upgrade fa4-analyze or use "
        "another --db",
        path, from, latest_schema_version())};
  }
  if (from > 0) {
    auto found = read_schema_objects(db);
    if (!found) return open_failure(db, path, found.error(), options);
    const std::string_view nothing_done =
        options.read_only ? "nothing was read" : "nothing was written";
    if (auto ours = check_schema_objects(*found, path, from, nothing_done); !ours)
      return ours.error();
  }
  return SchemaState{*objects, from};
}

// read_schema_state in one snapshot; `busy`: whether a failure was another connection's lock
// (judged before the snapshot's end replaces the connection's error code).
Result<SchemaState> schema_state(sqlite3* db, const std::string& path, const OpenOptions& options,
                                 bool& busy) {
  ReadSnapshot snapshot(db);
  auto state = read_schema_state(db, path, options);
  if (!state) busy = failed_busy(db);
  return state;
}

// SQLite's URI for reading `path`: read-only, or immutable as well, for a folder where SQLite
// cannot create the -shm file of a WAL database (a read-only folder or mount, which no one can be
// writing to).
std::string reader_uri(const std::string& path, bool immutable) {
  std::string uri = "file:";
  for (const char c : std::filesystem::absolute(path).string()) {
    if (c == '?' || c == '#' || c == '%')
      uri += fmt::format("%{:02X}", static_cast<unsigned char>(c));
    else
      uri += c;
  }
  return uri + (immutable ? "?mode=ro&immutable=1" : "?mode=ro");
}

bool cannot_create_shm(sqlite3* db) {
  const int code = sqlite3_extended_errcode(db);
  return (code & 0xff) == SQLITE_CANTOPEN || code == SQLITE_READONLY_CANTINIT ||
         code == SQLITE_READONLY_DIRECTORY;
}

struct Reader {
  Db db;
  int version = 0;  // older than the latest: read through a migrated copy
};

// Opens an existing database for reading only: see OpenOptions::read_only. `busy`: whether a
// failure was another connection's lock.
Result<Reader> open_reader(const std::string& path, const OpenOptions& options, bool& busy) {
  if (auto usable = check_path(path, false, true); !usable) return usable.error();
  // A writable file is opened read-write, though nothing is written, so that SQLite removes its
  // -wal and -shm files on close; a read-only connection would leave them beside the file.
  const bool writable = static_cast<bool>(check_path(path, false, false));
  for (const bool immutable : {false, true}) {
    auto opened =
        writable ? open_db(path, SQLITE_OPEN_READWRITE)
                 : open_db(reader_uri(path, immutable), SQLITE_OPEN_READONLY | SQLITE_OPEN_URI);
    if (!opened) return opened.error();
    Db db = std::move(opened).value();
    sqlite3_busy_timeout(db.get(), static_cast<int>(options.busy_timeout.count()));
    if (!immutable && !count_schema_objects(db.get()) && cannot_create_shm(db.get())) continue;
    auto state = schema_state(db.get(), path, options, busy);
    if (!state) return state.error();
    return Reader{std::move(db), state->version};
  }
  return Error{fmt::format("cannot read results database {}", path)};  // not reached
}

// A database of an older schema as a reader sees it: copied into memory (SQLite's backup) and
// migrated there, so that reading never writes the file (a read-only mount, another user's file,
// a damaged database and a shipped reference run are read alike, and left byte for byte).
Result<Db> migrated_copy(sqlite3* source, const std::string& path, int from) {
  auto opened = open_db(":memory:", SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
  if (!opened) return opened.error();
  Db copy = std::move(opened).value();
  sqlite3_backup* backup = sqlite3_backup_init(copy.get(), "main", source, "main");
  if (backup == nullptr)
    return Error{
        fmt::format("cannot read results database {}: {}", path, sqlite3_errmsg(copy.get()))};
  const int stepped = sqlite3_backup_step(backup, -1);
  sqlite3_backup_finish(backup);
  if (stepped != SQLITE_DONE)
    return Error{fmt::format("cannot read results database {}: {}", path, sqlite3_errstr(stepped))};
  if (auto done = exec(copy.get(), "PRAGMA foreign_keys = ON"); !done) return done.error();
  for (int step = from + 1; step <= latest_schema_version(); ++step) {
    if (auto done = apply_migration(copy.get(), step); !done)
      return Error{fmt::format(
          "results database {} has schema {}, and reading it as schema {} failed: {}; copy it "
          "and open the copy with a writing command (predict, import) to upgrade it",
          path, from, latest_schema_version(), done.error().message)};
  }
  return copy;
}

}  // namespace

Result<IntegrityCheck> Store::check_integrity(
    std::optional<std::chrono::milliseconds> budget) const {
  return integrity_of(db_.get(), path_, {}, budget);
}

// One attempt of Store::open; `busy`: whether it failed on another connection's lock.
Result<Store> Store::open_once(const std::string& path, const OpenOptions& options, bool& busy) {
  const bool in_memory = path == ":memory:";
  if (options.read_only && !in_memory) {
    auto reader = open_reader(path, options, busy);
    if (!reader) return reader.error();
    if (reader->version == latest_schema_version()) return Store(path, std::move(reader->db));
    auto copy = migrated_copy(reader->db.get(), path, reader->version);
    if (!copy) return copy.error();
    return Store(path, std::move(copy).value());
  }
  if (!in_memory) {
    if (auto usable = check_path(path, options.create && !options.read_only, false); !usable)
      return usable.error();
  }
  const int create = (options.create && !options.read_only) || in_memory ? SQLITE_OPEN_CREATE : 0;
  auto opened = open_db(path, SQLITE_OPEN_READWRITE | create);
  if (!opened) return opened.error();
  Db db = std::move(opened).value();
  sqlite3_busy_timeout(db.get(), static_cast<int>(options.busy_timeout.count()));

  // Reads only, until the file is known to be ours and whole.
  auto state = schema_state(db.get(), path, options, busy);
  if (!state) return state.error();
  if (state->objects > 0) {
    if (auto whole = integrity_of(db.get(), path, options, std::nullopt); !whole) {
      busy = failed_busy(db.get());
      return whole.error();
    }
  }
  const int from = state->version;
  const int latest = latest_schema_version();

  // WAL lets readers (query, report) run beside a writer; NORMAL sync is safe with WAL.
  const std::string_view setup = in_memory ? "PRAGMA foreign_keys = ON"
                                           : "PRAGMA journal_mode = WAL; PRAGMA synchronous = "
                                             "NORMAL; PRAGMA foreign_keys = ON";
  if (auto done = exec(db.get(), setup); !done) {
    busy = failed_busy(db.get());
    return open_failure(db.get(), path, done.error(), options);
  }
  for (int step = from + 1; step <= latest; ++step) {
    if (auto done = apply_migration(db.get(), step); !done) {
      busy = failed_busy(db.get());
      return open_failure(db.get(), path, done.error(), options);
    }
  }
  return Store(path, std::move(db));
}

// SQLite waits out a lock for the busy timeout, but some SQLITE_BUSY results skip the wait (a
// connection that already reads and must write, WAL recovery or a journal-mode change by another
// connection: two processes opening a new database together meet them). Those attempts are made
// again, from a fresh connection, until the busy timeout has passed.
Result<Store> Store::open(const std::string& path, const OpenOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  for (int attempt = 0;; ++attempt) {
    bool busy = false;
    auto store = open_once(path, options, busy);
    if (store || !busy || std::chrono::steady_clock::now() - start >= options.busy_timeout)
      return store;
    std::this_thread::sleep_for(std::chrono::milliseconds(5 + 5 * (attempt % 8)));
  }
}

}  // namespace fa4::store
