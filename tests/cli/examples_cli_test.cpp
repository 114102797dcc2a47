// The examples every subcommand's help ends with (apps/fa4-analyze/examples.cpp): each that needs
// neither a CUDA GPU nor measured results runs, in the table's order (predict writes the database
// that query, runs and report then read), from a folder holding the source tree's data/; the
// others are listed as not run. Every subcommand's --help ends with its examples and the global
// options, and `help SUBCOMMAND` prints the same.
#include <filesystem>
#include <set>
#include <sstream>
#include <string>

#include "cli_runner.hpp"
#include "examples.hpp"

namespace {

using fa4::app::ExampleNeeds;
using fa4::testing::Outcome;

class Examples : public fa4::testing::CliTest {};

TEST_F(Examples, EveryOneThatNeedsNoGpuAndNoMeasurementsRuns) {
  std::filesystem::create_directory_symlink(std::filesystem::path(FA4_SOURCE_DIR) / "data",
                                            dir_ / "data");
  int ran = 0;
  std::string not_run;
  for (const fa4::app::Example& e : fa4::app::examples()) {
    if (e.needs != ExampleNeeds::nothing) {
      not_run += "\n  " + std::string(e.command);
      continue;
    }
    const Outcome r = run(std::string(e.command) + " --db examples.db");
    EXPECT_EQ(r.code, 0) << e.command << "\n" << r.out << r.err;
    EXPECT_FALSE(r.out.empty()) << e.command;
    ++ran;
  }
  EXPECT_GE(ran, 15);
  std::cout << ran << " examples ran; not run here (a CUDA GPU or measured results):" << not_run
            << "\n";
}

TEST_F(Examples, EverySubcommandsHelpEndsWithItsExamplesAndTheGlobalOptions) {
  // The subcommands as the tool's help lists them, one per line after "Subcommands:".
  const Outcome tool = run("--help");
  std::istringstream lines(tool.out.substr(tool.out.find("Subcommands:\n") + 13));
  std::set<std::string> subcommands;
  for (std::string line; std::getline(lines, line) && line.starts_with("  ");)
    subcommands.insert(line.substr(2, line.find(' ', 2) - 2));
  EXPECT_GE(subcommands.size(), 15u) << tool.out;
  for (const fa4::app::Example& e : fa4::app::examples())
    EXPECT_TRUE(subcommands.contains(std::string(e.subcommand))) << e.command;
  for (const std::string& name : subcommands) {
    const Outcome help = run(name + " --help");
    EXPECT_EQ(help.code, 0) << name;
    const std::size_t examples = help.out.find("Examples:\n  fa4-analyze " + name);
    const std::size_t global = help.out.find("Global options (before or after the subcommand)");
    EXPECT_NE(examples, std::string::npos) << help.out;
    EXPECT_NE(global, std::string::npos) << help.out;
    EXPECT_LT(examples, global) << help.out;
    EXPECT_EQ(run("help " + name).out, help.out) << name;
  }
}

TEST_F(Examples, HelpOfNoSuchSubcommandIsRefusedWithTheRealOnes) {
  expect_refusal(run("help modle"), "help: no subcommand 'modle': use one of gpus, model");
  EXPECT_NE(run("help").out.find("Subcommands:"), std::string::npos);
}

}  // namespace
