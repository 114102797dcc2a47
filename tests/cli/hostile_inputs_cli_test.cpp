// Black-box tests of hostile input, each named after what it attacks: files that never end or
// block (a device, a FIFO, a link to one, a loop of links, a huge file), hardware figures no GPU
// has, scales that multiply past any chip, control characters in names and arguments, and a
// revision read from wherever the binary happens to run. Each is refused with one line that
// names the input, or handled as the message says; every command runs under `timeout`, so a
// hang fails the test instead of stopping the suite.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "cli_runner.hpp"

namespace fa4::testing {
namespace {

namespace fs = std::filesystem;

// Longer than any of these commands takes; `timeout` exits 124 past it.
constexpr const char* kTimeout = "timeout 20 ";

constexpr const char* kSweep =
    R"({"name": "t", "shapes": [{"batch": 1, "heads": 8, "seqlen": 1024, "headdim": 64}]})";

class HostileInputs : public CliTest {
 protected:
  void write(const std::string& name, const std::string& text) {
    std::ofstream(dir_ / name) << text;
  }

  // Runs `fa4-analyze ARGS` under timeout, in the test's folder.
  Outcome run_bounded(const std::string& args) {
    return run_script(std::string(kTimeout) + "\"$CLI\" " + args);
  }

  // A copy of the shipped models in models/, with h100-sxm.json edited by `edit`.
  template <class Edit>
  void models_with_h100(Edit edit) {
    fs::create_directories(dir_ / "models");
    for (const auto& entry : fs::directory_iterator(fs::path(FA4_SOURCE_DIR) / "models"))
      fs::copy_file(entry.path(), dir_ / "models" / entry.path().filename());
    nlohmann::json model = nlohmann::json::parse(slurp(dir_ / "models/h100-sxm.json"));
    edit(model);
    std::ofstream(dir_ / "models/h100-sxm.json") << model.dump(1);
  }

