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

}  // namespace
}  // namespace fa4::report
