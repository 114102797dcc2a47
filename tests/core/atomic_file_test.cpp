// Atomic file writes: the new text arrives whole or the old file stays whole. The failures are
// real: a full disk is a 64 KiB tmpfs, a read-only file system is a read-only remount of it (both
// in a private mount namespace of a child process), and a permission error is a folder the child
// cannot write after dropping root. Where the machine allows none of these, the test says skipped.
#include "core/atomic_file.hpp"

#include <gtest/gtest.h>
#include <sched.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <functional>
#include <iterator>
#include <vector>

namespace fa4 {
namespace {

namespace fs = std::filesystem;

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void put_file(const fs::path& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

// Files in `dir` other than the ones named: the temporary files a write left behind.
std::vector<std::string> strays(const fs::path& dir, const std::vector<std::string>& expected) {
  std::vector<std::string> found;
  for (const auto& entry : fs::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (std::find(expected.begin(), expected.end(), name) == expected.end()) found.push_back(name);
  }
  return found;
}

// What a child process reported: `skipped` when it could not set up the failure it needed.
struct ChildReport {
  bool skipped = false;
  std::string text;  // the skip reason, or the failed check ("" when every check passed)
};

// Runs `body` in a forked child (so that namespaces and a dropped root end with it). `setup`
// prepares the child; a non-empty answer means it cannot and is the reason to skip. `body`
// returns "" when its checks pass, or what failed.
ChildReport in_child(const std::function<std::string()>& setup,
                     const std::function<std::string()>& body) {
  int pipe_fds[2];
  if (::pipe(pipe_fds) != 0) return {true, "no pipe"};
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::close(pipe_fds[0]);
    std::string reason = setup();
    const bool skipped = !reason.empty();
    const std::string text = (skipped ? "S" : "R") + (skipped ? reason : body());
    if (::write(pipe_fds[1], text.data(), text.size()) < 0) ::_exit(3);
    ::_exit(0);
  }
  ::close(pipe_fds[1]);
  std::string text;
  char buffer[512];
  for (ssize_t n; (n = ::read(pipe_fds[0], buffer, sizeof buffer)) > 0;) text.append(buffer, n);
  ::close(pipe_fds[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  if (text.empty()) return {false, "the child process ended without a report"};
  return {text[0] == 'S', text.substr(1)};
}

// In the child: a private mount namespace with a tmpfs of `size` at `dir`.
std::string mount_small_tmpfs(const fs::path& dir, const char* size) {
  if (::unshare(CLONE_NEWNS) != 0) return "cannot make a mount namespace (unshare CLONE_NEWNS)";
  if (::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0)
    return "cannot make the mounts private";
  const std::string options = std::string("size=") + size;
  if (::mount("tmpfs", dir.c_str(), "tmpfs", 0, options.c_str()) != 0)
    return "cannot mount a tmpfs (needs CAP_SYS_ADMIN)";
  return "";
}

// What a failed write must leave: the error mentions `words`, the old file is whole, no stray.
std::string check_failure(const Result<WriteOutcome>& written, const std::string& words,
                          const fs::path& file, const std::string& old_text) {
  if (written) return "the write succeeded";
  const std::string& message = written.error().message;
  if (message.find(words) == std::string::npos) return "message lacks '" + words + "': " + message;
  if (message.find(file.string()) == std::string::npos) return "message lacks the file: " + message;
  if (read_file(file) != old_text) return "the old file changed";
  if (const auto left = strays(file.parent_path(), {file.filename().string()}); !left.empty())
    return "left behind " + left.front();
  return "";
}

class AtomicFile : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("fa4-atomic-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override {
    std::error_code ec;
    fs::permissions(dir_, fs::perms::owner_all, ec);
    fs::remove_all(dir_, ec);
  }
  fs::path dir_;
};

TEST_F(AtomicFile, CreatesTheFileAndLeavesNothingElse) {
  const auto written = write_file_atomically(dir_ / "r.md", "hello\n");
  ASSERT_TRUE(written) << written.error().message;
  EXPECT_EQ(*written, WriteOutcome::written);
  EXPECT_EQ(read_file(dir_ / "r.md"), "hello\n");
  EXPECT_TRUE(strays(dir_, {"r.md"}).empty());
}

TEST_F(AtomicFile, ReplacesTheFileAndKeepsItsPermissions) {
  put_file(dir_ / "r.md", std::string(100000, 'o'));
  fs::permissions(dir_ / "r.md",
                  fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);
  ASSERT_TRUE(write_file_atomically(dir_ / "r.md", "new"));
  EXPECT_EQ(read_file(dir_ / "r.md"), "new");
  EXPECT_EQ(fs::status(dir_ / "r.md").permissions(),
            fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);
  EXPECT_TRUE(strays(dir_, {"r.md"}).empty());
}

TEST_F(AtomicFile, AnUnchangedFileIsNotRewrittenWhenAsked) {
  put_file(dir_ / "r.md", "same");
  const auto old_time = fs::file_time_type::clock::now() - std::chrono::hours(24);
  fs::last_write_time(dir_ / "r.md", old_time);
  const auto kept = write_file_atomically(dir_ / "r.md", "same", {.skip_if_unchanged = true});
  ASSERT_TRUE(kept);
  EXPECT_EQ(*kept, WriteOutcome::unchanged);
  EXPECT_EQ(fs::last_write_time(dir_ / "r.md"), old_time);

  const auto changed = write_file_atomically(dir_ / "r.md", "other", {.skip_if_unchanged = true});
  ASSERT_TRUE(changed);
  EXPECT_EQ(*changed, WriteOutcome::written);
  EXPECT_EQ(read_file(dir_ / "r.md"), "other");
  // Without the option the same text is written again.
  fs::last_write_time(dir_ / "r.md", old_time);
  ASSERT_TRUE(write_file_atomically(dir_ / "r.md", "other"));
  EXPECT_NE(fs::last_write_time(dir_ / "r.md"), old_time);
}

// A writer killed between creating its temporary file and renaming it: a child process creates
// ".r.md.tmp-PID-0" as write_file_atomically names it, then is SIGKILLed and reaped.
TEST_F(AtomicFile, TheNextWriteRemovesTheTemporaryOfAKilledWriter) {
  const pid_t child = ::fork();
  if (child == 0) {
    put_file(dir_ / (".r.md.tmp-" + std::to_string(::getpid()) + "-0"), "half a rep");
    ::raise(SIGKILL);
  }
  ASSERT_GT(child, 0);
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
  const std::string dead = ".r.md.tmp-" + std::to_string(child) + "-0";
  ASSERT_TRUE(fs::exists(dir_ / dead));
  // Kept: a live process's temporary (it may be writing), another file's, and names that only
  // look alike.
  const std::vector<std::string> kept = {".r.md.tmp-" + std::to_string(::getppid()) + "-3",
                                         ".r.md.tmp-" + std::to_string(::getpid()) + "-9",
                                         ".other.md.tmp-" + std::to_string(child) + "-0",
                                         ".r.md.tmp-" + std::to_string(child) + "-x",
                                         ".r.md.tmp-notes"};
  for (const auto& name : kept) put_file(dir_ / name, "x");

  ASSERT_TRUE(write_file_atomically(dir_ / "r.md", "whole"));
  EXPECT_EQ(read_file(dir_ / "r.md"), "whole");
  EXPECT_FALSE(fs::exists(dir_ / dead));
  std::vector<std::string> expected = kept;
  expected.push_back("r.md");
  EXPECT_TRUE(strays(dir_, expected).empty());
  for (const auto& name : kept) EXPECT_TRUE(fs::exists(dir_ / name)) << name;
}

// A text too large to hold arrives in pieces: they are written in order, compared with the old
// file when asked, and a producer that fails leaves the old file whole.
TEST_F(AtomicFile, PiecesAreWrittenInOrderAndAFailedProducerKeepsTheOldFile) {
  const auto lines = [](int n, std::string last) {
    return [n, last](const std::function<void(std::string_view)>& write) {
      for (int i = 0; i < n; ++i) write(std::to_string(i) + "\n");
      write(last);
      return Status{Ok{}};
    };
  };
  ASSERT_TRUE(write_file_in_pieces(dir_ / "r.csv", lines(200000, "end")));
  const std::string whole = read_file(dir_ / "r.csv");
  EXPECT_EQ(whole.substr(0, 8), "0\n1\n2\n3\n");
  EXPECT_EQ(whole.substr(whole.size() - 11), "\n199999\nend");

  const auto old_time = fs::file_time_type::clock::now() - std::chrono::hours(24);
  fs::last_write_time(dir_ / "r.csv", old_time);
  const auto same =
      write_file_in_pieces(dir_ / "r.csv", lines(200000, "end"), {.skip_if_unchanged = true});
  ASSERT_TRUE(same);
  EXPECT_EQ(*same, WriteOutcome::unchanged);
  EXPECT_EQ(fs::last_write_time(dir_ / "r.csv"), old_time);
  // Longer by one piece, or differing only at the end: written.
  for (const std::string last : {"end\n", "enD"}) {
    const auto other =
        write_file_in_pieces(dir_ / "r.csv", lines(200000, last), {.skip_if_unchanged = true});
    ASSERT_TRUE(other);
    EXPECT_EQ(*other, WriteOutcome::written) << last;
  }

  const auto failed = write_file_in_pieces(dir_ / "r.csv", [](const auto& write) {
    write("half");
    return Status{Error{"the database went away"}};
  });
  ASSERT_FALSE(failed);
  EXPECT_EQ(failed.error().message,
            "cannot write " + (dir_ / "r.csv").string() + ": the database went away");
  EXPECT_EQ(read_file(dir_ / "r.csv").substr(whole.size() - 3), "enD");
  EXPECT_TRUE(strays(dir_, {"r.csv"}).empty());
}

TEST_F(AtomicFile, ASymbolicLinkIsRefusedAndWhatItPointsToKept) {
  fs::create_directories(dir_ / "real");
  put_file(dir_ / "real/r.md", "old");
  fs::create_symlink("real/r.md", dir_ / "link.md");
  const auto refused = write_file_atomically(dir_ / "link.md", "new");
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().message.find("it is a symbolic link (to real/r.md)"),
            std::string::npos)
      << refused.error().message;
  EXPECT_TRUE(fs::is_symlink(dir_ / "link.md"));
  EXPECT_EQ(read_file(dir_ / "real/r.md"), "old");
}

TEST_F(AtomicFile, MissingFoldersAreAnErrorOrCreatedWhenAsked) {
  const auto refused = write_file_atomically(dir_ / "a/b/r.md", "x");
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().message.find("does not exist"), std::string::npos)
      << refused.error().message;
  ASSERT_TRUE(write_file_atomically(dir_ / "a/b/r.md", "x", {.create_folders = true}));
  EXPECT_EQ(read_file(dir_ / "a/b/r.md"), "x");
}

TEST_F(AtomicFile, AFolderIsNotAFile) {
  fs::create_directories(dir_ / "out");
  const auto refused = write_file_atomically(dir_ / "out", "x");
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().message.find("it is a folder"), std::string::npos)
      << refused.error().message;
}

