// Runs the real fa4-analyze executable (FA4_CLI) in a fresh temporary folder per test and captures
// its exit code, stdout and stderr. Shared by the black-box CLI tests.
#pragma once

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace fa4::testing {

// The exit status a run_script script gives for "this machine cannot set that up" (the test then
// says skipped).
inline constexpr int kCannotSetUp = 77;

struct Outcome {
  int code = -1;
  std::string out, err;
};

inline std::string slurp(const std::filesystem::path& file) {
  std::ifstream in(file);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

class CliTest : public ::testing::Test {
 protected:
  // The refusal every bad input gets: status 1 and one "error: ..." line that holds `text`, never
  // an internal error.
  static void expect_refusal(const Outcome& r, const std::string& text) {
    EXPECT_EQ(r.code, 1) << r.out << r.err;
    EXPECT_EQ(r.err.rfind("error: ", 0), 0u) << r.err;
    EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << "one line: " << r.err;
    EXPECT_NE(r.err.find(text), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find("internal"), std::string::npos) << r.err;
  }

  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("fa4-cli-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->test_suite_name() + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  // Runs `fa4-analyze ARGS` in the test's folder with FA4_DB unset.
  Outcome run(const std::string& args) {
    const auto out = dir_ / "stdout", err = dir_ / "stderr";
    const std::string command = std::string("cd '") + dir_.string() + "' && FA4_DB= '" FA4_CLI "' " +
                                args + " >'" + out.string() + "' 2>'" + err.string() + "'";
    const int status = std::system(command.c_str());
    return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, slurp(out), slurp(err)};
  }

  // Copies a real run's database, kept byte for byte as a test fixture in tests/data/runs (the
  // reference records of data/runs were curated from them), into the test's folder as `name`.
  void copy_shipped_db(const std::string& shipped, const std::string& name) {
    std::filesystem::copy_file(std::filesystem::path(FA4_SOURCE_DIR) / "tests/data/runs" / shipped,
                               dir_ / name, std::filesystem::copy_options::overwrite_existing);
  }

  // Runs a shell script in the test's folder, through `wrapper` (e.g. "unshare -m": a private
  // mount namespace) when given, with the executable in $CLI and FA4_DB unset.
  Outcome run_script(const std::string& script, const std::string& wrapper = "") {
    const auto file = dir_ / "script.sh", out = dir_ / "stdout", err = dir_ / "stderr";
    std::ofstream(file) << "CLI='" FA4_CLI "'\nexport FA4_DB=\n" << script << "\n";
    const std::string command = "cd '" + dir_.string() + "' && " + wrapper + " sh '" +
                                file.string() + "' >'" + out.string() + "' 2>'" + err.string() +
                                "'";
    const int status = std::system(command.c_str());
    return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, slurp(out), slurp(err)};
  }

  std::filesystem::path dir_;
};

}  // namespace fa4::testing
