// Every --json output's keys are snake_case (lowercase letters, digits, underscores), at every
// depth: gpus, model (one GPU and several), whatif, roofline, published, runs and compare. A
// query's keys are the statement's own column names and are left as written.
#include <nlohmann/json.hpp>

#include <fstream>
#include <regex>
#include <string>

#include "cli_runner.hpp"

namespace {

using fa4::testing::Outcome;
using nlohmann::json;

class JsonKeys : public fa4::testing::CliTest {};

// The keys of `j` that are not snake_case, with their paths.
void collect_bad_keys(const json& j, const std::string& path, std::string& bad) {
  static const std::regex kSnakeCase("[a-z0-9_]+");
  if (j.is_object()) {
    for (const auto& [key, value] : j.items()) {
      if (!std::regex_match(key, kSnakeCase)) bad += " " + path + "/\"" + key + "\"";
      collect_bad_keys(value, path + "/" + key, bad);
    }
  } else if (j.is_array()) {
    for (std::size_t i = 0; i < j.size(); ++i)
      collect_bad_keys(j[i], path + "/" + std::to_string(i), bad);
  }
}

TEST_F(JsonKeys, EveryJsonOutputIsSnakeCase) {
  std::ofstream(dir_ / "s.json")
      << R"({"name": "s", "shapes": [{"batch": 2, "heads": 16, "seqlen": 4096, "headdim": 128}]})";
  ASSERT_EQ(run("--db p.db predict --sweep s.json --gpu h100-sxm").code, 0);
  ASSERT_EQ(run("--db p.db predict --sweep s.json --gpu h100-sxm").code, 0);
  for (const char* args : {
           "gpus --json",
           "gpus show b200 --json",
           "model --gpu b200 --seqlen 8192 --json",
           "model --gpu b200 --profile cudnn --seqlen 8192 --json",
           "model --gpu all --pass bwd --seqlen 4096 --json",
           "whatif --gpu b200 --scale mufu=2 --seqlen 8192 --json",
           "whatif --gpu b200 --sensitivity --seqlen 8192 --json",
           "roofline --gpu h200 --json",
           "published --gpu b200 --json",
           "--db p.db runs --json",
           "--db p.db compare 1 2 --json",
       }) {
    const Outcome r = run(args);
    ASSERT_EQ(r.code, 0) << args << "\n" << r.err;
    const json j = json::parse(r.out, nullptr, false);
    ASSERT_FALSE(j.is_discarded()) << args << "\n" << r.out;
    std::string bad;
    collect_bad_keys(j, "", bad);
    EXPECT_EQ(bad, "") << args;
  }
}

}  // namespace
