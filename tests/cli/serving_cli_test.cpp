// The serving flags of the shape (model, roofline, whatif, bench): --page-size, --seqlens-k or
// --ragged, --splits; the sweep file's "ragged"; what predict records of them; and the refusals,
// each naming its flag and the fix.
#include <fmt/format.h>
#include <gmock/gmock.h>

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>

#include "cli_runner.hpp"
#include "core/ragged.hpp"

namespace fa4::testing {
namespace {

using ::testing::HasSubstr;

constexpr const char* kDecode = "--gpu h200 --kernel fa3 --seqlen-q 1 --heads 32 --heads-kv 8";

class Serving : public CliTest {};

TEST_F(Serving, ModelDescribesPagesRaggedKeysAndSplits) {
  const Outcome o =
      run(std::string("model ") + kDecode + " --seqlens-k 8192,100,0 --page-size 16 --splits 4");
  ASSERT_EQ(o.code, 0) << o.err;
  // Three counts make a batch of three; the longest is the capacity.
  EXPECT_THAT(o.out,
              HasSubstr("b3 h32/8 s1x8192 d128 bf16 paged16 ragged0-8192(sum 8292) splits4"));
}

TEST_F(Serving, RaggedDrawsTheBatchsCountsAsASweepFileDoes) {
  const Outcome o = run(std::string("model ") + kDecode + " --batch 16 --ragged 128:8192:1");
  ASSERT_EQ(o.code, 0) << o.err;
  const std::vector<std::int64_t> counts = *ragged_key_counts({128, 8192, 1}, 16, "d");
  std::int64_t sum = 0;
  for (const std::int64_t c : counts) sum += c;
  const auto [lo, hi] = std::minmax_element(counts.begin(), counts.end());
  EXPECT_THAT(o.out, HasSubstr(fmt::format("b16 h32/8 s1x{} d128 bf16 ragged{}-{}(sum {})", *hi,
                                           *lo, *hi, sum)));
}

TEST_F(Serving, RooflinePointsCarryTheFields) {
  const Outcome o =
      run("roofline --gpu h200 --kernel fa3 --seqlen-q 1 --heads 32 --heads-kv 8 --seqlen-k 32768 "
          "--batch 8 --page-size 64 --json");
  ASSERT_EQ(o.code, 0) << o.err;
  const auto doc = nlohmann::json::parse(o.out);
  ASSERT_FALSE(doc.at("points").empty());
  EXPECT_EQ(doc["points"][0]["shape"], "b8 h32/8 s1x32768 d128 bf16 paged64");
}

TEST_F(Serving, PredictRecordsAPagedRaggedShapeFromASweepFile) {
  std::ofstream(dir_ / "s.json") << R"({"name": "s", "shapes": [
    {"batch": 8, "heads": 32, "heads_kv": 8, "seqlen_q": 1, "seqlen_k": 8192, "headdim": 128},
    {"batch": 8, "heads": 32, "heads_kv": 8, "seqlen_q": 1, "seqlen_k": 8192, "headdim": 128,
     "page_size": 16},
    {"batch": 4, "heads": 32, "heads_kv": 8, "seqlen_q": 1, "headdim": 128, "page_size": 16,
     "ragged": {"min": 16, "max": 4096, "seed": 3}}]})";
  const Outcome p = run("--db r.db predict --sweep s.json --gpu h200 --kernel fa3 --pass fwd");
  ASSERT_EQ(p.code, 0) << p.err;
  const Outcome q =
      run("--db r.db query --format csv \"SELECT page_size, seqlens_k, splits FROM "
          "v_latest_predictions ORDER BY page_size, seqlens_k\"");
  ASSERT_EQ(q.code, 0) << q.err;
  EXPECT_EQ(q.out, "page_size,seqlens_k,splits\n0,,0\n16,,0\n16,\"" +
                       format_key_counts(*ragged_key_counts({16, 4096, 3}, 4, "d")) + "\",0\n");
}

TEST_F(Serving, BadServingFlagsAreRefusedNamingTheFlagAndTheFix) {
  const std::string model = std::string("model ") + kDecode;
  expect_refusal(run(model + " --seqlens-k 8192,x"),
                 "--seqlens-k '8192,x': item 2 ('x') is not a key count");
  expect_refusal(run(model + " --seqlens-k 10,20 --batch 3"),
                 "--seqlens-k gives 2 key counts for --batch 3; give one count per sequence");
  expect_refusal(run(model + " --seqlens-k 100,200 --seqlen-k 150"),
                 "sequence 1 has 200 keys; each count must be 0 to seqlen-k = 150");
  expect_refusal(run(model + " --seqlens-k 1,2 --ragged 1:9:1"),
                 "--seqlens-k and --ragged both give the key counts");
  expect_refusal(run(model + " --ragged 128:8192"), "--ragged '128:8192': expected MIN:MAX:SEED");
  expect_refusal(run(model + " --ragged 9:8:1"), "--ragged: min = 9, max = 8");
  expect_refusal(run(model + " --page-size -16"), "page-size = -16; give the tokens per");
  expect_refusal(run(model + " --splits -2"), "splits = -2; give the key-range parts");
  expect_refusal(run(model + " --splits 2x"), "--splits: '2x' is not a whole number");
  // bench reads the shape before it looks for a device.
  expect_refusal(run("bench --kernel fa3_decode --seqlen-q 1 --seqlens-k 5,y"),
                 "--seqlens-k '5,y': item 2");
}

}  // namespace
}  // namespace fa4::testing
