// Shapes read back from the store with their serving fields: a paged, ragged or split variant of
// a measured shape is a row of its own, named by its fields, and kept off the lines the charts
// draw through the plain shapes.
#include <gtest/gtest.h>

#include "report/chart.hpp"
#include "report/findings.hpp"
#include "report/sections.hpp"
#include "report_inputs.hpp"

namespace fa4::report {
namespace {

using testing::measurement;

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

const std::string kDevice = "NVIDIA H200";

store::MeasurementRow paged(store::MeasurementRow m, std::int64_t page_size) {
  m.shape.page_size = page_size;
  return m;
}

store::MeasurementRow ragged(store::MeasurementRow m) {
  m.shape.seqlens_k.assign(std::size_t(m.shape.batch), 100);
  m.shape.seqlens_k.front() = m.shape.seqlen_k;
  return m;
}

class ServingRows : public ::testing::Test {
 protected:
  ReportInputs inputs(std::vector<store::MeasurementRow> rows) {
    ReportInputs in;
    in.gpus = testing::real_specs();
    in.measurements = std::move(rows);
    return in;
  }
  ReportCharts charts{"c", ""};
};

TEST_F(ServingRows, TheMeasuredTableListsEachVariantUnderItsFields) {
  const std::string s =
      measured_section(inputs({measurement(kDevice, "fa2", "ours", 1024, 300),
                               measurement(kDevice, "fa2", "ours", 8192, 360),
                               paged(measurement(kDevice, "fa2", "ours", 8192, 340), 16),
                               ragged(measurement(kDevice, "fa2", "ours", 8192, 90)),
                               measurement(kDevice, "sdpa_cudnn", "peer:torch-cudnn", 1024, 400),
                               measurement(kDevice, "sdpa_cudnn", "peer:torch-cudnn", 8192, 480)}),
                       charts);
  EXPECT_TRUE(contains(s, "| 8192 | 4 | 16 | 360 | 480 |")) << s;
  EXPECT_TRUE(contains(s, "| 8192 paged16 | 4 | 16 | 340 | — |")) << s;
  EXPECT_TRUE(contains(s, "| 8192 ragged100-8192(sum 8492) | 4 | 16 | 90 | — |")) << s;
  // fa2's line runs through the two plain shapes only.
  ASSERT_EQ(charts.figures().size(), 1u);
  const Series& fa2 = charts.figures()[0].panels.at(0).series.at(0);
  ASSERT_EQ(fa2.name, "fa2");
  ASSERT_EQ(fa2.points.size(), 2u);
  EXPECT_EQ(fa2.points[1].y, 360);
}

TEST_F(ServingRows, TheLadderListsAPagedShapeBesideThePlainOne) {
  auto rows = testing::sample_measurements();  // naive and fa2 at s1024 and s8192
  rows.push_back(paged(measurement(kDevice, "fa2", "ours", 8192, 200), 64));
  const std::string s = ladder_subsection(inputs(rows), charts);
  EXPECT_TRUE(contains(s, "| 8192 paged64 | 4 | 16 | — | — | 200 |")) << s;
  EXPECT_TRUE(contains(s, "| 8192 | 4 | 16 | 45 | 66 | 371 | 392 |")) << s;
}

// The peer standing compares ours with a peer at the same problem only: a paged measurement of
// ours is not set against the peer's contiguous one.
TEST_F(ServingRows, APeerStandingPairsOnlyTheSameProblem) {
  const auto standings =
      peer_standings({paged(measurement(kDevice, "fa2", "ours", 8192, 100), 16),
                      measurement(kDevice, "fa2", "ours", 1024, 300),
                      measurement(kDevice, "sdpa_cudnn", "peer:torch-cudnn", 8192, 400),
                      measurement(kDevice, "sdpa_cudnn", "peer:torch-cudnn", 1024, 400)});
  ASSERT_EQ(standings.size(), 1u);
  EXPECT_EQ(standings[0].shapes, 1);
  EXPECT_DOUBLE_EQ(standings[0].median, 0.75);
}

}  // namespace
}  // namespace fa4::report