TEST_F(AtomicFile, DashIsStandardOutputForWriteOutput) {
  const fs::path previous = fs::current_path();
  fs::current_path(dir_);
  ::testing::internal::CaptureStdout();
  const auto written = write_output("-", "to the terminal\n");
  const std::string printed = ::testing::internal::GetCapturedStdout();
  fs::current_path(previous);
  ASSERT_TRUE(written) << written.error().message;
  EXPECT_EQ(printed, "to the terminal\n");
  EXPECT_FALSE(fs::exists(dir_ / "-"));
}

TEST_F(AtomicFile, AFullDiskSaysSoAndKeepsTheOldFileWhole) {
  const fs::path file = dir_ / "r.md";
  const std::string old_text(40 * 1024, 'o');
  const ChildReport report =
      in_child([&] { return mount_small_tmpfs(dir_, "64k"); },
               [&] {
                 put_file(file, old_text);
                 const auto written = write_file_atomically(file, std::string(48 * 1024, 'n'));
                 return check_failure(written, "disk full", file, old_text);
               });
  if (report.skipped) GTEST_SKIP() << report.text;
  EXPECT_EQ(report.text, "");
}

TEST_F(AtomicFile, AReadOnlyFileSystemSaysSoAndKeepsTheOldFile) {
  const fs::path file = dir_ / "r.md";
  const ChildReport report = in_child(
      [&] {
        const std::string reason = mount_small_tmpfs(dir_, "1m");
        if (!reason.empty()) return reason;
        put_file(file, "old");
        if (::mount(nullptr, dir_.c_str(), nullptr, MS_REMOUNT | MS_RDONLY, nullptr) != 0)
          return std::string("cannot remount the tmpfs read-only");
        return std::string();
      },
      [&] {
        return check_failure(write_file_atomically(file, "new"), "read-only file system", file,
                             "old");
      });
  if (report.skipped) GTEST_SKIP() << report.text;
  EXPECT_EQ(report.text, "");
}

TEST_F(AtomicFile, AFolderWithoutWritePermissionSaysSoAndKeepsTheOldFile) {
  const fs::path file = dir_ / "r.md";
  put_file(file, "old");
  fs::permissions(dir_, fs::perms::owner_read | fs::perms::owner_exec | fs::perms::group_read |
                            fs::perms::group_exec | fs::perms::others_read |
                            fs::perms::others_exec);
  fs::permissions(file, fs::perms::all);  // the file itself is writable: only the folder is not
  const ChildReport report = in_child(
      [] {
        // Permission bits bind only a user without root's override: become nobody.
        if (::geteuid() == 0 && (::setgid(65534) != 0 || ::setuid(65534) != 0))
          return std::string("cannot drop root to test permissions");
        return std::string();
      },
      [&] {
        return check_failure(write_file_atomically(file, "new"), "permission denied", file, "old");
      });
  if (report.skipped) GTEST_SKIP() << report.text;
  EXPECT_EQ(report.text, "");
}

}  // namespace
}  // namespace fa4
