#include "core/atomic_file.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <optional>

namespace fa4 {
namespace {

namespace fs = std::filesystem;

// What an errno means for the person who asked for the file, with what to do about it.
std::string cause_of(int error, const fs::path& folder) {
  switch (error) {
    case ENOSPC:
      return "disk full (no space left on the device); free some space and run it again, or "
             "write elsewhere";
    case EDQUOT:
      return "disk quota exceeded; free some space and run it again, or write elsewhere";
    case EACCES:
    case EPERM:
      return fmt::format(
          "permission denied: the file is replaced through a new file in {}, so that folder "
          "must be writable; fix its permissions or write elsewhere",
          folder.string());
    case EROFS:
      return "read-only file system; write elsewhere";
    case ENOENT:
      return fmt::format("the folder {} does not exist; create it or write elsewhere",
                         folder.string());
    default:
      return std::strerror(error);
  }
}

Error failure(const fs::path& path, const fs::path& folder, int error) {
  return Error{fmt::format("cannot write {}: {}", path.string(), cause_of(error, folder))};
}

bool holds_exactly(const fs::path& path, std::string_view content) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  const std::string old{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  return !in.bad() && old == content;
}

// A name for the temporary file beside `path`, unique within this process and across processes.
fs::path temporary_beside(const fs::path& path) {
  static std::atomic<unsigned> counter{0};
  return path.parent_path() /
         fmt::format(".{}.tmp-{}-{}", path.filename().string(), ::getpid(), counter.fetch_add(1));
}

// The process id in a temporary name of `path`'s (".NAME.tmp-PID-N"), or 0 when `name` is not one.
pid_t temporary_owner(const fs::path& path, std::string_view name) {
  const std::string prefix = fmt::format(".{}.tmp-", path.filename().string());
  if (!name.starts_with(prefix)) return 0;
  name.remove_prefix(prefix.size());
  pid_t pid = 0;
  const auto [end, error] = std::from_chars(name.data(), name.data() + name.size(), pid);
  if (error != std::errc() || pid <= 0 || end == name.data() + name.size() || *end != '-') return 0;
  unsigned counter = 0;
  const char* last = name.data() + name.size();
  const auto [counter_end, counter_error] = std::from_chars(end + 1, last, counter);
  return counter_error == std::errc() && counter_end == last && end + 1 != last ? pid : 0;
}

// Removes the temporary files beside `path` that a process killed mid-write left behind (their
// process is gone). A live process's, this one's included, are left alone: it may be writing.
void remove_stale_temporaries(const fs::path& path) {
  const fs::path folder = path.has_parent_path() ? path.parent_path() : fs::path(".");
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(folder, ec)) {
    const pid_t owner = temporary_owner(path, entry.path().filename().string());
    if (owner == 0 || owner == ::getpid()) continue;
    if (::kill(owner, 0) != 0 && errno == ESRCH) fs::remove(entry.path(), ec);
  }
}

// Returns 0 or the errno of the write that failed.
int write_all(int fd, std::string_view content) {
  while (!content.empty()) {
    const ssize_t n = ::write(fd, content.data(), content.size());
    if (n < 0 && errno != EINTR) return errno;
    if (n > 0) content.remove_prefix(static_cast<std::size_t>(n));
  }
  return 0;
}

// Flushes the folder so that the rename is on disk. File systems that cannot flush a folder say
// EINVAL; their renames are as durable as they get.
int sync_folder(const fs::path& folder) {
  const int fd = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return errno;
  const int result = ::fsync(fd) == 0 || errno == EINVAL ? 0 : errno;
  ::close(fd);
  return result;
}

// Compares a text arriving in pieces with a file's, as the pieces come.
class SameText {
 public:
  explicit SameText(const fs::path& path) : old_(path, std::ios::binary), same_(bool(old_)) {}
  void compare(std::string_view piece) {
    if (!same_) return;
    old_piece_.resize(piece.size());
    same_ = old_.read(old_piece_.data(), std::streamsize(piece.size())) && old_piece_ == piece;
  }
  // Whether the whole file was the whole text.
  bool whole() { return same_ && old_.peek() == std::ifstream::traits_type::eof(); }

