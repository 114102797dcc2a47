// `fa4-analyze model --profile` against the report: every published figure's implementation
// (its kernel, cuDNN release and run date, as the CLI's --profile, --release and --run-date give
// them) looked up as the CLI does predicts exactly the TFLOP/s `published` prints for its row, and
// every published row of the profile table is paid by some figure of the record.
#include <gtest/gtest.h>

#include <set>

#include "hw/loader.hpp"
#include "orchestration/kernel_models.hpp"
#include "report/published_model.hpp"

namespace fa4::orchestration {
namespace {

TEST(ProfileCli, ReproducesEveryPublishedRow) {
  const auto gpus = hw::load_all_specs(std::string(FA4_SOURCE_DIR) + "/models");
  ASSERT_TRUE(gpus) << gpus.error().message;
  const auto figures =
      report::load_published_tree(std::string(FA4_SOURCE_DIR) + "/data/published");
  ASSERT_TRUE(figures) << figures.error().message;
  const auto rows = report::compare_with_model(*gpus, *figures);
  std::set<std::string_view> paid;
  int compared = 0;
  for (const report::FigureVsModel& row : rows) {
    if (!row.predicted_tflops) continue;
    const report::PublishedFigure& f = *row.figure;
    // What `model --profile KERNEL --release N --run-date D [--kernel ALGORITHM]` looks up.
    model::Configured c = profile_options(report::implementation_of(f), *row.gpu_model, f.shape,
                                          f.pass);
    ASSERT_TRUE(c.options) << f.where << ": " << c.not_modeled;
    AttnShape walked = f.shape;
    if (c.masks_window_without_skipping) walked.window = 0;
    const model::Options measured = report::as_measured(f, *c.options);
    const auto p = model::predict(*row.gpu_model, walked, measured);
    ASSERT_TRUE(p) << f.where << ": " << p.error().message;
    const double tflops =
        report::published_flops(f) / report::timed_seconds(f, measured, *p) / 1e12;
    EXPECT_EQ(tflops, *row.predicted_tflops) << f.where;
    paid.insert(c.paid.begin(), c.paid.end());
    ++compared;
  }
  EXPECT_GT(compared, 400);
  for (const model::Profile& profile : model::profiles()) {
    if (profile.name.starts_with("our ")) continue;
    EXPECT_TRUE(paid.count(profile.name)) << profile.name << " is paid by no published figure";
  }
}

// The lab's kernels by "our NAME": the registered configuration, the rows named after it.
TEST(ProfileCli, OurKernelsAreTheirRegisteredConfiguration) {
  const auto gpus = hw::load_all_specs(std::string(FA4_SOURCE_DIR) + "/models");
  ASSERT_TRUE(gpus) << gpus.error().message;
  const hw::Spec& h200 = **hw::find_spec(*gpus, "h200");
  AttnShape s;
  for (const KernelModel& k : kernel_models()) {
    model::Implementation ours;
    ours.family = "our " + std::string(k.kernel);
    const model::Configured c = profile_options(ours, h200, s, Pass::fwd);
    ASSERT_TRUE(c.options) << k.kernel;
    const auto a = model::predict(h200, s, *c.options), b = model::predict(h200, s, model_options(k, s));
    ASSERT_EQ(bool(a), bool(b)) << k.kernel;
    if (a) {
      EXPECT_EQ(a->time_s, b->time_s) << k.kernel;
    }
  }
  model::Implementation ours;
  ours.family = "our fa3_bwd";
  EXPECT_EQ(profile_options(ours, h200, s, Pass::bwd).paid.size(), 1u);
  ours.family = "our nothing";
  EXPECT_FALSE(profile_options(ours, h200, s, Pass::fwd).options);
}

}  // namespace
}  // namespace fa4::orchestration
