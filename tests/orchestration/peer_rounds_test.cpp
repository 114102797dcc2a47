// The peer's side of bench --ab without PyTorch: PeerRounds drives a fake runner
// (data/fake_peer.py, the real protocol loop peer_common.serve with a fake peer) through its pipes:
// the ready line, prepare (ok and skipped), rounds, and each way a runner fails (ending before its
// ready line, dying mid-round, a round that raised), each an error that names the peer and why.
#include "orchestration/peer_rounds.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

namespace fa4::orchestration {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

const std::filesystem::path kFakeRunner = std::filesystem::path(FA4_TEST_DATA_DIR) / "fake_peer.py";

class PeerRoundsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (std::system("python3 -c '' >/dev/null 2>&1") != 0)
      GTEST_SKIP() << "skipped: no python3 to run the fake peer runner";
    ::setenv("FA4_PEERS_DIR", (std::filesystem::path(FA4_SOURCE_DIR) / "scripts/peers").c_str(), 1);
    ::unsetenv("FAKE_PEER_MODE");
  }
  void TearDown() override { ::unsetenv("FAKE_PEER_MODE"); }
  static Result<std::unique_ptr<PeerRounds>> start(const char* mode = "") {
    ::setenv("FAKE_PEER_MODE", mode, 1);
    return PeerRounds::start("python3", kFakeRunner, "sdpa_cudnn", Pass::fwd);
  }
  static AttnShape shape(bool causal) {
    return {.batch = 2,
            .heads_q = 16,
            .heads_kv = 16,
            .seqlen_q = 1024,
            .seqlen_k = 1024,
            .headdim = 128,
            .headdim_v = 128,
            .causal = causal};
  }
};

TEST_F(PeerRoundsTest, PreparesEachShapeAndTimesRoundByRound) {
  auto peer = start();
  ASSERT_TRUE(peer.ok()) << peer.error().message;
  EXPECT_EQ((*peer)->source(), "peer:torch-cudnn");
  EXPECT_EQ((*peer)->device(), "Fake GPU");
  auto check = (*peer)->prepare(shape(false), 7);
  ASSERT_TRUE(check.ok()) << check.error().message;
  EXPECT_EQ(check->status, store::MeasurementStatus::ok);
  auto first = (*peer)->round();
  ASSERT_TRUE(first.ok()) << first.error().message;
  EXPECT_THAT(*first, ElementsAre(1e-3, 2e-3));
  EXPECT_THAT((*peer)->round().value(), ElementsAre(2e-3, 2e-3));
  auto skipped = (*peer)->prepare(shape(true), 8);
  ASSERT_TRUE(skipped.ok()) << skipped.error().message;
  EXPECT_EQ(skipped->status, store::MeasurementStatus::skipped);
  EXPECT_EQ(skipped->reason, "fwd: no causal mask here");
  auto refused = (*peer)->round();
  ASSERT_FALSE(refused.ok());
  EXPECT_THAT(refused.error().message,
              HasSubstr("the peer runner for sdpa_cudnn: no peer is prepared to time"));
}

TEST_F(PeerRoundsTest, ARunnerThatEndsBeforeItsReadyLineSaysSo) {
  auto peer = start("exit-at-start");
  ASSERT_FALSE(peer.ok());
  EXPECT_EQ(peer.error().message,
            "the peer runner (torch_peers.py --serve --peers sdpa_cudnn) ended (exit status 3); "
            "its messages above say why");
}

TEST_F(PeerRoundsTest, ARunnerThatDiesMidRoundIsAnErrorNotACrash) {
  auto peer = start("die-in-round-2");
  ASSERT_TRUE(peer.ok()) << peer.error().message;
  ASSERT_TRUE((*peer)->prepare(shape(false), 1).ok());
  ASSERT_TRUE((*peer)->round().ok());
  auto died = (*peer)->round();
  ASSERT_FALSE(died.ok());
  EXPECT_THAT(died.error().message, HasSubstr("ended (exit status 4)"));
  // Writing to a runner that is gone fails (no SIGPIPE), and says the same.
  auto again = (*peer)->round();
  ASSERT_FALSE(again.ok());
  EXPECT_THAT(again.error().message, HasSubstr("ended (exit status 4)"));
}

TEST_F(PeerRoundsTest, ARoundThatRaisedIsAnErrorWithItsReason) {
  auto peer = start("error-round");
  ASSERT_TRUE(peer.ok()) << peer.error().message;
  ASSERT_TRUE((*peer)->prepare(shape(false), 1).ok());
  auto round = (*peer)->round();
  ASSERT_FALSE(round.ok());
  EXPECT_EQ(round.error().message,
            "the peer runner for sdpa_cudnn: timing raised RuntimeError: boom");
}

TEST_F(PeerRoundsTest, AnInterpreterThatIsNotThereCannotStart) {
  auto peer = PeerRounds::start("/nonexistent/python3", kFakeRunner, "sdpa_cudnn", Pass::fwd);
  ASSERT_FALSE(peer.ok());
  EXPECT_THAT(peer.error().message, HasSubstr("cannot start /nonexistent/python3"));
}

}  // namespace
}  // namespace fa4::orchestration
