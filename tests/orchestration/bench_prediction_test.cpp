// bench's record path without the GPU: every kernel of the table, measured ok, gets its model
// configuration's prediction recorded in the run and linked from its measurement; a failed
// measurement, an unknown GPU or a shape the model refuses get none.
#include "orchestration/bench_prediction.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "lab_shapes.hpp"
#include "orchestration/kernel_models.hpp"

namespace fa4::orchestration {
namespace {

using testing::tokens_16k;

class BenchPrediction : public ::testing::Test {
 protected:
  void SetUp() override {
    auto opened = store::Store::open(":memory:");
    ASSERT_TRUE(opened.ok()) << opened.error().message;
    db_.emplace(std::move(opened).value());
    store::RunInfo info;
    info.kind = store::RunKind::bench;
    info.device = "NVIDIA H200";
    auto run = db_->begin_run(info);
    ASSERT_TRUE(run.ok()) << run.error().message;
    run_id_ = *run;
  }

  // A measurement as the harness returns it: ok, three samples.
  static store::Measurement measured(std::string_view kernel, const AttnShape& shape) {
    store::Measurement m;
    m.kernel = std::string(kernel);
    m.shape = shape;
    m.device = "NVIDIA H200";
    m.median_s = m.p25_s = m.p75_s = m.min_s = m.max_s = 1e-3;
    m.samples_s = {1e-3, 1e-3, 1e-3};
    m.tflops = attention_flops(shape, Pass::fwd) / 1e-3 / 1e12;
    return m;
  }

  store::Value cell(const std::string& sql) const {
    auto table = db_->query(sql);
    if (!table) throw std::runtime_error(table.error().message);
    return table->rows.at(0).at(0);
  }
  std::int64_t integer(const std::string& sql) const { return std::get<std::int64_t>(cell(sql)); }

