// The factor table (lib/model/factors.def): each constant, its id and its row agree, and what a
// prediction reports comes from that row.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "model/factors.hpp"

namespace fa4::model::factors {
namespace {

TEST(Factors, EachIdNamesItsOwnRowAndConstant) {
  EXPECT_EQ(entry(Id::kSoftmaxFmaOpsPerElement).constant, "kSoftmaxFmaOpsPerElement");
  EXPECT_EQ(entry(Id::kHopperPingPongHiddenShare).value, kHopperPingPongHiddenShare);
  EXPECT_EQ(entry(Id::kLaunchOverheadSeconds).constant, "kLaunchOverheadSeconds");
  EXPECT_EQ(entry(Id::kLaunchOverheadSeconds).kind, Kind::assumption);
  EXPECT_EQ(&table().back(), &entry(Id::kLaunchOverheadSeconds));
}

TEST(Factors, EveryConstantIsListedOnce) {
  std::set<std::string> seen;
  for (const Entry& e : table()) {
    EXPECT_TRUE(seen.insert(std::string(e.constant)).second) << e.constant;
    EXPECT_FALSE(e.what.empty()) << e.constant;
    // A reported factor says what it means; a prediction field or none has no meaning.
    if (!e.reported.meaning.empty()) {
      EXPECT_FALSE(e.reported.name.empty()) << e.constant;
    }
  }
}

TEST(Factors, AReportedFactorCarriesItsRowsTextsAndValue) {
  const Factor f = reported(Id::kBlackwellSoftmaxIssueShare);
  EXPECT_EQ(f.name, "softmax_issue_share");
  EXPECT_EQ(f.value, kBlackwellSoftmaxIssueShare);
  EXPECT_EQ(f.fitted_to, kRecordForwardFit);
  EXPECT_EQ(reported(Id::kDeterministicWaitTiles, 2).value, 2);
  EXPECT_EQ(to_string(entry(Id::kOverlapFa2Backward).kind), "by design");
  EXPECT_EQ(reported(Value::mma_sync_share, 0.5).name, "mma_sync_share");
}

}  // namespace
}  // namespace fa4::model::factors
