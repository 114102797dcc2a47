// The bench sweep loop without a GPU: a fake measuring function, a real results database. Each
// measurement is committed before the next starts; a stop flag (or SIGINT) ends the sweep between
// configurations; SIGKILL mid-way keeps every committed row intact; --resume skips them.
#include "orchestration/sweep_loop.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <thread>

#include "orchestration/stop_signal.hpp"
#include "store/sqlite.hpp"

namespace fa4::orchestration {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

constexpr const char* kDevice = "NVIDIA H200";

class SweepLoop : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("fa4-sweep-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
    path_ = (dir_ / "results.db").string();
  }
  void TearDown() override { fs::remove_all(dir_); }

  store::Store open() {
    auto db = store::Store::open(path_);
    if (!db) throw std::runtime_error(db.error().message);
    return std::move(db).value();
  }
  std::int64_t begin_run(store::Store& db) {
    store::RunInfo info;
    info.kind = store::RunKind::bench;
    info.revision = "test";
    info.host = "test";
    info.command_line = "fa4-analyze bench";
    auto id = db.begin_run(info);
    if (!id) throw std::runtime_error(id.error().message);
    return *id;
  }
  // One cell of a query on a separate plain connection, as another process would see it.
  std::string cell(const std::string& sql) {
    store::Db db = store::open_db(path_, SQLITE_OPEN_READONLY).value();
    auto statement = store::Statement::prepare(db.get(), sql);
    if (!statement || !statement->step().value()) return "";
    return statement->column_text(0);
  }

  fs::path dir_;
  std::string path_;
};

// 512, 1024, 1536, ... x 2 kernels, shapes outermost.
std::vector<SweepConfig> small_sweep(int seqlens = 4) {
  std::vector<AttnShape> shapes;
  for (int i = 0; i < seqlens; ++i) {
    AttnShape s;
    s.seqlen_q = s.seqlen_k = 512 * (i + 1);
    shapes.push_back(s);
  }
  return sweep_configs(shapes, {"naive", "fa2"});
}

// A measurement whose every figure derives from `index`, so a row can be checked later.
store::Measurement fake(std::size_t index) {
  store::Measurement m;
  const double t = 1e-3 * double(index + 1);
  m.median_s = t;
  m.p25_s = 0.9 * t;
  m.p75_s = 1.1 * t;
  m.min_s = 0.8 * t;
  m.max_s = 1.2 * t;
  m.tflops = 100.0 + double(index);
  m.samples_s.assign(index % 5 + 1, t);
  return m;
}

TEST_F(SweepLoop, CommitsEveryConfigurationInOrder) {
  store::Store db = open();
  const auto run = begin_run(db);
  const auto configs = small_sweep();
  std::vector<std::string> seen;
  const auto summary = run_sweep(
      db, configs, {.run_id = run, .device = kDevice}, [&](const SweepConfig& c, std::size_t i) {
        // Everything before this configuration is already committed, visible to other processes.
        EXPECT_EQ(cell("SELECT COUNT(*) FROM measurements"), std::to_string(i));
        seen.push_back(c.kernel);
        return fake(i);
      });
  ASSERT_TRUE(summary.ok()) << summary.error().message;
  EXPECT_EQ(summary->total, 8u);
  EXPECT_EQ(summary->recorded, 8u);
  EXPECT_FALSE(summary->stopped);
  EXPECT_THAT(
      seen, ::testing::ElementsAre("naive", "fa2", "naive", "fa2", "naive", "fa2", "naive", "fa2"));
  EXPECT_EQ(cell("SELECT COUNT(*) FROM samples"), "21");  // 1+2+3+4+5+1+2+3
  EXPECT_EQ(cell("SELECT device || ' ' || kernel || ' ' || seqlen_q FROM measurements "
                 "ORDER BY id DESC LIMIT 1"),
            "NVIDIA H200 fa2 2048");
}

