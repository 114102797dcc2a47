// Black-box tests of `fa4-analyze kernels` and `bench` on a machine without a usable GPU (a
// CPU-only build, or a CUDA build on a machine with no device). On a GPU machine they skip; the
// option checks (bench --ab's among them) run everywhere.
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

// The pass checks read each kernel's model configuration (lib/orchestration/kernel_models.cpp,
// which names every registered kernel), before any device is looked for: every build.
class BenchPassCli : public fa4::testing::CliTest {
 protected:
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

// bench --ab's arguments, checked before any device is looked for: every build, with or without
// a GPU. Each refusal names the input, says what is wrong and how to fix it, exits 1 and writes
// no database.
class BenchAbCli : public fa4::testing::CliTest {
 protected:
  void expect_refused(const std::string& args, const std::string& message) {
    const Outcome r = run("bench " + args);
    expect_refusal(r, message);
    EXPECT_FALSE(fs::exists(dir_ / "fa4-results.db")) << args;
  }
};

TEST_F(BenchAbCli, OneKernelIsRefusedAndTheMessageShowsTwo) {
  expect_refused("--kernel fa3 --ab --seqlen 1024",
                 "--ab compares two kernels and --kernel names 1 (fa3): name the baseline and "
                 "then the contender, e.g. --kernel fa3,fa4 --ab");
  expect_refused("--kernel fa2,fa3,fa4 --ab --seqlen 1024", "--kernel names 3 (fa2, fa3, fa4)");
}

TEST_F(BenchAbCli, OneKernelTwiceIsRefused) {
  expect_refused("--kernel fa3,fa3 --ab", "--ab: --kernel names fa3 twice");
}

TEST_F(BenchAbCli, AnUnknownKernelIsNamedWithWhereTheNamesAre) {
  expect_refused("--kernel fa3,flash9 --ab --seqlen 1024",
                 "--kernel flash9: no registered kernel or peer of that name; 'fa4-analyze "
                 "kernels' lists the kernels, ");
  // The peers' names come from the runner itself (torch_peers.py --list-peers, no PyTorch).
  const Outcome r = run("bench --kernel flash9,fa3 --ab");
  EXPECT_NE(r.err.find("the peers are sdpa_flash, sdpa_cudnn"), std::string::npos) << r.err;
}

TEST_F(BenchAbCli, APeerWithoutAbSaysHowToTimeIt) {
  expect_refused("--kernel sdpa_cudnn --seqlen 1024",
                 "--kernel sdpa_cudnn: 'sdpa_cudnn' is a peer, not one of our kernels; time it "
                 "with --peers, or beside one of ours in alternating rounds: --kernel "
                 "fa3,sdpa_cudnn --ab");
}

TEST_F(BenchAbCli, RoundsOutsideFiveToAThousandAreRefused) {
  for (const std::string rounds : {"0", "4", "-3", "1001"})
    expect_refused("--kernel fa3,fa4 --ab --rounds " + rounds,
                   "--rounds " + rounds +
                       ": an A/B verdict takes one sample of each kernel a round and needs at "
                       "least 5 a side; give --rounds from 5 to 1000 (default 10)");
}

TEST_F(BenchAbCli, RoundsAndThresholdWithoutAbAreRefused) {
  expect_refused("--kernel fa3 --rounds 10",
                 "--rounds 10 counts the alternating rounds of --ab: add --ab");
  expect_refused("--kernel fa3 --threshold 2%",
                 "--threshold 2% is the smallest change bench --ab's verdict counts: add --ab");
  expect_refused("--kernel fa3,fa4 --ab --threshold 2",
                 "--threshold 2: give the smallest change worth a verdict as a percentage");
}

TEST_F(BenchAbCli, ResumeAndPeersDoNotGoWithAb) {
  expect_refused("--kernel fa3,fa4 --ab --resume", "--resume skips configurations");
  expect_refused("--kernel fa3,fa4 --ab --peers",
                 "with --ab name the peer as one of the two, e.g. --kernel fa3,sdpa_cudnn --ab");
}

TEST_F(BenchAbCli, AKernelOfTheOtherPassIsRefusedWithAb) {
  expect_refused("--kernel fa2,fa3_bwd --ab",
                 "'fa3_bwd' is a backward kernel and --pass fwd benches forward kernels");
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