  std::string csv(const std::string& db, const std::string& sql) {
    return run("--db " + db + " query \"" + sql + "\" --format csv").out;
  }
};

// --- Inputs that never end or block -------------------------------------------------------

TEST_F(HostileInputs, SweepFromDevZeroIsRefusedUnread) {
  expect_refusal(run_bounded("--db t.db predict --sweep /dev/zero"),
                 "cannot read /dev/zero: a character device, not a regular file; give a sweep "
                 "file");
  EXPECT_FALSE(fs::exists(dir_ / "t.db"));
}

TEST_F(HostileInputs, SweepFromAFifoDoesNotBlock) {
  const Outcome r = run_script(std::string("mkfifo pipe.json && ") + kTimeout +
                               "\"$CLI\" --db t.db predict --sweep pipe.json");
  expect_refusal(r, "cannot read pipe.json: a named pipe (FIFO), not a regular file");
}

TEST_F(HostileInputs, ImportFromDevZeroIsRefusedUnread) {
  expect_refusal(run_bounded("--db t.db import /dev/zero"),
                 "cannot read /dev/zero: a character device, not a regular file; give a file to "
                 "import");
  EXPECT_FALSE(fs::exists(dir_ / "t.db"));
}

TEST_F(HostileInputs, ImportFromAFifoDoesNotBlock) {
  const Outcome r = run_script(std::string("mkfifo peers.jsonl && ") + kTimeout +
                               "\"$CLI\" --db t.db import peers.jsonl");
  expect_refusal(r, "cannot read peers.jsonl: a named pipe (FIFO), not a regular file");
  EXPECT_FALSE(fs::exists(dir_ / "t.db"));
}

TEST_F(HostileInputs, PublishedFolderWithALinkToDevZeroDoesNotHang) {
  fs::create_directories(dir_ / "pub");
  fs::create_symlink("/dev/zero", dir_ / "pub/zero.json");
  expect_refusal(run_bounded("published --published pub"),
                 "cannot read pub/zero.json: a character device, not a regular file");
}

TEST_F(HostileInputs, ModelsFolderWithALinkToDevZeroNamesIt) {
  models_with_h100([](nlohmann::json&) {});
  fs::create_symlink("/dev/zero", dir_ / "models/zero.json");
  expect_refusal(run_bounded("--models models gpus"),
                 "cannot read models/zero.json: a character device, not a regular file");
}

TEST_F(HostileInputs, SymlinkLoopInTheModelsFolderIsNamed) {
  models_with_h100([](nlohmann::json&) {});
  fs::create_symlink("loop.json", dir_ / "models/loop.json");
  expect_refusal(run_bounded("--models models gpus"),
                 "cannot read models/loop.json: a loop of symbolic links");
}

TEST_F(HostileInputs, HugeSweepIsRefusedStatingTheBound) {
  write("huge.json", "");
  fs::resize_file(dir_ / "huge.json", std::uintmax_t{300} << 20);  // sparse: takes no disk
  expect_refusal(run_bounded("--db t.db predict --sweep huge.json"),
                 "cannot read huge.json: 300 MiB, more than a sweep file may hold (256 MiB)");
}

TEST_F(HostileInputs, UnreadableSweepSaysPermissionDenied) {
  write("s.json", kSweep);
  // Root reads anything: run as nobody there (setpriv), as the user elsewhere.
  const Outcome r = run_script(std::string(R"sh(chmod 000 s.json
as=""
if [ "$(id -u)" = 0 ]; then
  command -v setpriv >/dev/null || exit 77
  chmod 755 . && as="setpriv --reuid=65534 --regid=65534 --clear-groups"
fi
)sh") + kTimeout + "$as \"$CLI\" --db t.db predict --sweep s.json");
  if (r.code == kCannotSetUp) GTEST_SKIP() << "root without setpriv: cannot drop the privilege";
  expect_refusal(r, "cannot read s.json: permission denied; check its permissions");
}

// --- Hardware figures and scales no GPU has -----------------------------------------------

TEST_F(HostileInputs, RepeatedClockScaleIsBoundedAsAProduct) {
  std::string scales;
  for (int i = 0; i < 150; ++i) scales += " --scale clock=64";
  expect_refusal(run_bounded("whatif --gpu b200" + scales),
                 "--scale clock given 150 times: the factors of one unit multiply, and their "
                 "product");
  const Outcome twice = run_bounded("whatif --gpu b200 --scale clock=2 --scale clock=2");
  ASSERT_EQ(twice.code, 0) << twice.err;
  EXPECT_NE(twice.out.find("clock x4"), std::string::npos) << twice.out;
}

TEST_F(HostileInputs, RepeatedHbmScaleNeverPrintsInfinity) {
  std::string scales;
  for (int i = 0; i < 200; ++i) scales += " --scale hbm=0.015625";
  const Outcome r = run_bounded("whatif --gpu b200" + scales);
  expect_refusal(r, "--scale hbm given 200 times");
  EXPECT_EQ(r.out.find("inf"), std::string::npos) << r.out;
}

TEST_F(HostileInputs, ModelFiguresBeyondAnyGpuAreRefusedWithFieldValueAndRange) {
  struct Case {
    const char* pointer;
    double value;
    const char* expected;
  };
  const Case cases[] = {
      {"/hbm_bytes_per_s", 1e-300,
       "models/h100-sxm.json: /hbm_bytes_per_s: 1e-300 is out of range for the HBM bandwidth of "
       "a GPU: expected a number from 1e+09 to 1e+15"},
      {"/per_sm/mma_flop_per_clk_bf16", 1e300, "/per_sm/mma_flop_per_clk_bf16: 1e+300 is out of"},
      {"/per_sm/mufu_ex2_per_clk", 1e-300, "/per_sm/mufu_ex2_per_clk: 1e-300 is out of range"},
      {"/boost_clock_mhz", 1e308, "/boost_clock_mhz: 1e+308 is out of range"},
      {"/sms", 1e15,
       "/sms: 1e+15 is out of range for the SMs of a GPU: expected a whole number from 1 to "
       "4096"},
  };
  write("s.json", kSweep);
  for (const Case& c : cases) {
    SCOPED_TRACE(c.pointer);
    fs::remove_all(dir_ / "models");
    models_with_h100(
        [&](nlohmann::json& m) { m[nlohmann::json::json_pointer(c.pointer)]["value"] = c.value; });
    expect_refusal(run_bounded("--db t.db --models models predict --sweep s.json"), c.expected);
  }
  EXPECT_FALSE(fs::exists(dir_ / "t.db"));
}

TEST_F(HostileInputs, ModelNameWithANewlineOrNulIsRefused) {
  const std::string names[] = {"H100\n!touch PWN\n#", std::string("H100\0x", 6)};
  for (const std::string& name : names) {
    fs::remove_all(dir_ / "models");
    models_with_h100([&](nlohmann::json& m) { m["name"] = name; });
    expect_refusal(run_bounded("--models models gpus"), "models/h100-sxm.json: /name: \"H100\\");
  }
  EXPECT_FALSE(fs::exists(dir_ / "PWN"));
}

TEST_F(HostileInputs, ModelFileNameWithANewlineIsRefused) {
  models_with_h100([](nlohmann::json&) {});
  fs::copy_file(dir_ / "models/h100-sxm.json", dir_ / "models/x\n!touch PWN\n#.json");
  fs::remove(dir_ / "models/h100-sxm.json");
  expect_refusal(run_bounded("--models models gpus"),
                 "models/x\\n!touch PWN\\n#.json: the file name holds a control character; "
                 "rename the file");
}

TEST_F(HostileInputs, ModelOrSweepNameThatIsNoStringSaysSo) {
  models_with_h100([](nlohmann::json& m) { m["name"] = 5; });
  expect_refusal(run_bounded("--models models gpus"),
                 "models/h100-sxm.json: /name: expected a non-empty string");
  write("s.json", R"({"name": 5, "shapes": [{"batch": 1, "heads": 8, "seqlen": 64,
                      "headdim": 64}]})");
  expect_refusal(run_bounded("--db t.db predict --sweep s.json"),
                 "s.json: /name: must be a string, got 5");
}

