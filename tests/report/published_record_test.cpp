// The published record (data/published/record/*.json): every shipped file loads, every figure
// names where it was read and its role, at least half of each file is held out by the rule its
// header states, and every GPU is a shipped hardware model or one listed here as having none (its
// figures then name the model that stands for them); the decode record carries one query row per
// sequence of a contiguous cache, timed as its benchmark timed it.
// Also the loader's refusals of a malformed record. The record lives in its own folder; the report
// loads it with the top-level files (load_published_tree), the model's tests hold its held-out
// figures to their bounds (tests/model/published_record_model_test.cpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "hw/loader.hpp"
#include "report/published.hpp"

namespace fa4::report {
namespace {

namespace fs = std::filesystem;

const fs::path kPublished = fs::path(FA4_SOURCE_DIR) / "data" / "published";
const fs::path kRecord = kPublished / "record";

// GPUs the record names that have no file in models/: "sm100", where a pull request names the
// architecture but not the GPU; such a figure names the model that stands for it (modeled_on).
const std::set<std::string> kGpusWithoutModel = {"sm100"};

std::vector<fs::path> json_files(const fs::path& dir) {
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(dir))
    if (entry.path().extension() == ".json") files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  return files;
}

std::vector<PublishedFigure> load_or_fail(const fs::path& file) {
  auto figures = load_published(file);
  EXPECT_TRUE(figures.ok()) << (figures.ok() ? "" : figures.error().message);
  return figures.ok() ? *figures : std::vector<PublishedFigure>{};
}

TEST(PublishedRecord, EveryShippedFileLoads) {
  int files = 0;
  for (const fs::path& dir : {kPublished, kRecord}) {
    for (const auto& file : json_files(dir)) {
      EXPECT_FALSE(load_or_fail(file).empty()) << file;
      ++files;
    }
  }
  EXPECT_GE(files, 9);  // the three measured/paper files and six record files
}

TEST(PublishedRecord, EveryFigureNamesItsOriginAndRole) {
  for (const auto& file : json_files(kRecord)) {
    for (const auto& f : load_or_fail(file)) {
      const std::string what = file.filename().string() + " " + f.kernel + " " + describe(f.shape);
      ASSERT_TRUE(f.provenance.has_value()) << what;
      const Provenance& p = *f.provenance;
      EXPECT_FALSE(p.repository.empty()) << what;
      EXPECT_TRUE(!p.path.empty() || p.pull_request > 0 || p.issue > 0) << what;
      EXPECT_TRUE(!p.commit.empty() || !p.date.empty()) << what;
      EXPECT_FALSE(p.software.empty()) << what;
      EXPECT_FALSE(p.flop_convention.empty()) << what;
      EXPECT_TRUE(f.role == "fit" || f.role == "held_out") << what << ": " << f.role;
      EXPECT_FALSE(f.source.empty() || f.citation.empty()) << what;
    }
  }
}

TEST(PublishedRecord, AtLeastHalfOfEachFileIsHeldOut) {
  for (const auto& file : json_files(kRecord)) {
    const auto figures = load_or_fail(file);
    const auto held = std::count_if(figures.begin(), figures.end(),
                                    [](const PublishedFigure& f) { return f.role == "held_out"; });
    EXPECT_GE(2 * held, static_cast<long>(figures.size())) << file;
  }
}

// The role rule of every record file's header: within a series (origin, GPU, kernel, pass, dtype,
// mask, heads, head dims, sliding window, and for a decode figure, seqlen_q 1, its batch), in
// increasing seqlen (a decode figure's seqlen_k, its cache length), held_out, fit, held_out, ...
TEST(PublishedRecord, RolesFollowTheStatedRule) {
  using Series = std::tuple<std::string, std::string, std::string, Pass, Dtype, bool, std::int64_t,
                            std::int64_t, std::int64_t, std::int64_t, std::int64_t, std::int64_t>;
  for (const auto& file : json_files(kRecord)) {
    std::map<Series, std::vector<PublishedFigure>> series;
    for (const auto& f : load_or_fail(file)) {
      const AttnShape& s = f.shape;
      const Provenance& p = f.provenance.value_or(Provenance{});
      const std::string origin = p.repository + p.path + std::to_string(p.pull_request) +
                                 std::to_string(p.issue) + p.commit + p.date;
      const std::int64_t decode_batch = s.seqlen_q == 1 ? s.batch : 0;
      series[{origin, f.gpu, f.kernel, f.pass, s.dtype, s.causal, s.heads_q, s.heads_kv, s.headdim,
              s.headdim_v, s.window, decode_batch}]
          .push_back(f);
    }
    for (auto& [key, members] : series) {
      std::sort(members.begin(), members.end(), [](const auto& a, const auto& b) {
        return std::pair{a.shape.seqlen_q, a.shape.seqlen_k} <
               std::pair{b.shape.seqlen_q, b.shape.seqlen_k};
      });
      for (std::size_t i = 0; i < members.size(); ++i)
        EXPECT_EQ(members[i].role, i % 2 == 0 ? "held_out" : "fit")
            << file.filename() << " " << members[i].kernel << " " << describe(members[i].shape);
    }
  }
}

TEST(PublishedRecord, EveryGpuIsAShippedModelOrListedAsHavingNone) {
  auto specs = hw::load_all_specs(fs::path(FA4_SOURCE_DIR) / "models");
  ASSERT_TRUE(specs.ok()) << specs.error().message;
  for (const auto& file : json_files(kRecord)) {
    for (const auto& f : load_or_fail(file)) {
      const bool modeled = hw::find_spec(*specs, f.gpu).ok();
      EXPECT_NE(modeled, kGpusWithoutModel.count(f.gpu) == 1) << file.filename() << ": " << f.gpu;
      EXPECT_EQ(!f.modeled_on.empty(), !modeled) << file.filename() << ": " << f.gpu;
      EXPECT_TRUE(hw::find_spec(*specs, f.model_gpu()).ok()) << f.model_gpu();
    }
  }
}

// The decode record (cudnn-frontend's attention_inference decode sweep): one query row per
// sequence, every sequence the shape's seqlen_k keys of a contiguous cache (the benchmark's cuDNN
// path allocates dense K and V; its CSVs' page_size column is the paged backends'), GQA heads,
// kernel-timed after an L2 flush, and the hd256 figures outside the bounds with their reason.
TEST(PublishedRecord, TheDecodeRecordCarriesWhatDecodeNeeds) {
  const std::map<std::string, std::size_t> expected = {{"cudnn-frontend-decode-h200.json", 64},
                                                       {"cudnn-frontend-decode-gb200.json", 64},
                                                       {"cudnn-frontend-decode-gb300.json", 64},
                                                       {"cudnn-frontend-decode-b200.json", 17}};
  for (const auto& [name, count] : expected) {
    const auto figures = load_or_fail(kRecord / name);
    ASSERT_EQ(figures.size(), count) << name;
    for (const PublishedFigure& f : figures) {
      const std::string what = name + " " + describe(f.shape);
      const AttnShape& s = f.shape;
      EXPECT_EQ(f.kernel, "cudnn") << what;
      EXPECT_EQ(f.pass, Pass::fwd) << what;
      EXPECT_EQ(s.seqlen_q, 1) << what;
      EXPECT_FALSE(s.causal) << what;
      EXPECT_EQ(s.page_size, 0) << what;
      EXPECT_TRUE(s.seqlens_k.empty()) << what;
      EXPECT_EQ(s.splits, 0) << what;
      EXPECT_GT(s.heads_q / s.heads_kv, 1) << what;
      ASSERT_TRUE(f.provenance) << what;
      EXPECT_TRUE(f.provenance->times_kernels) << what;
      EXPECT_TRUE(f.provenance->flushes_l2) << what;
      EXPECT_EQ(f.provenance->path.rfind(
                    "benchmark/attention_inference/results/decode_sweep/" + f.gpu + "/", 0),
                0u)
          << what;
      EXPECT_EQ(f.provenance->commit.size(), 40u) << what;
      EXPECT_EQ(!f.outside_bounds.empty(), s.headdim == 256) << what;
      // The figure reproduces the project's FLOP count: 4 b h_q s_k d at one query row.
      EXPECT_EQ(published_flops(f), attention_flops(s, Pass::fwd)) << what;
    }
  }
}

// A figure file written to a temporary folder; removed with the fixture.
class MalformedRecord : public ::testing::Test {
 protected:
  fs::path dir_ =
      fs::temp_directory_path() / (std::string("fa4-record-") +
                                   ::testing::UnitTest::GetInstance()->current_test_info()->name());
  void SetUp() override { fs::create_directories(dir_); }
  void TearDown() override { fs::remove_all(dir_); }