TEST_F(SweepLoop, AStopFlagEndsTheSweepAfterTheCurrentConfiguration) {
  store::Store db = open();
  const auto run = begin_run(db);
  std::atomic<bool> stop{false};
  const auto summary =
      run_sweep(db, small_sweep(), {.run_id = run, .device = kDevice, .stop = &stop},
                [&](const SweepConfig&, std::size_t i) {
                  if (i == 2) stop = true;  // arrives while measuring the third
                  return fake(i);
                });
  ASSERT_TRUE(summary.ok());
  EXPECT_TRUE(summary->stopped);
  EXPECT_EQ(summary->recorded, 3u);
  EXPECT_EQ(summary->remaining(), 5u);
  EXPECT_EQ(cell("SELECT COUNT(*) FROM measurements"), "3");
  EXPECT_EQ(describe_stop(*summary, run, "r.db", "SIGINT"),
            "stopped by SIGINT after 3 of 8 configurations: 3 recorded in run 1 of r.db; 5 not "
            "measured: run the same command with --resume to measure them");
}

TEST_F(SweepLoop, SigintStopsCleanlyAndTheOldHandlerComesBack) {
  struct sigaction before {};
  sigaction(SIGINT, nullptr, &before);
  store::Store db = open();
  const auto run = begin_run(db);
  std::optional<SweepSummary> summary;
  int signal_seen = 0;
  {
    const StopOnSignal stop;
    summary =
        run_sweep(db, small_sweep(), {.run_id = run, .device = kDevice, .stop = &stop.requested()},
                  [&](const SweepConfig&, std::size_t i) {
                    if (i == 4) std::raise(SIGINT);  // Ctrl-C during the fifth
                    return fake(i);
                  })
            .value();
    signal_seen = stop.signal_number();
  }
  EXPECT_EQ(signal_seen, SIGINT);
  EXPECT_TRUE(summary->stopped);
  EXPECT_EQ(summary->recorded, 5u);
  EXPECT_EQ(cell("SELECT COUNT(*) FROM measurements"), "5");
  struct sigaction after {};
  sigaction(SIGINT, nullptr, &after);
  EXPECT_EQ(after.sa_handler, before.sa_handler);
}

TEST_F(SweepLoop, SigkillMidwayKeepsEveryCommittedRowAndResumeFinishesTheRest) {
  const auto configs = small_sweep(40);  // 80 configurations, 20 ms each: far from done when killed
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    store::Store db = open();
    const auto run = begin_run(db);
    (void)run_sweep(db, configs, {.run_id = run, .device = kDevice},
                    [](const SweepConfig&, std::size_t i) {
                      std::this_thread::sleep_for(std::chrono::milliseconds(20));
                      return fake(i);
                    });
    ::_exit(0);
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (std::chrono::steady_clock::now() < deadline &&
         (!fs::exists(path_) || std::atoi(cell("SELECT COUNT(*) FROM measurements").c_str()) < 10))
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  ::kill(child, SIGKILL);
  int status = 0;
  ::waitpid(child, &status, 0);
  ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) << "the sweep finished first";

  EXPECT_EQ(cell("PRAGMA integrity_check"), "ok");
  const int committed = std::atoi(cell("SELECT COUNT(*) FROM measurements").c_str());
  ASSERT_GE(committed, 10);
  ASSERT_LT(committed, 80);
  // Every committed row is whole: its figures and all its samples, as measured.
  for (int i = 0; i < committed; ++i) {
    const store::Measurement m = fake(static_cast<std::size_t>(i));
    const std::string where = " WHERE id = " + std::to_string(i + 1);
    EXPECT_EQ(cell("SELECT kernel FROM measurements" + where), configs[i].kernel);
    EXPECT_EQ(cell("SELECT seqlen_q FROM measurements" + where),
              std::to_string(configs[i].shape.seqlen_q));
    EXPECT_DOUBLE_EQ(std::stod(cell("SELECT time_median_s FROM measurements" + where)), m.median_s);
    EXPECT_EQ(cell("SELECT COUNT(*) FROM samples WHERE measurement_id = " + std::to_string(i + 1)),
              std::to_string(m.samples_s.size()));
  }

  // --resume: a new run measures only what is missing.
  store::Store db = open();
  const auto run = begin_run(db);
  std::size_t measured = 0;
  const auto summary = run_sweep(db, configs, {.run_id = run, .device = kDevice, .resume = true},
                                 [&](const SweepConfig&, std::size_t i) {
                                   ++measured;
                                   return fake(i);
                                 });
  ASSERT_TRUE(summary.ok()) << summary.error().message;
  EXPECT_EQ(summary->resumed, static_cast<std::size_t>(committed));
  EXPECT_EQ(measured, 80u - static_cast<std::size_t>(committed));
  EXPECT_EQ(cell("SELECT COUNT(*) FROM measurements"), "80");
  EXPECT_EQ(cell("SELECT COUNT(*) FROM (SELECT DISTINCT kernel, seqlen_q FROM measurements)"),
            "80");
  EXPECT_EQ(cell("PRAGMA integrity_check"), "ok");
}