 private:
  std::ifstream old_;
  std::string old_piece_;
  bool same_;
};

// What replace() did.
struct Replaced {
  int error = 0;                      // the errno that stopped it
  std::optional<Error> not_produced;  // the producer's own error
  bool unchanged = false;             // the target already held the text
};

// Pieces are written to the temporary file in blocks of this size.
constexpr std::size_t kBlockBytes = std::size_t{1} << 20;

// Writes what `produce` hands over to a temporary file and renames it over `target`; with
// `skip_if_unchanged`, a target that already holds the text is left alone. The temporary file is
// removed unless it was renamed.
Replaced replace(const fs::path& target, const TextProducer& produce, bool skip_if_unchanged) {
  const fs::path temporary = temporary_beside(target);
  const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
  Replaced result;
  if (fd < 0) {
    result.error = errno;
    return result;
  }
  // The old file's permissions (never a link's, nor what it points to).
  struct stat old {};
  if (::lstat(target.c_str(), &old) == 0 && S_ISREG(old.st_mode) &&
      ::fchmod(fd, old.st_mode & 07777) != 0)
    result.error = errno;
  std::optional<SameText> same;
  if (skip_if_unchanged) same.emplace(target);
  std::string block;
  const auto write = [&](std::string_view piece) {
    if (same) same->compare(piece);
    if (result.error != 0) return;
    block.append(piece);
    if (block.size() < kBlockBytes) return;
    result.error = write_all(fd, block);
    block.clear();
  };
  if (result.error == 0)
    if (Status produced = produce(write); !produced) result.not_produced = produced.error();
  if (result.error == 0) result.error = write_all(fd, block);
  result.unchanged = same && same->whole();
  const bool keep = result.error == 0 && !result.not_produced && !result.unchanged;
  if (keep && ::fsync(fd) != 0) result.error = errno;
  if (::close(fd) != 0 && keep && result.error == 0) result.error = errno;
  if (keep && result.error == 0 && ::rename(temporary.c_str(), target.c_str()) != 0)
    result.error = errno;
  if (!keep || result.error != 0) ::unlink(temporary.c_str());
  return result;
}

// Checks that `path` may be replaced and creates its folder when asked; or says why not.
Status prepare(const fs::path& path, const AtomicWriteOptions& options) {
  if (Status replaceable = check_replaceable(path); !replaceable) return replaceable;
  const fs::path folder = path.parent_path();
  if (options.create_folders && !folder.empty()) {
    std::error_code ec;
    fs::create_directories(folder, ec);
    if (ec)
      return Error{fmt::format("cannot create the folder {}: {}", folder.string(),
                               cause_of(ec.value(), folder.parent_path()))};
  }
  remove_stale_temporaries(path);
  return Ok{};
}

// Writes `path` (checked by prepare) and flushes its folder.
Result<WriteOutcome> write_prepared(const fs::path& path, const TextProducer& produce,
                                    bool skip_if_unchanged) {
  const fs::path folder = path.has_parent_path() ? path.parent_path() : fs::path(".");
  const Replaced replaced = replace(path, produce, skip_if_unchanged);
  if (replaced.not_produced)
    return Error{fmt::format("cannot write {}: {}", path.string(), replaced.not_produced->message)};
  if (replaced.error != 0) return failure(path, folder, replaced.error);
  if (replaced.unchanged) return WriteOutcome::unchanged;
  if (const int error = sync_folder(folder); error != 0) return failure(path, folder, error);
  return WriteOutcome::written;
}

}  // namespace

Status check_replaceable(const fs::path& path) {
  std::error_code ec;  // a missing file is no error here
  const fs::file_status status = fs::symlink_status(path, ec);
  if (status.type() == fs::file_type::symlink)
    return Error{fmt::format(
        "cannot write {}: it is a symbolic link (to {}); fa4-analyze replaces only files, never "
        "what a link points to: remove the link, or name the file it points to",
        path.string(), fs::read_symlink(path, ec).string())};
  if (status.type() == fs::file_type::directory)
    return Error{fmt::format("cannot write {}: it is a folder; name a file", path.string())};
  return Ok{};
}

Result<WriteOutcome> write_file_in_pieces(const fs::path& path, const TextProducer& produce,
                                          const AtomicWriteOptions& options) {
  if (Status prepared = prepare(path, options); !prepared) return prepared.error();
  return write_prepared(path, produce, options.skip_if_unchanged);
}

Result<WriteOutcome> write_file_atomically(const fs::path& path, std::string_view content,
                                           const AtomicWriteOptions& options) {
  if (Status prepared = prepare(path, options); !prepared) return prepared.error();
  // Compared before writing: an unchanged file costs no write.
  if (options.skip_if_unchanged && holds_exactly(path, content)) return WriteOutcome::unchanged;
  const auto whole = [content](const std::function<void(std::string_view)>& write) {
    write(content);
    return Status{Ok{}};
  };
  return write_prepared(path, whole, false);
}

Result<WriteOutcome> write_output(const std::string& target, std::string_view content,
                                  const AtomicWriteOptions& options) {
  if (target != kStandardOutput) return write_file_atomically(target, content, options);
  if (std::fwrite(content.data(), 1, content.size(), stdout) != content.size() ||
      std::fflush(stdout) != 0)
    return Error{fmt::format("cannot write to standard output: {}", cause_of(errno, "."))};
  return WriteOutcome::written;
}

}  // namespace fa4