  // The loader's error for a file with one origin `origin` and one figure with `fields` added.
  std::string error_for(const std::string& origin, const std::string& fields) {
    const fs::path file = dir_ / "record.json";
    std::ofstream(file) << R"({"source": "published:test", "citation": "test", "origins": {"o": )"
                        << origin << R"(}, "figures": [{"gpu": "b200", "kernel": "cudnn", )"
                        << R"("pass": "fwd", "shape": {"batch": 1, "heads": 8, "seqlen": 1024, )"
                        << R"("headdim": 128}, "tflops": 100)" << fields << "}]}";
    auto figures = load_published(file);
    return figures.ok() ? "" : figures.error().message;
  }
};

const std::string kOrigin =
    R"({"repository": "r/r", "path": "p.csv", "commit": "c", "software": "s", )"
    R"("flop_convention": "4bhs^2d"})";

TEST_F(MalformedRecord, AWellFormedFigureLoadsWithItsProvenance) {
  EXPECT_EQ(error_for(kOrigin, R"(, "origin": "o", "role": "fit")"), "");
  auto figures = load_published(dir_ / "record.json");
  ASSERT_TRUE(figures.ok());
  ASSERT_TRUE((*figures)[0].provenance.has_value());
  EXPECT_EQ((*figures)[0].provenance->path, "p.csv");
  EXPECT_EQ((*figures)[0].shape.window, 0);
}

TEST_F(MalformedRecord, AFigureWithAnOriginMustSayItsRole) {
  EXPECT_NE(error_for(kOrigin, R"(, "origin": "o")").find("/figures/0/role"), std::string::npos);
  EXPECT_NE(error_for(kOrigin, R"(, "origin": "o", "role": "fitted")").find("\"held_out\""),
            std::string::npos);
}

TEST_F(MalformedRecord, AnUnknownOriginIsNamed) {
  EXPECT_NE(error_for(kOrigin, R"(, "origin": "elsewhere", "role": "fit")").find("\"elsewhere\""),
            std::string::npos);
}

TEST_F(MalformedRecord, AnOriginNamesWhereAndWhen) {
  const std::string no_where = R"({"repository": "r/r", "commit": "c", "software": "s", )"
                               R"("flop_convention": "f"})";
  EXPECT_NE(error_for(no_where, "").find("/origins/o: name where"), std::string::npos);
  const std::string no_when = R"({"repository": "r/r", "issue": 7, "software": "s", )"
                              R"("flop_convention": "f"})";
  EXPECT_NE(error_for(no_when, "").find("\"commit\" or \"date\""), std::string::npos);
  const std::string no_convention = R"({"repository": "r/r", "issue": 7, "date": "2026-01-01", )"
                                    R"("software": "s"})";
  EXPECT_NE(error_for(no_convention, "").find("flop_convention"), std::string::npos);
}

// An origin may say its benchmark timed the kernels' device durations rather than each call.
TEST_F(MalformedRecord, AnOriginSaysWhatItsBenchmarkTimed) {
  const std::string kernels = R"({"repository": "r/r", "path": "p.csv", "commit": "c", )"
                              R"("software": "s", "flop_convention": "f", "timed": "kernels"})";
  EXPECT_EQ(error_for(kernels, R"(, "origin": "o", "role": "fit")"), "");
  auto figures = load_published(dir_ / "record.json");
  ASSERT_TRUE(figures.ok());
  EXPECT_TRUE((*figures)[0].provenance->times_kernels);
  EXPECT_EQ(error_for(kOrigin, R"(, "origin": "o", "role": "fit")"), "");
  EXPECT_FALSE((*load_published(dir_ / "record.json"))[0].provenance->times_kernels);
  const std::string typo = R"({"repository": "r/r", "path": "p.csv", "commit": "c", )"
                           R"("software": "s", "flop_convention": "f", "timed": "kernel"})";
  EXPECT_NE(error_for(typo, "").find("/origins/o/timed: expected \"kernels\""),
            std::string::npos);
}

// An origin may say its benchmark flushed L2 before each timed call; anything but a boolean is
// refused with its pointer.
TEST_F(MalformedRecord, AnOriginSaysWhetherItsBenchmarkFlushedL2) {
  const std::string flushed = R"({"repository": "r/r", "path": "p.csv", "commit": "c", )"
                              R"("software": "s", "flop_convention": "f", "l2_flushed": true})";
  EXPECT_EQ(error_for(flushed, R"(, "origin": "o", "role": "fit")"), "");
  auto figures = load_published(dir_ / "record.json");
  ASSERT_TRUE(figures.ok());
  EXPECT_TRUE((*figures)[0].provenance->flushes_l2);
  EXPECT_EQ(error_for(kOrigin, R"(, "origin": "o", "role": "fit")"), "");
  EXPECT_FALSE((*load_published(dir_ / "record.json"))[0].provenance->flushes_l2);
  const std::string text = R"({"repository": "r/r", "path": "p.csv", "commit": "c", )"
                           R"("software": "s", "flop_convention": "f", "l2_flushed": "yes"})";
  EXPECT_NE(error_for(text, "").find("/origins/o/l2_flushed: expected true"), std::string::npos);
}

// A figure's sliding window becomes its shape's window: positive, with the causal mask, given once.
TEST_F(MalformedRecord, ASlidingWindowBecomesTheShapesWindow) {
  EXPECT_NE(error_for(kOrigin, R"(, "sliding_window": 0)").find("positive"), std::string::npos);
  EXPECT_NE(error_for(kOrigin, R"(, "sliding_window": 128)").find("needs the causal mask"),
            std::string::npos);
  const fs::path file = dir_ / "record.json";
  std::ofstream(file) << R"({"source": "published:test", "citation": "test", "origins": {"o": )"
                      << kOrigin << R"(}, "figures": [{"gpu": "b200", "kernel": "cudnn", )"
                      << R"("pass": "fwd", "shape": {"batch": 1, "heads": 8, "seqlen": 1024, )"
                      << R"("headdim": 128, "causal": true}, "tflops": 100, "origin": "o", )"
                      << R"("role": "fit", "sliding_window": 128}]})";
  auto figures = load_published(file);
  ASSERT_TRUE(figures.ok()) << figures.error().message;
  EXPECT_EQ((*figures)[0].shape.window, 128);
}

// A figure left out of the error bounds names one of its file's reasons; the reason is kept, and
// the figure is still held out (its role does not change).
TEST_F(MalformedRecord, AFigureOutsideTheBoundsNamesItsFilesReason) {
  EXPECT_NE(error_for(kOrigin, R"(, "outside_bounds": "why")").find("/figures/0/outside_bounds"),
            std::string::npos);
  const fs::path file = dir_ / "record.json";
  std::ofstream(file) << R"({"source": "published:test", "citation": "test", )"
                      << R"("outside_bounds_reasons": {"why": "a reason"}, "figures": [)"
                      << R"({"gpu": "b200", "kernel": "cudnn", "pass": "fwd", "shape": )"
                      << R"({"batch": 1, "heads": 8, "seqlen": 1024, "headdim": 128}, )"
                      << R"("tflops": 100, "role": "held_out", "outside_bounds": "why"}]})";
  auto figures = load_published(file);
  ASSERT_TRUE(figures.ok()) << figures.error().message;
  EXPECT_EQ((*figures)[0].outside_bounds, "a reason");
  EXPECT_TRUE(held_out((*figures)[0]));
  EXPECT_FALSE(within_bounds((*figures)[0]));
  std::ofstream(file) << R"({"source": "s", "citation": "c", "outside_bounds_reasons": )"
                      << R"({"why": ""}, "figures": []})";
  EXPECT_FALSE(load_published(file).ok());
}

}  // namespace
}  // namespace fa4::report