TEST_F(SweepLoop, ResumeMeasuresFailedOnesAgainAndOnlyCountsThisDevice) {
  store::Store db = open();
  const auto configs = small_sweep(1);  // naive, fa2
  const auto first = begin_run(db);
  ASSERT_TRUE(run_sweep(db, configs, {.run_id = first, .device = kDevice},
                        [](const SweepConfig& c, std::size_t i) {
                          store::Measurement m = fake(i);
                          if (c.kernel == "fa2") {
                            m = {};
                            m.status = store::MeasurementStatus::failed;
                            m.reason = "max error 0.5 above the tolerance";
                          }
                          return m;
                        })
                  .ok());
  const auto second = begin_run(db);
  std::vector<std::string> measured;
  auto measure = [&](const SweepConfig& c, std::size_t i) {
    measured.push_back(c.kernel);
    return fake(i);
  };
  auto summary =
      run_sweep(db, configs, {.run_id = second, .device = kDevice, .resume = true}, measure);
  EXPECT_EQ(summary->resumed, 1u);
  EXPECT_THAT(measured, ::testing::ElementsAre("fa2"));
  measured.clear();
  summary =
      run_sweep(db, configs, {.run_id = second, .device = "NVIDIA H100", .resume = true}, measure);
  EXPECT_EQ(summary->resumed, 0u);
  EXPECT_THAT(measured, ::testing::ElementsAre("naive", "fa2"));
}

// A measurement's identity includes its pass: a backward sweep records pass bwd and --resume
// does not take a forward measurement of the same kernel name and shape for it.
TEST_F(SweepLoop, ThePassIsRecordedAndPartOfWhatResumeMatches) {
  store::Store db = open();
  AttnShape shape;
  shape.seqlen_q = shape.seqlen_k = 512;
  const auto forward = sweep_configs({shape}, {"k"}, Pass::fwd);
  const auto backward = sweep_configs({shape}, {"k"}, Pass::bwd);
  ASSERT_EQ(backward.at(0).pass, Pass::bwd);
  const auto first = begin_run(db);
  ASSERT_TRUE(run_sweep(db, forward, {.run_id = first, .device = kDevice},
                        [](const SweepConfig&, std::size_t i) { return fake(i); })
                  .ok());
  const auto second = begin_run(db);
  std::size_t measured = 0;
  auto measure = [&](const SweepConfig&, std::size_t i) {
    ++measured;
    return fake(i);
  };
  auto summary =
      run_sweep(db, backward, {.run_id = second, .device = kDevice, .resume = true}, measure);
  ASSERT_TRUE(summary.ok()) << summary.error().message;
  EXPECT_EQ(summary->resumed, 0u);
  EXPECT_EQ(measured, 1u);
  EXPECT_EQ(cell("SELECT group_concat(pass, ',') FROM (SELECT pass FROM measurements ORDER BY id)"),
            "fwd,bwd");
  summary = run_sweep(db, backward, {.run_id = second, .device = kDevice, .resume = true}, measure);
  EXPECT_EQ(summary->resumed, 1u);
  EXPECT_EQ(measured, 1u);
}

TEST_F(SweepLoop, ADatabaseErrorStopsTheSweepAndSaysHowFarItGot) {
  store::Store db = open();
  const auto run = begin_run(db);
  const auto summary = run_sweep(db, small_sweep(), {.run_id = run, .device = kDevice},
                                 [](const SweepConfig&, std::size_t i) {
                                   store::Measurement m = fake(i);
                                   if (i == 3) m.status = store::MeasurementStatus::failed;
                                   return m;  // a failed one without a reason is refused
                                 });
  ASSERT_FALSE(summary.ok());
  EXPECT_THAT(summary.error().message, HasSubstr("needs a reason"));
  EXPECT_THAT(summary.error().message, HasSubstr("after 3 of 8 configurations were recorded"));
  EXPECT_EQ(cell("SELECT COUNT(*) FROM measurements"), "3");
}

}  // namespace
}  // namespace fa4::orchestration
