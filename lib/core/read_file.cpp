#include "core/read_file.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

#include "core/printable.hpp"

namespace fa4 {
namespace {

constexpr std::size_t kChunkBytes = 1 << 16;

// An open file descriptor, closed when it goes.
class Descriptor {
 public:
  explicit Descriptor(int fd) : fd_(fd) {}
  Descriptor(Descriptor&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  Descriptor(const Descriptor&) = delete;
  Descriptor& operator=(const Descriptor&) = delete;
  ~Descriptor() {
    if (fd_ >= 0) ::close(fd_);
  }
  int get() const { return fd_; }

 private:
  int fd_;
};

std::string byte_count(std::uintmax_t bytes) {
  constexpr double kMiB = 1024.0 * 1024.0;
  if (bytes < (1u << 20)) return fmt::format("{} bytes", bytes);
  return fmt::format("{:.0f} MiB", double(bytes) / kMiB);
}

// "cannot read FILE: PROBLEM; FIX", the file's name with any control character escaped.
Error cannot_read(const std::filesystem::path& file, std::string_view problem,
                  std::string_view fix) {
  return Error{fmt::format("cannot read {}: {}; {}", printable(file.string()), problem, fix)};
}

Error open_failure(const std::filesystem::path& file, const InputFileKind& kind, int error) {
  const std::string name = printable(file.string());
  switch (error) {
    case ENOENT:
    case ENOTDIR:
      return cannot_read(file, "no such file", fmt::format("check the path ({})", kind.examples));
    case EACCES:
    case EPERM:
      return cannot_read(file, "permission denied",
                         fmt::format("check its permissions (ls -l {}; chmod u+r {} lets you "
                                     "read it)",
                                     name, name));
    case ELOOP:
      return cannot_read(file, "a loop of symbolic links",
                         "fix the link or remove it (ls -l shows where each link points)");
    default:
      return cannot_read(file, std::strerror(error),
                         fmt::format("give a readable {} ({})", kind.name, kind.examples));
  }
}

std::string_view what_it_is(mode_t mode) {
  if (S_ISFIFO(mode)) return "a named pipe (FIFO)";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

Error too_large(const std::filesystem::path& file, const InputFileKind& kind,
                std::string_view size) {
  return cannot_read(
      file,
      fmt::format("{}, more than a {} may hold ({})", size, kind.name, byte_count(kind.max_bytes)),
      "split it into smaller files");
}

// Opens without blocking (a FIFO's open waits for a writer otherwise) and checks what it opened.
Result<Descriptor> open_regular(const std::filesystem::path& file, const InputFileKind& kind) {
  Descriptor fd(::open(file.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY));
  if (fd.get() < 0) return open_failure(file, kind, errno);
  struct stat info {};
  if (::fstat(fd.get(), &info) != 0) return open_failure(file, kind, errno);
  if (S_ISDIR(info.st_mode))
    return Error{fmt::format("{}: is a folder, not a {}; give a file ({})",
                             printable(file.string()), kind.name, kind.examples)};
  if (!S_ISREG(info.st_mode))
    return cannot_read(file, fmt::format("{}, not a regular file", what_it_is(info.st_mode)),
                       fmt::format("give a {} ({})", kind.name, kind.examples));
  if (std::uintmax_t(info.st_size) > kind.max_bytes)
    return too_large(file, kind, byte_count(std::uintmax_t(info.st_size)));
  return fd;
}

}  // namespace

Status check_regular_file(const std::filesystem::path& file, const InputFileKind& kind) {
  auto fd = open_regular(file, kind);
  if (!fd) return fd.error();
  return Ok{};
}

Result<std::string> read_regular_file(const std::filesystem::path& file,
                                      const InputFileKind& kind) {
  auto fd = open_regular(file, kind);
  if (!fd) return fd.error();
  std::string text;
  char chunk[kChunkBytes];
  for (;;) {
    const ssize_t got = ::read(fd->get(), chunk, sizeof chunk);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) return open_failure(file, kind, errno);
    if (got == 0) return text;
    text.append(chunk, std::size_t(got));
    // The file grew after it was measured: stop at the bound all the same.
    if (text.size() > kind.max_bytes) return too_large(file, kind, "still growing past the bound");
  }
}

}  // namespace fa4
