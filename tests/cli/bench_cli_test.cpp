// Black-box tests of `fa4-analyze kernels` and `bench` on a machine without a usable GPU (a
// CPU-only build, or a CUDA build on a machine with no device). On a GPU machine they skip.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace {

namespace fs = std::filesystem;

struct Outcome {
  int code = -1;
  std::string out, err;
};

std::string slurp(const fs::path& file) {
  std::ifstream in(file);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

class BenchCli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("fa4-bench-cli-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
    if (run("kernels").out.find("no CUDA") == std::string::npos)
      GTEST_SKIP() << "this machine has a CUDA device: the no-GPU paths cannot be tested here";
  }
  void TearDown() override { fs::remove_all(dir_); }

  Outcome run(const std::string& args) {
    const fs::path out = dir_ / "stdout", err = dir_ / "stderr";
    const std::string command = std::string("cd '") + dir_.string() + "' && FA4_DB= '" FA4_CLI "' " +
                                args + " >'" + out.string() + "' 2>'" + err.string() + "'";
    const int status = std::system(command.c_str());
    return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, slurp(out), slurp(err)};
  }
  fs::path dir_;
};

TEST_F(BenchCli, KernelsSaysWhatIsMissingAndSucceeds) {
  const Outcome r = run("kernels");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(r.out.find("no CUDA build") != std::string::npos ||
              r.out.find("no CUDA device") != std::string::npos)
      << r.out;
}

TEST_F(BenchCli, BenchWithoutADeviceIsAClearErrorAndWritesNoDatabase) {
  const Outcome r = run("bench --kernel naive,fa2 --seqlen 1024");
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.err.rfind("error: no CUDA device: bench needs one; the model-only commands (model, "
                        "predict, report) still work",
                        0),
            0u)
      << r.err;
  EXPECT_FALSE(fs::exists(dir_ / "fa4-results.db"));
}

TEST_F(BenchCli, BenchNeedsTheKernelList) {
  const Outcome r = run("bench --seqlen 1024");
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("--kernel"), std::string::npos) << r.err;
}

TEST_F(BenchCli, BenchRejectsABadShapeBeforeLookingForADevice) {
  const Outcome r = run("bench --kernel fa2 --headdim 0");
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("headdim"), std::string::npos) << r.err;
}

}  // namespace
