#include "core/atomic_file.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>

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

// Writes the temporary file and renames it over `target`; returns 0 or the errno that stopped it,
// with the temporary file removed.
int replace(const fs::path& target, std::string_view content) {
  const fs::path temporary = temporary_beside(target);
  const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
  if (fd < 0) return errno;
  int error = 0;
  struct stat old {};
  if (::stat(target.c_str(), &old) == 0 && ::fchmod(fd, old.st_mode & 07777) != 0) error = errno;
  if (error == 0) error = write_all(fd, content);
  if (error == 0 && ::fsync(fd) != 0) error = errno;
  if (::close(fd) != 0 && error == 0) error = errno;
  if (error == 0 && ::rename(temporary.c_str(), target.c_str()) != 0) error = errno;
  if (error != 0) ::unlink(temporary.c_str());
  return error;
}

}  // namespace

Result<WriteOutcome> write_file_atomically(const fs::path& path, std::string_view content,
                                           const AtomicWriteOptions& options) {
  // A missing file is no error here (these probes set `ignored` for it).
  std::error_code ignored, ec;
  // Replace what a symbolic link points to, not the link.
  const bool link = fs::symlink_status(path, ignored).type() == fs::file_type::symlink;
  const fs::path target = link ? fs::weakly_canonical(path, ec) : path;
  if (ec) return Error{fmt::format("cannot write {}: {}", path.string(), ec.message())};
  const fs::path folder = target.has_parent_path() ? target.parent_path() : fs::path(".");
  if (fs::status(target, ignored).type() == fs::file_type::directory)
    return Error{fmt::format("cannot write {}: it is a folder; name a file", path.string())};
  if (options.create_folders && target.has_parent_path()) {
    fs::create_directories(folder, ec);
    if (ec)
      return Error{fmt::format("cannot create the folder {}: {}", folder.string(),
                               cause_of(ec.value(), folder.parent_path()))};
  }
  if (options.skip_if_unchanged && holds_exactly(target, content)) return WriteOutcome::unchanged;
  if (const int error = replace(target, content); error != 0) return failure(path, folder, error);
  if (const int error = sync_folder(folder); error != 0) return failure(path, folder, error);
  return WriteOutcome::written;
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
