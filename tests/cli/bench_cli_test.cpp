// Black-box tests of `fa4-analyze kernels` and `bench` on a machine without a usable GPU (a
// CPU-only build, or a CUDA build on a machine with no device). On a GPU machine they skip.
#include <filesystem>
#include <string>

#include "cli_runner.hpp"

namespace {

namespace fs = std::filesystem;

using fa4::testing::Outcome;

class BenchCli : public fa4::testing::CliTest {
 protected:
  void SetUp() override {
    CliTest::SetUp();
    if (run("kernels").out.find("no CUDA") == std::string::npos)
      GTEST_SKIP() << "this machine has a CUDA device: the no-GPU paths cannot be tested here";
  }
};

TEST_F(BenchCli, KernelsSaysWhatIsMissingAndSucceeds) {
  const Outcome r = run("kernels");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(r.out.find("no CUDA build") != std::string::npos ||
              r.out.find("no CUDA device") != std::string::npos)
      << r.out;
}

// A CUDA build on a machine without a device once printed "no CUDA device: no CUDA device: ...".
TEST_F(BenchCli, KernelsNamesTheMissingDeviceOnce) {
  const std::string out = run("kernels").out;
  const std::size_t first = out.find("no CUDA device");
  if (first == std::string::npos) GTEST_SKIP() << "a build without CUDA: " << out;
  EXPECT_EQ(out.find("no CUDA device", first + 1), std::string::npos) << out;
}

TEST_F(BenchCli, BenchWithoutADeviceIsAClearErrorAndWritesNoDatabase) {
  const Outcome r = run("bench --kernel naive,fa2 --seqlen 1024");
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.err.rfind("error: no CUDA device: bench needs one (", 0), 0u) << r.err;
  EXPECT_NE(r.err.find("); the model-only commands (model, predict, report) still work"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(r.err.find("no CUDA device", r.err.find("no CUDA device") + 1), std::string::npos)
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

using BenchOptionsCli = fa4::testing::CliTest;  // option checks: every build, with or without a GPU

TEST_F(BenchOptionsCli, BenchRejectsAPassOtherThanFwdOrBwd) {
  const Outcome r = run("bench --kernel fa2 --pass sideways --seqlen 1024");
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("--pass"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir_ / "fa4-results.db"));
}

// The pass checks read the kernel registry, before any device is looked for: they need a CUDA
// build (with or without a GPU), and skip in a CPU-only one.
class BenchPassCli : public fa4::testing::CliTest {
 protected:
  void SetUp() override {
    CliTest::SetUp();
    if (run("kernels").out.find("no CUDA build") != std::string::npos)
      GTEST_SKIP() << "built without CUDA: no kernel registry to check the pass against";
  }
  // `bench ARGS` fails with an error that starts with `message` and writes no database.
  void expect_refused(const std::string& args, const std::string& message) {
    const Outcome r = run("bench " + args);
    EXPECT_EQ(r.code, 1);
    EXPECT_EQ(r.err.rfind("error: " + message, 0), 0u) << r.err;
    EXPECT_FALSE(fs::exists(dir_ / "fa4-results.db"));
  }
};

TEST_F(BenchPassCli, AForwardKernelWithPassBwdIsRefusedAndSaysWhichPassItIs) {
  expect_refused("--pass bwd --kernel fa2_bwd,fa2 --seqlen 1024",
                 "'fa2' is a forward kernel and --pass bwd benches backward kernels: pass --pass "
                 "fwd for it");
}

TEST_F(BenchPassCli, ABackwardKernelWithoutPassBwdIsRefusedAndSaysHowToBenchIt) {
  expect_refused("--kernel fa3_bwd --seqlen 1024",
                 "'fa3_bwd' is a backward kernel and --pass fwd benches forward kernels: pass "
                 "--pass bwd for it");
}

}  // namespace

TEST_F(BenchCli, CeilingsWithoutADeviceIsAClearErrorAndWritesNoDatabase) {
  const Outcome r = run("ceilings");
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.err.rfind("error: no CUDA device: ceilings needs one (", 0), 0u) << r.err;
  // Said once: what CUDA reports is in the parentheses, without the words again.
  EXPECT_EQ(r.err.find("no CUDA device", r.err.find("no CUDA device") + 1), std::string::npos)
      << r.err;
  EXPECT_FALSE(fs::exists(dir_ / "fa4-results.db"));
}