  std::optional<store::Store> db_;
  std::int64_t run_id_ = 0;
};

TEST_F(BenchPrediction, EveryKernelMeasuredOkIsRecordedBesideItsPrediction) {
  const hw::Spec& h200 = testing::gpu("h200");
  const AttnShape shape = tokens_16k(128, 8192);
  for (const KernelModel& k : kernel_models()) {
    store::Measurement m = measured(k.kernel, shape);
    ASSERT_TRUE(link_prediction(*db_, run_id_, &h200, k.kernel, shape, m).ok()) << k.kernel;
    ASSERT_TRUE(m.prediction_id.has_value()) << k.kernel;
    const auto id = db_->record_measurement(run_id_, m);
    ASSERT_TRUE(id.ok()) << id.error().message;
    const model::Options o = model_options(k, shape);
    const auto row = db_->query(fmt::format(
        "SELECT m.predicted_gpu, m.predicted_algorithm, p.pass, p.tile_n, p.exp_emulation, "
        "p.conditional_rescale, m.predicted_tflops FROM v_measurements m JOIN predictions p ON "
        "p.id = m.prediction_id WHERE m.id = {} AND p.run_id = {}",
        *id, run_id_));
    ASSERT_TRUE(row.ok() && row->rows.size() == 1) << k.kernel;
    const auto& r = row->rows[0];
    EXPECT_EQ(std::get<std::string>(r[0]), "h200") << k.kernel;
    EXPECT_EQ(std::get<std::string>(r[1]), model::to_string(k.algorithm)) << k.kernel;
    EXPECT_EQ(std::get<std::string>(r[2]), to_string(k.pass)) << k.kernel;
    if (o.tile) {
      EXPECT_EQ(std::get<std::int64_t>(r[3]), o.tile->n) << k.kernel;
    }
    EXPECT_EQ(std::get<double>(r[4]), o.exp_emulation.value_or(0)) << k.kernel;
    EXPECT_EQ(std::get<std::int64_t>(r[5]), std::int64_t{o.conditional_rescale.value_or(false)})
        << k.kernel;
    EXPECT_GT(std::get<double>(r[6]), 0) << k.kernel;
  }
  const auto kernels = std::int64_t(kernel_models().size());
  EXPECT_EQ(integer("SELECT COUNT(*) FROM predictions"), kernels);
  EXPECT_EQ(integer("SELECT COUNT(*) FROM measurements WHERE prediction_id IS NOT NULL"), kernels);
}

TEST_F(BenchPrediction, AMeasurementThatIsNotOkGetsNoPrediction) {
  const AttnShape shape = tokens_16k(128, 8192);
  for (auto status : {store::MeasurementStatus::failed, store::MeasurementStatus::skipped}) {
    store::Measurement m = measured("fa3", shape);
    m.status = status;
    ASSERT_TRUE(link_prediction(*db_, run_id_, &testing::gpu("h200"), "fa3", shape, m).ok());
    EXPECT_FALSE(m.prediction_id.has_value());
  }
  EXPECT_EQ(integer("SELECT COUNT(*) FROM predictions"), 0);
}

TEST_F(BenchPrediction, NoHardwareModelOrAShapeTheModelRefusesLeavesItUnlinked) {
  const AttnShape shape = tokens_16k(128, 8192);
  store::Measurement m = measured("fa3", shape);
  ASSERT_TRUE(link_prediction(*db_, run_id_, nullptr, "fa3", shape, m).ok());
  EXPECT_FALSE(m.prediction_id.has_value());
  // naive keeps S and P in HBM: 2^20 tokens of 16 heads need terabytes, more than an H200 has.
  AttnShape huge = shape;
  huge.batch = 1;
  huge.heads_q = huge.heads_kv = 16;
  huge.seqlen_q = huge.seqlen_k = std::int64_t{1} << 20;
  model::Options naive;
  naive.algorithm = model::Algorithm::naive;
  ASSERT_FALSE(model::predict(testing::gpu("h200"), huge, naive).ok());
  m = measured("naive", huge);
  ASSERT_TRUE(link_prediction(*db_, run_id_, &testing::gpu("h200"), "naive", huge, m).ok());
  EXPECT_FALSE(m.prediction_id.has_value());
  EXPECT_EQ(integer("SELECT COUNT(*) FROM predictions"), 0);
}

TEST_F(BenchPrediction, AKernelWithoutAModelConfigurationIsAnError) {
  const AttnShape shape = tokens_16k(128, 8192);
  store::Measurement m = measured("fa5", shape);
  const Status linked = link_prediction(*db_, run_id_, &testing::gpu("h200"), "fa5", shape, m);
  ASSERT_FALSE(linked.ok());
  EXPECT_NE(linked.error().message.find("kernel_models.cpp"), std::string::npos);
  EXPECT_FALSE(m.prediction_id.has_value());
  EXPECT_EQ(integer("SELECT COUNT(*) FROM predictions"), 0);
}

// A report shows the current model beside a stored measurement: the prediction stored on the day
// it was measured is replaced for our kernels, peers keep theirs, and a kernel or hardware model
// the current tree no longer knows gets none.
TEST(PredictAgain, OurMeasurementsGetTheCurrentModelsPredictionPeersKeepTheirs) {
  const hw::Spec& h200 = testing::gpu("h200");
  const AttnShape shape = tokens_16k(128, 8192);
  const auto row = [&](std::string kernel, std::string source, std::string gpu) {
    store::MeasurementRow m;
    m.kernel = std::move(kernel);
    m.source = std::move(source);
    m.predicted_gpu = std::move(gpu);
    m.shape = shape;
    m.pass = Pass::bwd;
    m.tflops = 400;
    m.predicted_tflops = 1;  // the stale prediction
    return m;
  };
  std::vector<store::MeasurementRow> rows = {
      row("fa3_bwd", std::string(store::kOurSource), "h200"),
      row("sdpa_cudnn", "peer:torch-cudnn", "h200"),
      row("a_kernel_since_removed", std::string(store::kOurSource), "h200"),
      row("fa3_bwd", std::string(store::kOurSource), "a_gpu_model_since_removed")};
  predict_again(rows, {h200});
  const auto current = predict_kernel(h200, "fa3_bwd", shape);
  ASSERT_TRUE(current.ok()) << current.error().message;
  EXPECT_DOUBLE_EQ(rows[0].predicted_tflops, current->tflops);
  EXPECT_GT(rows[0].predicted_tflops, 100);
  EXPECT_EQ(rows[1].predicted_tflops, 1);
  EXPECT_EQ(rows[2].predicted_tflops, 0);
  EXPECT_EQ(rows[3].predicted_tflops, 0);
}

}  // namespace
}  // namespace fa4::orchestration