// --- Sweeps read by the shape flags' rule ---------------------------------------------------

TEST_F(HostileInputs, SweepSeqlenWithSeqlenQFollowsTheShapeFlagsRule) {
  write("s.json", R"({"name": "t", "shapes": [{"batch": 1, "heads": 8, "seqlen": 1024,
                      "seqlen_q": 512, "headdim": 64}]})");
  ASSERT_EQ(run("--db t.db predict --sweep s.json --gpu h100 --kernel fa3 --pass fwd").code, 0);
  EXPECT_EQ(csv("t.db", "SELECT seqlen_q, seqlen_k FROM predictions"),
            "seqlen_q,seqlen_k\n512,1024\n");
  const Outcome flags =
      run("model --gpu h100 --kernel fa3 --batch 1 --heads 8 --headdim 64 "
          "--seqlen 1024 --seqlen-q 512");
  ASSERT_EQ(flags.code, 0) << flags.err;
  EXPECT_NE(flags.out.find("s512x1024"), std::string::npos) << flags.out;
}

TEST_F(HostileInputs, GridTokensNotAMultipleOfTheSeqlenSayTheRounding) {
  write("g.json", R"({"name": "g", "grid": {"total_tokens": 1000, "hidden": 512,
                      "headdims": [64], "seqlens": [512], "causal": [false]}})");
  const Outcome r = run("--db t.db predict --sweep g.json --gpu h100 --kernel fa3 --pass fwd");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("note: g.json: /grid: total_tokens = 1000 is not a multiple of 1 of the 1 "
                       "seqlens: their batch is total_tokens / seqlen rounded down, at least 1 "
                       "(seqlen 512: batch 1, 512 tokens)"),
            std::string::npos)
      << r.out;
  EXPECT_EQ(csv("t.db", "SELECT batch FROM predictions"), "batch\n1\n");
}

// --- The recorded revision -------------------------------------------------------------------

// Without git on the PATH the checkout cannot be asked; the binary still knows what it was built
// from, and records that.
TEST_F(HostileInputs, RevisionIsStampedAtBuildNotReadFromTheCheckout) {
  const Outcome normal = run("--version");
  ASSERT_EQ(normal.code, 0) << normal.err;
  const Outcome no_git = run_script("PATH=/nonexistent \"$CLI\" --version");
  ASSERT_EQ(no_git.code, 0) << no_git.err;
  EXPECT_EQ(no_git.out, normal.out);
  EXPECT_EQ(no_git.out.find("unknown"), std::string::npos) << no_git.out;

  write("s.json", kSweep);
  ASSERT_EQ(run_script("PATH=/nonexistent \"$CLI\" --db t.db predict --sweep s.json --gpu h100 "
                       "--kernel fa3 --pass fwd")
                .code,
            0);
  const std::string revision = normal.out.substr(normal.out.find("(revision ") + 10);
  EXPECT_EQ(csv("t.db", "SELECT revision FROM runs"),
            "revision\n" + revision.substr(0, revision.find(')')) + "\n");
}

// --- Control bytes in arguments --------------------------------------------------------------

TEST_F(HostileInputs, ControlBytesInArgumentsAreEscapedInErrors) {
  const Outcome gpu = run_script(R"sh("$CLI" model --gpu "$(printf 'x\033[2Jy\n!z')")sh");
  expect_refusal(gpu, "unknown GPU 'x\\x1b[2Jy\\n!z'");
  EXPECT_EQ(gpu.err.find('\033'), std::string::npos) << gpu.err;

  const Outcome subcommand = run_script(R"sh("$CLI" "$(printf 'pre\033]0;title\007')")sh");
  expect_refusal(subcommand, "unknown subcommand 'pre\\x1b]0;title\\x07'");

  const Outcome option = run_script(R"sh("$CLI" model --batch "$(printf '1\r\033[K2')")sh");
  expect_refusal(option, "'1\\r\\x1b[K2' is not a whole number");
}

}  // namespace
}  // namespace fa4::testing
