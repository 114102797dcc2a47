// The serving section and the roofline's decode points, from the measured H200 decode runs
// (decode_fixture.hpp): what the section says and draws, checked against the raw figures; the
// roofline's decode sentence against the points its chart draws; and the section's markdown and
// chart against tests/report/data/golden-serving.md and golden-serving/ (rewrite them with
// FA4_UPDATE_GOLDEN=1 ./report_tests and review the diff).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "decode_fixture.hpp"
#include "hw/loader.hpp"
#include "report/chart.hpp"
#include "report/decode_model.hpp"
#include "report/roofline.hpp"
#include "report/sections.hpp"
#include "report_inputs.hpp"

namespace fa4::report {
namespace {

using testing::decode_inputs;
using testing::decode_shape;

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

const Panel* panel_titled(const Figure& f, const std::string& title) {
  for (const Panel& p : f.panels)
    if (p.title == title) return &p;
  return nullptr;
}

const Series* series_named(const Panel& p, const std::string& name) {
  for (const Series& s : p.series)
    if (s.name == name) return &s;
  return nullptr;
}

double y_at(const Series& s, double x) {
  for (const ChartPoint& p : s.points)
    if (p.x == x) return p.y;
  ADD_FAILURE() << s.name << " has no point at " << x;
  return 0;
}

double kv_tb_s(const AttnShape& s, double seconds) {
  return attention_min_hbm_bytes(s, Pass::fwd) / seconds / 1e12;
}

const hw::Spec& h200() {
  static const auto specs = testing::real_specs();
  return **hw::find_spec(specs, "h200");
}

class ServingSection : public ::testing::Test {
 protected:
  ReportCharts charts{"golden-serving", ""};
};

TEST_F(ServingSection, WithoutDecodeRunsItSaysSoInOneLine) {
  ReportInputs in;
  in.gpus = testing::real_specs();
  in.measurements = testing::sample_measurements();  // prefill only
  const std::string s = serving_section(in, charts);
  EXPECT_EQ(s, heading(Section::serving) +
                   "No decode run is in the results (forward, at most 16 query rows per sequence, "
                   "fewer than its keys): `fa4-analyze bench --kernel fa3_decode --sweep "
                   "data/sweeps/decode.json --peers` on a Hopper GPU records them.\n\n");
  EXPECT_TRUE(charts.figures().empty());
}

TEST_F(ServingSection, ChartsOursThePeersTheModelAndTheMeasuredCeilingsPerBatch) {
  const std::string s = serving_section(decode_inputs(), charts);
  ASSERT_EQ(charts.figures().size(), 1u) << s;
  const Figure& f = charts.figures()[0];
  EXPECT_EQ(f.name, "serving-nvidia-h200");
  std::vector<std::string> titles;
  for (const Panel& p : f.panels) titles.push_back(p.title);
  EXPECT_EQ(titles,
            (std::vector<std::string>{"batch 1", "batch 8", "batch 32", "batch 64", "batch 128"}));
  const Panel& b8 = *panel_titled(f, "batch 8");
  // b8 at 32k: run 10, ours 268.2 us, cuDNN 256.0 us and flash 259.5 us in the same call.
  const AttnShape b8_32k = decode_shape(8, 1, 32768);
  EXPECT_DOUBLE_EQ(y_at(*series_named(b8, "fa3_decode"), 32768), kv_tb_s(b8_32k, 268.2e-6));
  EXPECT_DOUBLE_EQ(y_at(*series_named(b8, "sdpa_cudnn"), 32768), kv_tb_s(b8_32k, 256.0e-6));
  EXPECT_DOUBLE_EQ(y_at(*series_named(b8, "sdpa_flash"), 32768), kv_tb_s(b8_32k, 259.5e-6));
  // The model's line is its prediction of fa3_decode over the same bytes.
  const auto p = predict_our_decode(h200(), "fa3_decode", b8_32k);
  ASSERT_TRUE(p);
  EXPECT_DOUBLE_EQ(y_at(*series_named(b8, "fa3_decode (model)"), 32768),
                   kv_tb_s(b8_32k, p->time_s));
  // The ceilings as flat lines at their measured values.
  const Series* read = series_named(b8, "HBM read 4.46 TB/s (measured)");
  const Series* copy = series_named(b8, "HBM copy 3.83 TB/s (measured)");
  ASSERT_TRUE(read && copy);
  for (const ChartPoint& c : read->points) EXPECT_EQ(c.y, 4.46);
  for (const ChartPoint& c : copy->points) EXPECT_EQ(c.y, 3.83);
  // Batch 64 and 128 have only the peers measured, and the model's prediction of ours.
  const Panel& b64 = *panel_titled(f, "batch 64");
  EXPECT_FALSE(series_named(b64, "fa3_decode"));
  EXPECT_TRUE(series_named(b64, "sdpa_cudnn"));
  EXPECT_TRUE(series_named(b64, "fa3_decode (model)"));
  // Every panel shares one y range, from 0 over the highest figure.
  for (const Panel& q : f.panels) {
    EXPECT_EQ(q.y.min, 0.0);
    EXPECT_EQ(q.y.max, f.panels[0].y.max);
  }
  EXPECT_TRUE(contains(f.caption, "hbm_read 4.46 TB/s (run 10, 2026-12-02)")) << f.caption;
}

TEST_F(ServingSection, SummarisesOursAgainstCudnnFromTheSameFigures) {
  const std::string s = serving_section(decode_inputs(), charts);
  // Over the problems both measured: the raw figures' worst and best ratio, computed here.
  double worst = 1e9, best = 0;
  int shapes = 0;
  const auto rows = testing::decode_measurements();
  for (const auto& ours : rows) {
    if (ours.kernel != "fa3_decode" || !is_decode(ours.shape)) continue;
    for (const auto& peer : rows)
      if (peer.kernel == "sdpa_cudnn" && peer.shape == ours.shape) {
        worst = std::min(worst, peer.median_s / ours.median_s);
        best = std::max(best, peer.median_s / ours.median_s);
        ++shapes;
      }
  }
  ASSERT_GT(shapes, 10);
  EXPECT_TRUE(contains(s, fmt::format("`fa3_decode` against cuDNN (`sdpa_cudnn`), cuDNN's time "
                                      "over ours on the same problem: {:.2f}x (",
                                      worst)))
      << s;
  EXPECT_TRUE(contains(s, fmt::format(") to {:.2f}x (", best))) << s;
  EXPECT_TRUE(contains(s, fmt::format("over {} shapes", shapes))) << s;
  // Speculative rows beat cuDNN several times over (run 4): the best ratio is one of them.
  EXPECT_GT(best, 4.0);
  EXPECT_TRUE(contains(s, "of the measured hbm_read ceiling (4.46 TB/s)")) << s;
}

TEST_F(ServingSection, PagedAgainstContiguousAndRaggedAgainstPadded) {
  const std::string s = serving_section(decode_inputs(), charts);
  // b8 at 128k: run 5, contiguous 993 us, page 16 1038 us, page 64 1016 us, page 256 1002 us.
  const AttnShape b8 = decode_shape(8, 1, 131072);
  EXPECT_TRUE(contains(
      s, fmt::format("| fa3_decode | 32/8 | 8 | 131072 | {:.2f} | {:.2f} ({:.2f}x) | {:.2f} "
                     "({:.2f}x) | {:.2f} ({:.2f}x) |",
                     kv_tb_s(b8, 993e-6), kv_tb_s(b8, 1038e-6), 993.0 / 1038, kv_tb_s(b8, 1016e-6),
                     993.0 / 1016, kv_tb_s(b8, 1002e-6), 993.0 / 1002)))
      << s;
  // The ragged batch of data/sweeps/decode.json on 16-token pages: run 10's 57.0 us against run
  // 5's padded batch, 146 us (another run: marked); 21356 keys of 16 x 8192.
  EXPECT_TRUE(contains(s,
                       "| fa3_decode | b16 h32/8 s1x8192 d128 bf16 paged16 "
                       "ragged1-8192(sum 21356) | 57 | 146 | 2.56x † | 6.14x |"))
      << s;
  EXPECT_TRUE(contains(s, "† The two figures come from different runs")) << s;
}

TEST_F(ServingSection, NoTableCellIsLongerThan300Characters) {
  const std::string s = serving_section(decode_inputs(), charts);
  std::istringstream lines(s);
  for (std::string line; std::getline(lines, line);) {
    if (!line.starts_with("|")) continue;
    std::stringstream cells(line);
    for (std::string cell; std::getline(cells, cell, '|');) EXPECT_LE(cell.size(), 300u) << line;
  }
}

// The roofline's decode points: ours at the bytes the model counts, on the HBM slope, and the
// sentence under the chart giving the numbers the chart draws.
TEST(RooflineDecode, PointsSitOnTheSlopeAndTheSentenceReadsTheirBandwidth) {
  const ReportInputs in = decode_inputs();
  ReportCharts charts{"c", ""};
  const std::string s = roofline_section(in, charts);
  const Figure* h200_chart = nullptr;
  for (const Figure& f : charts.figures())
    if (f.name == "roofline-h200") h200_chart = &f;
  ASSERT_TRUE(h200_chart);
  const Panel& panel = h200_chart->panels.at(0);
  const Series* ours_model = series_named(panel, "fa3_decode (model)");
  ASSERT_TRUE(ours_model);
  ASSERT_EQ(ours_model->points.size(), 1u);
  const double tb_s = ours_model->points[0].y / ours_model->points[0].x;
  EXPECT_GT(tb_s, 0.85 * h200().hbm_bytes_per_s / 1e12) << "on the HBM slope";
  EXPECT_TRUE(contains(s, fmt::format("our decode kernel fa3_decode (each KV head's query heads "
                                      "packed in one tile) at {:.2f} TB/s, {:.0f}% of the 4.80 "
                                      "TB/s HBM slope",
                                      tb_s, 100 * tb_s / 4.8)))
      << s;
  EXPECT_TRUE(series_named(panel, "HBM read 4.46 TB/s (measured)"));
  // The measured fa3_decode points, their range as the sentence gives it; b8 at 32k is split in two
  // parts per row block and writes partials, so its x counts fewer FLOPs per byte than the fewest
  // bytes would give.
  const Series* measured = series_named(panel, "fa3_decode (ours)");
  ASSERT_TRUE(measured);
  double lo = 1e9, hi = 0;
  for (const ChartPoint& p : measured->points) {
    lo = std::min(lo, p.y / p.x);
    hi = std::max(hi, p.y / p.x);
  }
  EXPECT_TRUE(contains(s, fmt::format("fa3_decode (ours) {:.2f}-{:.2f} TB/s over", lo, hi))) << s;
  store::MeasurementRow m = in.measurements.front();
  m.kernel = "fa3_decode";
  m.shape = decode_shape(8, 1, 32768);
  const double fewest =
      attention_flops(m.shape, Pass::fwd) / attention_min_hbm_bytes(m.shape, Pass::fwd);
  EXPECT_LT(measured_point(m, &h200()).intensity, fewest);
  m.shape = decode_shape(64, 1, 8192);  // whole row blocks: no partials
  EXPECT_DOUBLE_EQ(
      measured_point(m, &h200()).intensity,
      attention_flops(m.shape, Pass::fwd) / attention_min_hbm_bytes(m.shape, Pass::fwd));
  // Off Hopper the model prices no decode kernel, and the sentence says so instead.
  EXPECT_TRUE(contains(s, "the model prices no decode kernel on b200")) << s;
  EXPECT_FALSE(contains(s, "decode sits on the HBM slope"));
}

// The section's markdown and chart files, pinned, and the H200 roofline with the decode runs.
TEST(ServingGolden, MatchesTheGoldenFiles) {
  ReportCharts charts{"golden-serving", ""};
  const std::string md = serving_section(decode_inputs(), charts);
  ReportCharts rooflines{"golden-serving", ""};
  const std::string roofline_md = roofline_section(decode_inputs(), rooflines);
  for (const Figure& f : rooflines.figures())
    if (f.name == "roofline-h200") charts.embed(f);
  const std::filesystem::path dir = FA4_TEST_DATA_DIR;
  const char* update = std::getenv("FA4_UPDATE_GOLDEN");
  std::vector<std::pair<std::filesystem::path, std::string>> files = {
      {dir / "golden-serving.md", md}, {dir / "golden-serving-roofline.md", roofline_md}};
  for (const Figure& f : charts.figures()) {
    const FigureFiles ff = gnuplot_files(f);
    files.push_back({dir / "golden-serving" / (f.name + ".gp"), ff.script});
    files.push_back({dir / "golden-serving" / (f.name + ".dat"), ff.data});
  }
  for (const auto& [path, text] : files) {
    if (update && std::string(update) == "1") {
      std::filesystem::create_directories(path.parent_path());
      std::ofstream(path, std::ios::binary) << text;
      continue;
    }
    std::ifstream in(path, std::ios::binary);
    std::stringstream golden;
    golden << in.rdbuf();
    EXPECT_EQ(text, golden.str()) << path
                                  << " differs: if intended, rerun with FA4_UPDATE_GOLDEN=1";
  }
}

}  // namespace
}  // namespace fa4::report
