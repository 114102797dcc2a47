// Black-box tests of the conventions users expect from a command line: the global options
// (--db, --models, --busy-timeout) after the subcommand as well as before it, and --version.
#include <regex>

#include "cli_runner.hpp"

namespace {

using fa4::testing::Outcome;

class Conventions : public fa4::testing::CliTest {
 protected:
  void SetUp() override {
    CliTest::SetUp();
    copy_shipped_db("2026-11-23-h200.db", "x.db");
  }
};

TEST_F(Conventions, GlobalOptionsAreAcceptedAfterTheSubcommand) {
  const Outcome after = run("query \"SELECT COUNT(*) FROM runs\" --db x.db --format csv");
  EXPECT_EQ(after.code, 0) << after.err;
  EXPECT_EQ(after.out, "COUNT(*)\n3\n");
  EXPECT_EQ(run("runs --busy-timeout 100 --db x.db").code, 0);
  const Outcome models = run("gpus --models '" FA4_SOURCE_DIR "/models' --json");
  EXPECT_EQ(models.code, 0) << models.err;
  // Still checked where they are given.
  const Outcome bad = run("runs --db x.db --busy-timeout -5");
  EXPECT_EQ(bad.code, 1);
  EXPECT_NE(bad.err.find("--busy-timeout"), std::string::npos) << bad.err;
}

TEST_F(Conventions, VersionPrintsTheVersionAndTheRevision) {
  const Outcome r = run("--version");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(
      std::regex_match(r.out, std::regex(R"(fa4-analyze \d+\.\d+\.\d+ \(revision \S+\)\n)")))
      << r.out;
}

}  // namespace
