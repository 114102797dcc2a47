// The ladder's rungs as the report sees them: the model's algorithms, by name and in order.
#include "report/rungs.hpp"

#include <gtest/gtest.h>

namespace fa4::report {
namespace {

TEST(Rungs, TheModelsAlgorithmsInLadderOrder) {
  EXPECT_EQ(rung_index("naive"), 0u);
  EXPECT_EQ(rung_index("fa4"), model::kAllAlgorithms.size() - 1);
  EXPECT_EQ(rung_index("fa3_no_ws"), std::nullopt);
  EXPECT_EQ(rung_index("sdpa_cudnn"), std::nullopt);
  EXPECT_EQ(rung_names(), "naive, fa2, fa3, fa4");
}

TEST(Rungs, TheBackwardRungsCarryASuffix) {
  EXPECT_EQ(rung_kernel(model::Algorithm::fa3, Pass::bwd), "fa3_bwd");
  EXPECT_EQ(rung_index("fa2_bwd", Pass::bwd), 1u);
  EXPECT_EQ(rung_index("fa2_bwd"), std::nullopt);  // no forward rung
  EXPECT_EQ(rung_index("fa2", Pass::bwd), std::nullopt);
}

TEST(Rungs, AnAblationNamesTheRungOfItsPass) {
  EXPECT_EQ(ablated_rung("fa3_no_pingpong", Pass::fwd), "fa3");
  EXPECT_EQ(ablated_rung("fa3_bwd_atomics", Pass::bwd), "fa3_bwd");
  EXPECT_EQ(ablated_rung("fa2_bwd_deterministic", Pass::bwd), "fa2_bwd");
  // A backward kernel is no forward ablation, a rung no ablation of itself, a peer neither.
  EXPECT_EQ(ablated_rung("fa2_bwd", Pass::fwd), "");
  EXPECT_EQ(ablated_rung("fa2_bwd_deterministic", Pass::fwd), "");
  EXPECT_EQ(ablated_rung("fa3", Pass::fwd), "");
  EXPECT_EQ(ablated_rung("sdpa_cudnn", Pass::fwd), "");
}

}  // namespace
}  // namespace fa4::report
