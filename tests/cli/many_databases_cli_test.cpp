// Black-box tests of several databases in one command (--db a.db --db b.db, or --db FOLDER): runs,
// query, compare and report read each (copies of shipped runs), every row labelled with its
// database, and agree with what each database alone gives; bad input (a missing file, a file that
// is no database, an empty folder, a database named twice, several databases given to a command
// that takes one, sides beside several databases) is refused naming it, with the fix, and leaves
// the databases as they were.
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli_runner.hpp"

namespace {

namespace fs = std::filesystem;
using fa4::testing::Outcome;
using fa4::testing::slurp;
using nlohmann::json;

class ManyDatabases : public fa4::testing::CliTest {
 protected:
  void SetUp() override {
    CliTest::SetUp();
    copy_shipped_db("2026-11-23-h200.db", "a.db");        // fa3, fa4 and the peers (H200)
    copy_shipped_db("2026-11-23-h200-final.db", "b.db");  // naive, fa2, fa3, fa4 (H200)
    fs::create_directories(dir_ / "runs");
    copy_shipped_db("2026-11-23-h200.db", "runs/a.db");
    copy_shipped_db("2026-11-24-h100.db", "runs/c.db");
  }
  static std::vector<std::string> lines(const std::string& text) {
    std::vector<std::string> out;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) out.push_back(line);
    return out;
  }
  const std::string kSweep = "--sweep '" FA4_SOURCE_DIR "/data/sweeps/fa3-paper.json'";
  // The rows of a JSON array printed by `args`.
  json array_of(const std::string& args) {
    const Outcome r = run(args);
    EXPECT_EQ(r.code, 0) << args << ": " << r.err;
    return r.code == 0 ? json::parse(r.out) : json::array();
  }
};

TEST_F(ManyDatabases, RunsListsEveryDatabasesRunsLabelled) {
  const json a = array_of("--db a.db runs --json"), b = array_of("--db b.db runs --json");
  const json both = array_of("--db a.db --db b.db runs --json");
  ASSERT_EQ(both.size(), a.size() + b.size());
  for (std::size_t i = 0; i < both.size(); ++i) {
    json row = both[i];
    EXPECT_EQ(row["db"], i < a.size() ? "a.db" : "b.db");
    row.erase("db");
    EXPECT_EQ(row, i < a.size() ? a[i] : b[i - a.size()]) << "as each database alone lists it";
  }
  const Outcome text = run("runs --db a.db --db b.db");
  ASSERT_EQ(text.code, 0) << text.err;
  EXPECT_EQ(lines(text.out).at(0).rfind("db  ", 0), 0u) << text.out;
}

TEST_F(ManyDatabases, AFolderIsItsDatabasesByName) {
  const json rows = array_of("--db runs runs --json");
  ASSERT_FALSE(rows.empty());
  EXPECT_EQ(rows.front()["db"], "runs/a.db");
  EXPECT_EQ(rows.back()["db"], "runs/c.db");
  EXPECT_EQ(rows.back()["device"], "NVIDIA H100 80GB HBM3");
}

TEST_F(ManyDatabases, QueryRunsOnEachAndLabelsTheRows) {
  const std::string count = " query \"SELECT count(*) AS n FROM measurements\" --format csv";
  const Outcome a = run("--db a.db" + count), b = run("--db b.db" + count);
  const Outcome both = run("--db a.db --db b.db" + count);
  ASSERT_EQ(both.code, 0) << both.err;
  EXPECT_EQ(both.out, "db,n\na.db," + lines(a.out).at(1) + "\nb.db," + lines(b.out).at(1) + "\n");
  // "Which run has the fastest fa3 backward": one statement over a folder, its db named.
  const json fastest = array_of(
      "--db runs query \"SELECT kernel, min(time_median_s) AS best FROM v_measurements WHERE "
      "kernel = 'fa3'\" --format json");
  ASSERT_EQ(fastest.size(), 2u);
  EXPECT_EQ(fastest[0]["db"], "runs/a.db");
  EXPECT_EQ(fastest[1]["db"], "runs/c.db");
}

TEST_F(ManyDatabases, QueryLimitCountsOverEveryDatabase) {
  const Outcome r = run("--db a.db --db b.db query \"SELECT 'row' AS x FROM measurements\" "
                        "--limit 3 --format csv");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "db,x\na.db,row\na.db,row\na.db,row\n");
  EXPECT_NE(r.err.find("printed the first 3 rows; more remain"), std::string::npos) << r.err;
}

TEST_F(ManyDatabases, QuerySaysHowItReadsSeveral) {
  const Outcome help = run("query --help");
  EXPECT_NE(help.out.find("ATTACH is refused"), std::string::npos) << help.out;
  EXPECT_NE(help.out.find("leading db column"), std::string::npos) << help.out;
  const Outcome bad = run("--db a.db --db b.db query \"SELECT * FROM nope\"");
  expect_refusal(bad, "error: a.db: ");
  EXPECT_NE(bad.err.find("no such table: nope"), std::string::npos) << bad.err;
  EXPECT_EQ(bad.out, "") << "checked on every database before a row is printed";
}

