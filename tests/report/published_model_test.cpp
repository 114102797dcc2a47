// The model beside a published figure (lib/report/published_model.cpp): which algorithm stands for
// a published kernel on which GPU, the figure's own FLOP convention, and the per-call host time a
// record figure's benchmark timed.
#include <gtest/gtest.h>

#include "hw/loader.hpp"
#include "model/factors.hpp"
#include "report/findings.hpp"
#include "report/published.hpp"
#include "report_inputs.hpp"

namespace fa4::report {
namespace {

const std::vector<hw::Spec>& gpus() {
  static const std::vector<hw::Spec> specs = testing::real_specs();
  return specs;
}

const hw::Spec& gpu(std::string_view id) { return **hw::find_spec(gpus(), id); }

PublishedFigure figure(std::string gpu_id, std::string kernel, Pass pass) {
  PublishedFigure f;
  f.gpu = std::move(gpu_id);
  f.kernel = std::move(kernel);
  f.pass = pass;
  f.tflops = 1000;
  return f;
}

// The options the model takes for a figure of `kernel` on `gpu_id` at head dims d, dv.
model::Options options_of(std::string kernel, Pass pass, std::string gpu_id, std::int64_t d,
                          std::int64_t dv) {
  PublishedFigure f = figure(gpu_id, std::move(kernel), pass);
  f.shape.headdim = d;
  f.shape.headdim_v = dv;
  return *modeled_as(f, gpu(gpu_id)).options;
}

TEST(PublishedModel, CudnnIsFa3OnHopperAndFa4OnBlackwell) {
  EXPECT_EQ(modeled_as(figure("h200", "cudnn", Pass::fwd), gpu("h200")).options->algorithm,
            model::Algorithm::fa3);
  EXPECT_EQ(modeled_as(figure("gb300", "sdpa-cudnn", Pass::fwd), gpu("gb300")).options->algorithm,
            model::Algorithm::fa4);
  EXPECT_FALSE(modeled_as(figure("a100-sxm", "cudnn", Pass::fwd), gpu("a100-sxm")).options);
  EXPECT_FALSE(modeled_as(figure("h200", "sdpa-math", Pass::fwd), gpu("h200")).options);
}

// cuDNN's forward on Hopper takes its tiles in a fixed order (measured on the lent H200), and so
// does FA4's dedicated hd256 forward on Blackwell (its grid in block order); their backwards,
// cuDNN's Blackwell forward and FA4's other forwards keep the longest-first schedule.
TEST(PublishedModel, CudnnHopperAndFa4Hd256ForwardsTakeTheirTilesInAFixedOrder) {
  EXPECT_TRUE(options_of("cudnn", Pass::fwd, "h200", 128, 128).fixed_order_tiles);
  EXPECT_TRUE(options_of("sdpa-cudnn", Pass::fwd, "h100-sxm", 64, 64).fixed_order_tiles);
  EXPECT_FALSE(options_of("cudnn", Pass::bwd, "h200", 128, 128).fixed_order_tiles);
  EXPECT_FALSE(options_of("cudnn", Pass::fwd, "gb200", 128, 128).fixed_order_tiles);
  EXPECT_FALSE(options_of("fa4", Pass::fwd, "h200", 128, 128).fixed_order_tiles);
  EXPECT_TRUE(options_of("fa4", Pass::fwd, "gb200", 256, 256).fixed_order_tiles);
  EXPECT_FALSE(options_of("fa4", Pass::bwd, "gb200", 256, 256).fixed_order_tiles);
  EXPECT_FALSE(options_of("fa4", Pass::fwd, "gb200", 128, 128).fixed_order_tiles);
  EXPECT_FALSE(options_of("cudnn", Pass::fwd, "gb200", 256, 256).fixed_order_tiles);
}

// cuDNN's fp8 causal backward on Hopper adds dQ in HBM beyond a band of keys (measured with ncu on
// the lent H200); its bf16, unmasked and Blackwell backward and its forward do not.
TEST(PublishedModel, CudnnFp8CausalBackwardOnHopperSpillsItsDqAdds) {
  auto spills = [](std::string gpu_id, Pass pass, Dtype dtype, bool causal, std::int64_t heads_kv) {
    PublishedFigure f = figure(gpu_id, "cudnn", pass);
    f.shape.heads_q = 64;
    f.shape.heads_kv = heads_kv;
    f.shape.dtype = dtype;
    f.shape.causal = causal;
    return modeled_as(f, gpu(gpu_id)).options.value().dq_adds_spill_l2;
  };
  EXPECT_TRUE(spills("h200", Pass::bwd, Dtype::fp8, true, 8));
  EXPECT_TRUE(spills("h200", Pass::bwd, Dtype::fp8, true, 64));
  EXPECT_FALSE(spills("h200", Pass::bwd, Dtype::bf16, true, 8));
  EXPECT_FALSE(spills("h200", Pass::bwd, Dtype::fp8, false, 8));
  EXPECT_FALSE(spills("h200", Pass::fwd, Dtype::fp8, true, 8));
  EXPECT_FALSE(spills("gb200", Pass::bwd, Dtype::fp8, true, 8));
}

// cuDNN's bf16 backward on Hopper from hd256 takes each tile's shared-memory traffic after its MMA
// (measured with ncu on the lent H200); below hd256, in fp8, forward, on Blackwell and for other
// kernels it does not.
TEST(PublishedModel, CudnnHd256BackwardOnHopperTakesSharedMemoryAfterTheMma) {
  EXPECT_TRUE(options_of("cudnn", Pass::bwd, "h200", 256, 256).serial_smem_mma);
  EXPECT_TRUE(options_of("sdpa-cudnn", Pass::bwd, "h100-sxm", 256, 256).serial_smem_mma);
  EXPECT_TRUE(options_of("cudnn-deterministic", Pass::bwd, "h200", 256, 256).serial_smem_mma);
  EXPECT_FALSE(options_of("cudnn", Pass::bwd, "h200", 192, 128).serial_smem_mma);
  EXPECT_FALSE(options_of("cudnn", Pass::bwd, "h200", 128, 128).serial_smem_mma);
  EXPECT_FALSE(options_of("cudnn", Pass::fwd, "h200", 256, 256).serial_smem_mma);
  EXPECT_FALSE(options_of("cudnn", Pass::bwd, "gb200", 256, 256).serial_smem_mma);
  EXPECT_FALSE(options_of("fa3", Pass::bwd, "h200", 256, 256).serial_smem_mma);
  PublishedFigure fp8 = figure("h200", "cudnn", Pass::bwd);
  fp8.shape.headdim = fp8.shape.headdim_v = 256;
  fp8.shape.dtype = Dtype::fp8;
  EXPECT_FALSE(modeled_as(fp8, gpu("h200")).options.value().serial_smem_mma);
}

// PyTorch's flash backward copies two query-side tensors into its layout first (measured on the
// lent H200); its forward and the other kernels do not.
TEST(PublishedModel, TorchFlashBackwardMakesLayoutCopies) {
  auto flash = [](Pass pass, std::string gpu_id) {  // its figures say modeled_as fa2
    PublishedFigure f = figure(gpu_id, "sdpa-flash", pass);
    f.modeled_as = model::Algorithm::fa2;
    return modeled_as(f, gpu(gpu_id)).options.value().layout_copies;
  };
  EXPECT_TRUE(flash(Pass::bwd, "h200"));
  EXPECT_TRUE(flash(Pass::bwd, "b200"));
  EXPECT_FALSE(flash(Pass::fwd, "h200"));
  EXPECT_FALSE(options_of("sdpa-cudnn", Pass::bwd, "h200", 128, 128).layout_copies);
  EXPECT_FALSE(options_of("fa4", Pass::bwd, "gb200", 128, 128).layout_copies);
}

// cuDNN's deterministic fp8 backward on Hopper is its plain kernel (measured on the lent H200):
// no chained waits, no fixed time a step, the spill kept; bf16 and Blackwell keep theirs.
TEST(PublishedModel, CudnnDeterministicFp8BackwardOnHopperIsThePlainKernel) {
  PublishedFigure f = figure("h200", "cudnn-deterministic", Pass::bwd);
  f.shape.heads_q = 64;
  f.shape.heads_kv = 8;
  f.shape.causal = true;
  f.shape.dtype = Dtype::fp8;
  const model::Options fp8 = *modeled_as(f, gpu("h200")).options;
  EXPECT_FALSE(fp8.deterministic);
  EXPECT_FALSE(fp8.fixed_step_cost);
  EXPECT_TRUE(fp8.dq_adds_spill_l2);
  PublishedFigure plain = f;
  plain.kernel = "cudnn";
  const std::vector<PublishedFigure> both{f, plain};
  const auto rows = compare_with_model(gpus(), both);
  ASSERT_TRUE(rows.at(0).predicted_tflops && rows.at(1).predicted_tflops);
  EXPECT_DOUBLE_EQ(*rows.at(0).predicted_tflops, *rows.at(1).predicted_tflops);
  f.shape.dtype = Dtype::bf16;
  EXPECT_TRUE(modeled_as(f, gpu("h200")).options->fixed_step_cost);
  f.shape.dtype = Dtype::fp8;
  EXPECT_TRUE(modeled_as(f, gpu("gb200")).options->deterministic);
}

TEST(PublishedModel, SuffixesNameDeterministicAndOneCtaBackwards) {
  const auto two_cta = modeled_as(figure("b200", "fa4", Pass::bwd), gpu("b200")).options;
  ASSERT_TRUE(two_cta);
  EXPECT_TRUE(two_cta->two_cta);
  EXPECT_FALSE(two_cta->deterministic);
  const auto one_cta =
      modeled_as(figure("b200", "fa4-1cta-deterministic", Pass::bwd), gpu("b200")).options;
  ASSERT_TRUE(one_cta);
  EXPECT_FALSE(one_cta->two_cta);
  EXPECT_TRUE(one_cta->deterministic);
  // Below head dim 128 FA4's backward runs one CTA (flash_attn/cute/interface.py).
  EXPECT_FALSE(options_of("fa4", Pass::bwd, "gb300", 64, 64).two_cta);
  EXPECT_TRUE(options_of("fa4", Pass::bwd, "gb300", 128, 128).two_cta);
  // At (256, 256) FA4's backward is its split pair of kernels, always on the 2-CTA pair; not
  // cuDNN's, not its forward, not on Hopper.
  EXPECT_TRUE(options_of("fa4", Pass::bwd, "gb300", 256, 256).split_dq_backward);
  EXPECT_TRUE(options_of("fa4-1cta", Pass::bwd, "gb300", 256, 256).two_cta);
  EXPECT_FALSE(options_of("cudnn", Pass::bwd, "gb300", 256, 256).split_dq_backward);
  EXPECT_FALSE(options_of("fa4", Pass::fwd, "gb300", 256, 256).split_dq_backward);
  EXPECT_FALSE(options_of("fa4", Pass::bwd, "h100-sxm", 256, 256).split_dq_backward);
  EXPECT_FALSE(options_of("fa4", Pass::bwd, "gb300", 192, 192).split_dq_backward);
  // At (192, 128) FA4's backward shares tensor-memory columns between its steps; not at hd128,
  // not cuDNN's, not its forward, not on Hopper.
  EXPECT_TRUE(options_of("fa4-deterministic", Pass::bwd, "gb300", 192, 128)
                  .shared_tmem_columns_backward);
  EXPECT_FALSE(options_of("cudnn", Pass::bwd, "gb300", 192, 128).shared_tmem_columns_backward);
  EXPECT_FALSE(options_of("fa4", Pass::fwd, "gb300", 192, 128).shared_tmem_columns_backward);
  EXPECT_FALSE(options_of("fa4", Pass::bwd, "h100-sxm", 192, 128).shared_tmem_columns_backward);
  EXPECT_FALSE(options_of("fa4", Pass::bwd, "gb300", 128, 128).shared_tmem_columns_backward);
  // FA4's own backward on Blackwell launches one CTA per key block at every head dim, and its
  // forward one per work tile when causal, under a window or at hd256; cuDNN's (persistent, as
  // the model takes it), FA4's unmasked forward below hd256 and Hopper's do not.
  EXPECT_TRUE(options_of("fa4-1cta-deterministic", Pass::bwd, "b200", 64, 64).single_tile_grid);
  EXPECT_TRUE(options_of("fa4", Pass::bwd, "gb300", 256, 256).single_tile_grid);
  EXPECT_FALSE(options_of("cudnn", Pass::bwd, "gb300", 128, 128).single_tile_grid);
  EXPECT_FALSE(options_of("fa4", Pass::fwd, "gb300", 128, 128).single_tile_grid);
  EXPECT_TRUE(options_of("fa4", Pass::fwd, "gb300", 256, 256).single_tile_grid);
  EXPECT_FALSE(options_of("fa4", Pass::bwd, "h100-sxm", 128, 128).single_tile_grid);
  PublishedFigure masked = figure("gb200", "fa4", Pass::fwd);
  masked.shape.causal = true;
  EXPECT_TRUE(modeled_as(masked, gpu("gb200")).options->single_tile_grid);
  masked.shape.window = 128;
  EXPECT_TRUE(modeled_as(masked, gpu("gb200")).options->single_tile_grid);
  masked.kernel = "cudnn";
  EXPECT_FALSE(modeled_as(masked, gpu("gb200")).options->single_tile_grid);
  masked.kernel = "fa4";
  EXPECT_FALSE(modeled_as(masked, gpu("h200")).options->single_tile_grid);
  // cuDNN's backward is modeled on one CTA; a deterministic forward is refused as mislabeled.
  EXPECT_FALSE(modeled_as(figure("b200", "cudnn", Pass::bwd), gpu("b200")).options->two_cta);
  EXPECT_FALSE(modeled_as(figure("b200", "fa4-deterministic", Pass::fwd), gpu("b200")).options);
}

// cuDNN's bf16 deterministic backward is its plain main kernel, GQA group reduction included, plus
// kCudnnDeterministicStepCycles a tile step (and up to hd128 kCudnnDeterministicDqOrderStepCycles),
// beside the plain launches (preprocessing, dQ conversion, group reduction); FA4's waits on the dQ
// chain instead, and cuDNN's fp8 backward on Blackwell (routed to its deterministic kernel) keeps
// that rule too.
TEST(PublishedModel, CudnnDeterministicBackwardIsItsPlainOnePlusAFixedTimeAStep) {
  PublishedFigure f = figure("gb200", "cudnn-deterministic", Pass::bwd);
  f.shape = AttnShape{.batch = 2, .heads_q = 64, .heads_kv = 8, .seqlen_q = 8192,
                      .seqlen_k = 8192, .headdim = 128, .headdim_v = 128, .causal = true};
  const auto det = modeled_as(f, gpu("gb200")).options;
  ASSERT_TRUE(det);
  EXPECT_TRUE(det->deterministic && det->fixed_step_cost && det->group_reduced_key_grads);
  f.kernel = "cudnn";
  const auto plain = modeled_as(f, gpu("gb200")).options;
  ASSERT_TRUE(plain);
  EXPECT_FALSE(plain->fixed_step_cost);
  hw::Spec gb200 = gpu("gb200");
  gb200.sustained_clock_share = 1;  // the steps' arithmetic, not the clock's
  const auto p_det = model::predict(gb200, f.shape, *det);
  const auto p_plain = model::predict(gb200, f.shape, *plain);
  ASSERT_TRUE(p_det && p_plain);
  EXPECT_EQ(p_det->tile_time_cycles, p_plain->tile_time_cycles);
  const double tile = p_plain->tile_time_cycles;
  const double per_step = (1 + model::factors::kCudnnDeterministicStepCycles / tile) *
                          (1 + model::factors::kCudnnDeterministicDqOrderStepCycles / tile);
  // The persistent kernel's per-CTA bytes (HBM time, a small share) take no steps.
  EXPECT_NEAR(p_det->main_kernel_s / (p_plain->main_kernel_s * per_step), 1, 1e-3);
  EXPECT_LT(p_det->main_kernel_s, p_plain->main_kernel_s * per_step);
  EXPECT_NEAR(p_det->time_s - p_det->main_kernel_s, p_plain->time_s - p_plain->main_kernel_s,
              1e-12);
  EXPECT_GT(p_det->time_s - p_det->main_kernel_s, 0);  // the launches beside it

  f.kernel = "fa4-deterministic";
  EXPECT_FALSE(modeled_as(f, gpu("gb200")).options->fixed_step_cost);
  f.kernel = "cudnn";
  f.shape.dtype = Dtype::fp8;
  const auto fp8 = modeled_as(f, gpu("gb200")).options;
  EXPECT_TRUE(fp8->deterministic && !fp8->fixed_step_cost);
}

// Above hd128 on Blackwell cuDNN's plain bf16 backward runs the configuration its deterministic
// graph is pinned to (their published times match), so it pays the same steps; not at hd128, not
// its fp8 kernels, not on Hopper, not its forward.
TEST(PublishedModel, CudnnPlainBackwardAboveHd128OnBlackwellPaysTheDeterministicSteps) {
  PublishedFigure f = figure("gb300", "cudnn", Pass::bwd);
  f.shape = AttnShape{.batch = 2, .heads_q = 64, .heads_kv = 64, .seqlen_q = 8192,
                      .seqlen_k = 8192, .headdim = 192, .headdim_v = 128};
  const auto plain = modeled_as(f, gpu("gb300")).options;
  ASSERT_TRUE(plain);
  EXPECT_TRUE(plain->fixed_step_cost && !plain->deterministic);
  f.kernel = "cudnn-deterministic";
  const auto det = modeled_as(f, gpu("gb300")).options;
  ASSERT_TRUE(det);
  const auto p_det = model::predict(gpu("gb300"), f.shape, *det);
  const auto p_plain = model::predict(gpu("gb300"), f.shape, *plain);
  ASSERT_TRUE(p_det && p_plain);
  EXPECT_NEAR(p_det->time_s / p_plain->time_s, 1, 1e-12);

  f.kernel = "cudnn";
  f.shape.headdim = f.shape.headdim_v = 128;
  EXPECT_FALSE(modeled_as(f, gpu("gb300")).options->fixed_step_cost);
  f.shape.headdim = f.shape.headdim_v = 256;
  EXPECT_TRUE(modeled_as(f, gpu("gb300")).options->fixed_step_cost);
  f.shape.dtype = Dtype::fp8;  // above the fp8 deterministic routing's head dims: its own kernel
  EXPECT_FALSE(modeled_as(f, gpu("gb300")).options->fixed_step_cost);
  f.shape.dtype = Dtype::bf16;
  f.shape.headdim = 192;
  f.shape.headdim_v = 128;
  EXPECT_FALSE(modeled_as(f, gpu("h200")).options->fixed_step_cost);
  f.pass = Pass::fwd;
  EXPECT_FALSE(modeled_as(f, gpu("gb300")).options->fixed_step_cost);
}

// From cuDNN 9.22 its fp8 backward on Blackwell at hd192/128 runs on the 2-CTA pair (as FA4's must
// there: tensor memory's columns); hd128, bf16, releases before 9.22 and figures without a
// recorded release stay on one CTA.
TEST(PublishedModel, CudnnFp8BackwardAtHd192RunsOnTheTwoCtaPairFromRelease922) {
  PublishedFigure f = figure("gb300", "cudnn", Pass::bwd);
  f.shape.dtype = Dtype::fp8;
  f.shape.headdim = 192;
  f.shape.headdim_v = 128;
  f.provenance = Provenance{};
  f.provenance->software = "cuDNN 9.26.0 (cudnn_backend_version 92600), cudnn-frontend 1.27.0";
  EXPECT_TRUE(modeled_as(f, gpu("gb300")).options->two_cta);
  f.provenance->software = "cuDNN 9.22.0 (cudnn_backend_version 92200)";
  EXPECT_TRUE(modeled_as(f, gpu("gb300")).options->two_cta);
  f.provenance->software = "cuDNN 9.19.1 (cudnn_backend_version 91901), cudnn-frontend 1.19.0";
  EXPECT_FALSE(modeled_as(f, gpu("gb300")).options->two_cta);
  f.provenance->software = "versions not stated";
  EXPECT_FALSE(modeled_as(f, gpu("gb300")).options->two_cta);
  f.provenance->software = "cuDNN 9.26.0 (cudnn_backend_version 92600)";
  f.shape.headdim = f.shape.headdim_v = 128;
  EXPECT_FALSE(modeled_as(f, gpu("gb300")).options->two_cta);
  f.shape.headdim = 192;
  f.shape.dtype = Dtype::bf16;
  EXPECT_FALSE(modeled_as(f, gpu("gb300")).options->two_cta);
  // On the pair the prediction is faster: the float32 dQ's shared-memory traffic halves.
  f.shape.dtype = Dtype::fp8;
  f.shape.batch = 1;
  f.shape.heads_q = f.shape.heads_kv = 128;
  f.shape.seqlen_q = f.shape.seqlen_k = 16384;
  const std::vector<PublishedFigure> figures{f};
  PublishedFigure before = f;
  before.provenance->software = "cuDNN 9.19.1 (cudnn_backend_version 91901)";
  const std::vector<PublishedFigure> older{before};
  const auto pair = compare_with_model(gpus(), figures);
  const auto one = compare_with_model(gpus(), older);
  ASSERT_TRUE(pair.at(0).predicted_tflops && one.at(0).predicted_tflops);
  EXPECT_GT(*pair.at(0).predicted_tflops, 1.1 * *one.at(0).predicted_tflops);
}

// On Blackwell Ultra the row max comes from the tensor-memory load for FA4's forward from
// flash-attention PR 2696 (2026-07-11) and for cuDNN's fp8 forward of a recorded release from
// 9.18.1; FA4 before, cuDNN's bf16 forward or an unnamed release, the backward and other GPUs not.
TEST(PublishedModel, UltraForwardsTakeTheirRowMaxFromTheLoadWhereTheRecordShowsIt) {
  PublishedFigure f = figure("gb300", "fa4", Pass::fwd);
  f.shape.headdim = f.shape.headdim_v = 128;
  f.provenance = Provenance{};
  f.provenance->date = "2026-07-24";
  EXPECT_EQ(modeled_as(f, gpu("gb300")).options->row_max_on_load, true);
  f.provenance->date = "2026-07-11";
  EXPECT_EQ(modeled_as(f, gpu("gb300")).options->row_max_on_load, true);
  f.provenance->date = "2026-07-10";
  EXPECT_EQ(modeled_as(f, gpu("gb300")).options->row_max_on_load, false);
  f.kernel = "cudnn";
  f.shape.dtype = Dtype::fp8;
  f.provenance->software = "cuDNN 9.19.1 (cudnn_backend_version 91901), cudnn-frontend 1.19.0";
  EXPECT_EQ(modeled_as(f, gpu("gb300")).options->row_max_on_load, true);
  EXPECT_EQ(modeled_as(f, gpu("b300")).options->row_max_on_load, true);
  f.provenance->software = "cuDNN 9.18.1 (cudnn_backend_version 91801)";
  EXPECT_EQ(modeled_as(f, gpu("gb300")).options->row_max_on_load, true);
  f.provenance->software = "cuDNN 9.17.9 (cudnn_backend_version 91799)";
  EXPECT_EQ(modeled_as(f, gpu("gb300")).options->row_max_on_load, false);
  f.provenance->software = "the cuDNN version is not in the part of the thread read";
  EXPECT_EQ(modeled_as(f, gpu("gb300")).options->row_max_on_load, false);
  f.provenance->software = "cuDNN 9.26.0 (cudnn_backend_version 92600)";
  f.shape.dtype = Dtype::bf16;
  EXPECT_EQ(modeled_as(f, gpu("gb300")).options->row_max_on_load, false);
  f.shape.dtype = Dtype::fp8;
  EXPECT_FALSE(modeled_as(f, gpu("gb200")).options->row_max_on_load.has_value());
  f.pass = Pass::bwd;
  EXPECT_FALSE(modeled_as(f, gpu("gb300")).options->row_max_on_load.has_value());
  // With it the fp8 forward is faster: its softmax stream, which binds, drops the FMNMX.
  f.pass = Pass::fwd;
  f.shape.batch = 2;
  f.shape.heads_q = 64;
  f.shape.heads_kv = 8;
  f.shape.seqlen_q = f.shape.seqlen_k = 8192;
  PublishedFigure unnamed = f;
  unnamed.provenance->software = "versions not stated";
  const std::vector<PublishedFigure> with{f}, without{unnamed};
  const auto fast = compare_with_model(gpus(), with);
  const auto slow = compare_with_model(gpus(), without);
  ASSERT_TRUE(fast.at(0).predicted_tflops && slow.at(0).predicted_tflops);
  EXPECT_GT(*fast.at(0).predicted_tflops, 1.15 * *slow.at(0).predicted_tflops);
}

// cuDNN's fp8 backward on Blackwell is its deterministic kernel up to head dims 192/128, and it
// walks the whole causal triangle under a sliding window; bf16, Hopper and the forward are not.
TEST(PublishedModel, CudnnFp8BackwardOnBlackwellIsDeterministicAndWalksTheTriangle) {
  PublishedFigure f = figure("gb200", "cudnn", Pass::bwd);
  f.shape.dtype = Dtype::fp8;
  f.shape.causal = true;
  const ModeledAs fp8 = modeled_as(f, gpu("gb200"));
  ASSERT_TRUE(fp8.options);
  EXPECT_TRUE(fp8.options->deterministic);
  EXPECT_TRUE(fp8.masks_window_without_skipping);
  f.shape.headdim = 256;  // beyond the deterministic kernel's head dims
  EXPECT_FALSE(modeled_as(f, gpu("gb200")).options->deterministic);
  f.shape.headdim = 128;
  f.shape.dtype = Dtype::bf16;
  EXPECT_FALSE(modeled_as(f, gpu("gb200")).options->deterministic);
  EXPECT_FALSE(modeled_as(f, gpu("gb200")).masks_window_without_skipping);
  f.shape.dtype = Dtype::fp8;
  EXPECT_FALSE(modeled_as(f, gpu("h200")).options->deterministic);
  f.pass = Pass::fwd;
  EXPECT_FALSE(modeled_as(f, gpu("gb200")).masks_window_without_skipping);

  // With a window, the prediction is the triangle's time over the band's FLOPs.
  f.pass = Pass::bwd;
  f.shape.seqlen_q = f.shape.seqlen_k = 8192;
  f.shape.window = 1024;
  f.provenance = Provenance{};  // a benchmark's figure: its framework call counts
  const std::vector<PublishedFigure> figures{f};
  const auto rows = compare_with_model(gpus(), figures);
  ASSERT_TRUE(rows[0].predicted_tflops);
  AttnShape triangle = f.shape;
  triangle.window = 0;
  auto p = model::predict(gpu("gb200"), triangle, *rows[0].options);
  ASSERT_TRUE(p.ok());
  EXPECT_NEAR(*rows[0].predicted_tflops,
              published_flops(f) / (p->time_s + model::factors::kFrameworkCallSeconds) / 1e12,
              1e-9);
}

// cuDNN's benchmark counts a sliding window W's first W rows as a triangle with its diagonal,
// then W keys a row.
TEST(PublishedModel, DiagonalInclusiveCountsASlidingWindowsBand) {
  PublishedFigure f = figure("gb200", "cudnn", Pass::fwd);
  f.shape.batch = 1;
  f.shape.heads_q = f.shape.heads_kv = 1;
  f.shape.seqlen_q = f.shape.seqlen_k = 4096;
  f.shape.headdim = f.shape.headdim_v = 64;
  f.shape.causal = true;
  f.shape.window = 1024;
  f.provenance = Provenance{};
  f.provenance->flop_count = FlopCount::diagonal_inclusive;
  const double pairs = 1024.0 * 1025 / 2 + (4096.0 - 1024) * 1024;
  EXPECT_DOUBLE_EQ(published_flops(f), 2 * pairs * (64 + 64));
  f.shape.window = 8192;  // wider than the sequence: the plain causal triangle
  EXPECT_DOUBLE_EQ(published_flops(f), 2 * (4096.0 * 4097 / 2) * (64 + 64));
}

TEST(PublishedModel, DiagonalInclusiveCountsTheDiagonalAndFiveGemmsPerHeadDim) {
  PublishedFigure f = figure("gb200", "cudnn", Pass::fwd);
  f.shape.batch = 1;
  f.shape.heads_q = f.shape.heads_kv = 128;
  f.shape.seqlen_q = f.shape.seqlen_k = 4096;
  f.shape.headdim = 192;
  f.shape.headdim_v = 128;
  f.shape.causal = true;
  const double pairs = 4096.0 * 4097 / 2;
  EXPECT_DOUBLE_EQ(published_flops(f), attention_flops(f.shape, Pass::fwd));  // no origin
  f.provenance = Provenance{};
  f.provenance->flop_count = FlopCount::diagonal_inclusive;
  EXPECT_DOUBLE_EQ(published_flops(f), 2 * 128 * pairs * (192 + 128));
  f.pass = Pass::bwd;
  EXPECT_DOUBLE_EQ(published_flops(f), 2 * 128 * pairs * (3 * 192 + 2 * 128));
}

// The model predicts a time; a record figure's TFLOP/s is its own FLOPs over that time plus the
// host time of the framework call its benchmark timed.
TEST(PublishedModel, PredictionUsesTheFiguresFlopsAndItsCallTime) {
  PublishedFigure f = figure("gb200", "cudnn", Pass::bwd);
  f.shape.seqlen_q = f.shape.seqlen_k = 8192;
  f.shape.causal = true;
  f.provenance = Provenance{};
  f.provenance->flop_count = FlopCount::diagonal_inclusive;
  const std::vector<PublishedFigure> figures{f};
  const auto rows = compare_with_model(gpus(), figures);
  ASSERT_EQ(rows.size(), 1u);
  ASSERT_TRUE(rows[0].predicted_tflops);
  auto p = model::predict(gpu("gb200"), f.shape, *rows[0].options);
  ASSERT_TRUE(p.ok());
  EXPECT_NEAR(*rows[0].predicted_tflops,
              published_flops(f) / (p->time_s + model::factors::kFrameworkCallSeconds) / 1e12,
              1e-9);
  EXPECT_NEAR(rows[0].error_percent(), 100 * (*rows[0].predicted_tflops - 1000) / 1000, 1e-9);
  // A benchmark that summed the kernels' device durations timed no host work.
  f.provenance->times_kernels = true;
  const std::vector<PublishedFigure> kernels{f};
  EXPECT_NEAR(*compare_with_model(gpus(), kernels)[0].predicted_tflops,
              published_flops(f) / p->time_s / 1e12, 1e-9);
}

// The summary's trust line: held-out figures within the bounds, the ones left out counted apart.
TEST(PublishedModel, HeldOutErrorLeavesOutFiguresOutsideTheBoundsAndCountsThem) {
  PublishedFigure kept = figure("gb200", "cudnn", Pass::fwd);
  kept.shape.seqlen_q = kept.shape.seqlen_k = 8192;
  PublishedFigure left_out = kept;
  left_out.tflops = 100;  // far off: would be the worst figure
  left_out.outside_bounds = "pytorch_path";
  PublishedFigure fitted = kept;
  fitted.role = "fit";
  fitted.tflops = 50;
  const std::vector<PublishedFigure> figures = {kept, left_out, fitted};
  const auto e = held_out_error(compare_with_model(gpus(), figures));
  ASSERT_TRUE(e);
  EXPECT_EQ(e->n, 1);
  EXPECT_EQ(e->outside_bounds, 1);
  const std::vector<PublishedFigure> alone{kept};
  const auto only = compare_with_model(gpus(), alone);
  ASSERT_EQ(only.size(), 1u);
  EXPECT_DOUBLE_EQ(e->worst_percent, only[0].error_percent());
}

TEST(PublishedModel, AGpuNamedByArchitectureIsModeledOnItsStandIn) {
  PublishedFigure f = figure("sm100", "fa4", Pass::fwd);
  const std::vector<PublishedFigure> unmodeled{f};
  EXPECT_FALSE(compare_with_model(gpus(), unmodeled)[0].predicted_tflops);
  f.modeled_on = "gb200";
  const std::vector<PublishedFigure> figures{f};
  const auto rows = compare_with_model(gpus(), figures);
  ASSERT_TRUE(rows[0].predicted_tflops) << rows[0].not_modeled;
  EXPECT_EQ(rows[0].gpu_model->id, "gb200");
}

}  // namespace
}  // namespace fa4::report