TEST_F(ManyDatabases, BadInputNamesTheDatabaseAndTheFix) {
  // A first read brings the copy of the shipped run to the current schema (as one --db does).
  ASSERT_EQ(run("--db a.db runs").code, 0);
  const std::string a = slurp(dir_ / "a.db");
  for (const std::string command : {"runs", "query \"SELECT 1\"", "report --out r.md",
                                    "compare --kernel fa3 --against fa4"}) {
    const Outcome missing = run("--db a.db --db gone.db " + command);
    expect_refusal(missing, "--db gone.db: no such file or folder; fix it or leave it out");
    std::ofstream(dir_ / "junk.db") << std::string(4096, 'x');
    const Outcome junk = run("--db a.db --db junk.db " + command);
    expect_refusal(junk, "junk.db is not an SQLite database");
    EXPECT_NE(junk.err.find("junk.db is one of the 2 databases --db names: fix it or leave it out"),
              std::string::npos)
        << junk.err;
    fs::create_directories(dir_ / "empty");
    expect_refusal(run("--db empty " + command), "--db empty: the folder holds no .db file");
    expect_refusal(run("--db a.db --db ./a.db " + command),
                   "--db names ./a.db twice (as a.db and ./a.db)");
    EXPECT_EQ(missing.out + junk.out, "") << command;
    EXPECT_FALSE(fs::exists(dir_ / "r.md")) << command;
  }
  EXPECT_TRUE(slurp(dir_ / "a.db") == a) << "read only: a.db left byte for byte";
}

TEST_F(ManyDatabases, CommandsOfOneDatabaseRefuseSeveral) {
  const std::string a = slurp(dir_ / "a.db"), b = slurp(dir_ / "b.db");
  const std::string commands[] = {"predict --gpu h100 --kernel fa3 " + kSweep,
                                  "import '" FA4_SOURCE_DIR "/data/published/papers.json'",
                                  "model --gpu h200 --ceilings measured"};
  for (const std::string& command : commands) {
    const Outcome r = run("--db a.db --db b.db " + command);
    expect_refusal(r, "--db names several databases (a.db, b.db); this command reads or writes "
                      "one: name one database");
    EXPECT_EQ(r.out, "") << command;
  }
  expect_refusal(run("--db runs predict --gpu h100 --kernel fa3 " + kSweep),
                 "--db names several databases (runs)");
  EXPECT_TRUE(slurp(dir_ / "a.db") == a && slurp(dir_ / "b.db") == b);
}

// Each database's fa3 against its own fa4: the rows of each as that database alone gives them.
TEST_F(ManyDatabases, CompareTwoKernelsWithinEachDatabase) {
  const auto one = [&](const std::string& db) {
    const Outcome r = run("compare " + db + " --kernel fa3 --against fa4 --json");
    EXPECT_EQ(r.code, 0) << r.err;
    return json::parse(r.out)["rows"];
  };
  const json a = one("a.db"), b = one("b.db");
  const Outcome r = run("--db a.db --db b.db compare --kernel fa3 --against fa4 --json");
  ASSERT_EQ(r.code, 0) << r.err;
  const json doc = json::parse(r.out);
  EXPECT_EQ(doc["baseline"], "fa3 of 2 databases");
  EXPECT_EQ(doc["contender"], "fa4 of 2 databases");
  const json& rows = doc["rows"];
  ASSERT_EQ(rows.size(), a.size() + b.size());
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const json& alone = i < a.size() ? a[i] : b[i - a.size()];
    EXPECT_EQ(rows[i]["db"], i < a.size() ? "a.db" : "b.db");
    EXPECT_EQ(rows[i]["problem"], alone["problem"]);
    EXPECT_EQ(rows[i]["baseline_ms"], alone["baseline_ms"]);
    EXPECT_EQ(rows[i]["verdict"], alone["verdict"]);
  }
  const Outcome text = run("--db runs compare --kernel fa3 --against fa4");
  ASSERT_EQ(text.code, 0) << text.err;
  EXPECT_NE(text.out.find("runs/c.db"), std::string::npos) << text.out;
}

TEST_F(ManyDatabases, CompareLeavesOutADatabaseOfTheOtherKind) {
  ASSERT_EQ(run("--db p.db predict --gpu h200 --kernel fa3,fa4 " + kSweep).code, 0);
  const Outcome r = run("--db a.db --db p.db compare --kernel fa3 --against fa4 --csv");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("compare: left out p.db: it holds predictions where the others hold "
                       "measurements"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(r.out.find("p.db"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.rfind("#,db,device,", 0), 0u) << r.out;
}

TEST_F(ManyDatabases, CompareWithSeveralDatabasesTakesNoSides) {
  expect_refusal(run("--db a.db --db b.db compare a.db b.db"),
                 "compare pairs two kernels within each database: --kernel A --against B");
  expect_refusal(run("--db a.db --db b.db compare --kernel fa3"),
                 "compare pairs two kernels within each database");
  expect_refusal(run("--db a.db compare"), "name a BASELINE");
}

TEST_F(ManyDatabases, ReportReadsEveryDatabase) {
  const Outcome r = run("--db a.db --db b.db report --out r.md --no-reference-runs");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("(2 databases)"), std::string::npos) << r.out;
  const std::string md = slurp(dir_ / "r.md");
  // The sources, one line per device of each database.
  EXPECT_NE(md.find("\n- NVIDIA H200: 144 measurements in 2 runs of 2026-11-23, revision "
                    "684356b-dirty, from `a.db`\n"),
            std::string::npos)
      << md.substr(md.find("<details><summary>Where the"));
  EXPECT_NE(md.find("\n- NVIDIA H200: 288 measurements in 2 runs of 2026-11-23, revision "
                    "684356b-dirty, from `b.db`\n"),
            std::string::npos);
  const Outcome one = run("--db a.db report --out one.md --no-reference-runs");
  ASSERT_EQ(one.code, 0) << one.err;
  EXPECT_NE(one.out.find("(1 database)"), std::string::npos) << one.out;
}

}  // namespace
