// The model beside each published figure: which of the model's algorithms stands for the
// published kernel on the GPU model of its machine, and the prediction in TFLOP/s under the
// figure's own FLOP convention (the model predicts a time; the source's FLOPs divide it).
//
// The rule, for a figure without its own modeled_as:
// - cuDNN's fused attention ("cudnn", "sdpa-cudnn", PyTorch's cuDNN backend) is a persistent,
//   warp-specialized kernel: the model's fa3 on Hopper and fa4 on Blackwell; its forward on Hopper
//   takes its tiles in a fixed order, not longest first (Options::fixed_order_tiles: measured on
//   the lent H200, data/measurements/kernels/2026-11-29-h200-cudnn-fwd-causal.txt);
// - "fa4" is fa4;
// - cuDNN's GQA backward stores dK and dV per query head and sums each group in two launches after
//   its main kernel (Options::group_reduced_key_grads);
// - a "-deterministic" suffix sums dQ in a fixed order (Options::deterministic), and "-1cta" runs
//   FA4's backward on one CTA where its default on Blackwell is the 2-CTA pair (FA4 §3.2,
//   flash-attention PR 2280), which "fa4" then means from head dim 128 (below it FA4 runs one CTA);
// - FA4's backward at hd256 on Blackwell is its split pair of kernels (Options::split_dq_backward),
//   and at hd192/128 shares tensor-memory columns between its steps
//   (Options::shared_tmem_columns_backward); at every head dim it launches one CTA per key block,
//   and so do its causal, windowed and hd256 forward per work tile (Options::single_tile_grid);
//   the hd256 forward's grid starts its CTAs in block order, shortest first under a causal mask
//   (Options::fixed_order_tiles: sm100_hd256_2cta_fmha_forward.py's static scheduler takes the
//   block index as its tile, read at 0251105), where the others take the longest first;
// - cuDNN's fp8 backward on Blackwell is its deterministic kernel up to head dims 192/128, and that
//   kernel masks a sliding window without skipping the blocks left of it (cuDNN's fp8 backward,
//   below); above head dim 128 it runs on the 2-CTA pair from cuDNN 9.22 (below);
// - on Blackwell Ultra, FA4's forward from July 2026 and cuDNN's fp8 forward take each row's
//   maximum from the tensor-memory load (Options::row_max_on_load, below);
// - cuDNN's fp8 backward on Hopper runs the same kernels, deterministic or not (below), and its
//   causal one adds dQ beyond a band next to the diagonal in HBM
//   (Options::dq_adds_spill_l2: measured with ncu on the lent H200, data/measurements/kernels/
//   2026-11-29-h200-cudnn-fp8-causal-backward.txt);
// - cuDNN's bf16 backward on Hopper at hd256 takes each tile's shared-memory traffic and MMA one
//   after the other (Options::serial_smem_mma: measured with ncu on the lent H200,
//   2026-11-29-h200-cudnn-bwd-smem.txt);
// - PyTorch's flash backward first copies two query-side tensors into its layout
//   (Options::layout_copies: measured on the lent H200, 2026-11-29-h200-sdpa-backward-call.txt);
// - a kernel outside the list is not modeled.
#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <cstdint>
#include <string_view>

#include "core/stats.hpp"
#include "hw/loader.hpp"
#include "model/algorithm_traits.hpp"
#include "model/factors.hpp"
#include "report/published.hpp"

namespace fa4::report {
namespace {

constexpr std::string_view kDeterministicSuffix = "-deterministic";
constexpr std::string_view kOneCtaSuffix = "-1cta";
// FA4's Blackwell backward takes the 2-CTA pair from this head dim of Q and K, one CTA below it
// (flash_attn/cute/interface.py, the SM100 backward's `use_2cta_instrs = head_dim >= 128 and ...`
// since PR 2280, a00ddeb, 2026-02-27; read at 0251105, 2026-08-15).
constexpr std::int64_t kFa4TwoCtaBackwardMinHeaddim = 128;
// FA4 on Blackwell at head dims (256, 256) runs dedicated 2-CTA kernels (flash_attn/cute/
// interface.py, `use_dedicated_hd256_kernel = arch // 10 in [10, 11] and head_dim == 256 and
// head_dim_v == 256`, which also forces the 2-CTA pair): a forward that is not persistent
// (sm100_hd256_2cta_fmha_forward.py) and a backward split into a dQ kernel and a dK, dV kernel
// (sm100_hd256_2cta_fmha_backward.py, PR 2412, 27b4eb9, 2026-04-23; the SM100 backward takes no
// other hd256 path).
constexpr std::int64_t kFa4DedicatedHeaddim = 256;
// FA4's Blackwell backward at head dims (192, 128) shares tensor-memory columns between S/P, dP/dS
// and dQ (flash_attn/cute/flash_bwd_sm100.py, the 2-CTA map for tile_hdim 192 and tile_hdimv 128;
// Options::shared_tmem_columns_backward).
constexpr std::int64_t kFa4SharedColumnsHeaddim = 192, kFa4SharedColumnsHeaddimV = 128;

// Removes `suffix` from the end of `name`; whether it was there.
bool strip_suffix(std::string_view& name, std::string_view suffix) {
  if (!name.ends_with(suffix)) return false;
  name.remove_suffix(suffix.size());
  return true;
}

bool is_cudnn(std::string_view family) { return family == "cudnn" || family == "sdpa-cudnn"; }

// The algorithm closest to a published kernel family on this GPU, or nothing.
std::optional<model::Algorithm> closest_algorithm(std::string_view family, const hw::Spec& gpu) {
  if (is_cudnn(family)) {
    if (model::is_hopper(gpu)) return model::Algorithm::fa3;
    if (model::is_blackwell(gpu)) return model::Algorithm::fa4;
    return std::nullopt;
  }
  if (family == "fa4") return model::Algorithm::fa4;
  return std::nullopt;
}

// cuDNN has no non-deterministic fp8 backward on Blackwell up to head dims 192 (Q, K) and 128 (V):
// cudnn-frontend routes such a graph to the deterministic algorithm (include/cudnn_frontend/node/
// sdpa_fp8_bwd.h, "auto-routing to deterministic algorithm", v1.22.0, commit 97f6cb3), and the
// record's cuDNN 9.19 runs agree: GB200's "cudnn" and "cudnn-deterministic" fp8 backward figures
// of one shape differ by 0-3% (824/825, 1166/1167, 1451/1447 TFLOP/s at hd128 causal) where the
// bf16 pairs differ by up to 20%. That kernel walks the whole causal triangle under a sliding
// window: GB200's and GB300's windowed fp8 backward figures fall as 1/s (476, 349, 214, 117, 62
// TFLOP/s from s2k to s32k, W = 1024), the FLOPs of the band over the time of the triangle
// (635, 798, 913, 966, 1008 TFLOP/s counted over the triangle, a causal series' rise).
bool cudnn_fp8_backward_on_blackwell(std::string_view family, const PublishedFigure& f,
                                     const hw::Spec& gpu) {
  return is_cudnn(family) && f.pass == Pass::bwd && f.shape.dtype == Dtype::fp8 &&
         model::is_blackwell(gpu) && f.shape.headdim <= 192 && f.shape.headdim_v <= 128;
}

// From cuDNN 9.22, its fp8 backward on Blackwell above this head dim of Q and K (192/128 in the
// record) is modeled on the 2-CTA pair, as FA4's backward must run there ("Must use 2CTA for hdim
// 192", flash_attn/cute/flash_bwd_sm100.py at 0251105: its tensor-memory map, factors.hpp's
// kFa4SharedTmemColumnsStepCycles, fits dQ only halved on the pair). The record agrees from 9.24
// on: on one CTA the model has those figures 8-42% too slow (B300 9.24, GB200 and GB300 9.26), its
// shared-memory port the bound (the float32 dQ through shared memory is half of it), while the same
// kernel's hd128 figures on B200 and GB200 sit at a median +3%; on the pair GB200's 9.26 figures
// are within -16% to +16% (lib/model/NOTES.md, section 2v). cuDNN 9.19's ten figures split (GB200
// -13% to -2% on one CTA, +5% to +23% on the pair; GB300 -20% to -13% and -3% to +9%); the gate is
// the release from which GB300's fp8 backward ran 1.87-1.98x its bf16 one, against 1.46x at 9.19
// (section 2q). cuDNN's bf16 backward there, its plain kernel, stays on one CTA (a 64-query tile
// fits tensor memory): on the pair its held-out figures' median rises.
constexpr std::int64_t kCudnnFp8OneCtaBackwardMaxHeaddim = 128;
constexpr int kCudnnFp8TwoCtaBackwardMinVersion = 92200;
// cuDNN's bf16/fp16 backward on Blackwell above this head dim runs its plain graph in the
// configuration the frontend pins for its deterministic one (128 x 128 tiles, the "bprop warp"
// kernel, two stages: cudnn-frontend scaled_dot_product_flash_attention.h,
// override_heuristics_query): the record's deterministic figures there match the plain ones of the
// same run and shape (0.94-1.07, 60 pairs at hd192/128 and hd256: GB200 and GB300 9.26, B300 9.24),
// where at hd64 and hd128 they run at 0.75-0.92 of them (lib/model/NOTES.md, section 2af).
constexpr std::int64_t kCudnnPlainPinnedAboveHeaddim = 128;
// cuDNN's bf16/fp16 backward on Hopper from this head dim (its 64 x 64 x 256 kernel) takes each
// tile's shared-memory traffic and MMA one after the other (Options::serial_smem_mma). Measured
// with ncu on the lent H200 (data/measurements/kernels/2026-11-29-h200-cudnn-bwd-smem.txt, cuDNN
// 9.19 through PyTorch; lib/model/NOTES.md, section 2am): at hd256 its tile is about their sum,
// 1.5-1.8x the longer of the two; at hd64 and hd128 also 1.5-1.7x the longer, which the model's
// step waits cover (their figures fit within about 10%), where at hd256 they leave the figures
// 28-70% too fast.
constexpr std::int64_t kCudnnSerialSmemMinHeaddim = 256;
// PyTorch's flash backend (FlashAttention-2 inside PyTorch). Its backward, called with BHSD
// tensors as the peer harness and the frontend's PyTorch path do, copies two query-side tensors
// into its layout first (Options::layout_copies; measured with torch.profiler on the lent H200,
// data/measurements/kernels/2026-11-29-h200-sdpa-backward-call.txt).
constexpr std::string_view kTorchFlash = "sdpa-flash";
// Blackwell Ultra's row maximum from the tensor-memory load (Options::row_max_on_load, on by
// default for the fa4 algorithm there). FA4's forward takes it from flash-attention PR 2696
// (af04967, 2026-07-11: `use_ldred_rowmax` in flash_fwd_sm100.py), so its figures dated before
// ran without; a run records no FA4 commit, so a figure's date stands for it (GB300's 9.26 run,
// 2026-07-24, cloned FA4's main when its image was built). cuDNN's Ultra kernels are not public
// (its published SM100 forward, bf16 built for sm_100a, declares `use_ldtm_stat_max = false`);
// the record shows its fp8 forward on Ultra with it and its bf16 forward without
// (lib/model/NOTES.md, section 2aj): its fp8 forward in releases 9.19.1, 9.24 and 9.26 (GB300,
// B300) runs as fast as the softmax stream without the FMNMX allows, where the model without it
// was slow by 17-23% (medians per head dim and GPU; up to 31%), while its bf16 forward where the
// softmax stream binds (hd64: GB300 9.19.1 under a 1024-key window, flash-attention PR 2605) runs
// as without it: in the same 9.19.1 run the fp8 hd64 figures move from -14..-6% to -5..+3% with
// it and the bf16 ones from +3..+11% to +14..+22%. Release 9.18.1 on GB300, loaded later
// (section 2as), runs its fp8 forward at 0.89-0.95 of 9.19.1's, between the two: its 4 fit-role
// figures sit at +5.5..+7.5% with the row max and -9.5..-15.1% without, so from 9.18.1. A cuDNN
// figure without a recorded release is modeled without.
constexpr std::string_view kFa4RowMaxOnLoadSince = "2026-07-11";
constexpr int kCudnnFp8RowMaxOnLoadMinVersion = 91800;

// The cuDNN backend version the figure's source records ("cudnn_backend_version 92600" in its
// software line), or 0.
int cudnn_backend_version(const PublishedFigure& f) {
  constexpr std::string_view kKey = "cudnn_backend_version ";
  if (!f.provenance) return 0;
  const std::string& text = f.provenance->software;
  const std::size_t at = text.find(kKey);
  if (at == std::string::npos) return 0;
  int version = 0;
  const char* first = text.data() + at + kKey.size();
  std::from_chars(first, text.data() + text.size(), version);
  return version;
}

// Host time of one framework call that the figure's benchmark timed beside the kernels: a figure
// read from a public benchmark (it has an origin) timed single PyTorch-level calls unless its
// origin says the benchmark summed the kernels' device durations.
double call_seconds(const PublishedFigure& f) {
  return f.provenance && !f.provenance->times_kernels ? model::factors::kFrameworkCallSeconds
                                                      : 0.0;
}

}  // namespace

ModeledAs modeled_as(const PublishedFigure& f, const hw::Spec& gpu) {
  std::string_view family = f.kernel;
  model::Options o;
  o.pass = f.pass;
  o.deterministic = strip_suffix(family, kDeterministicSuffix);
  const bool one_cta = strip_suffix(family, kOneCtaSuffix);
  const bool cudnn_fp8_backward = cudnn_fp8_backward_on_blackwell(family, f, gpu);
  o.deterministic = o.deterministic || cudnn_fp8_backward;
  const auto algorithm = f.modeled_as ? f.modeled_as : closest_algorithm(family, gpu);
  if (!algorithm)
    return {std::nullopt,
            fmt::format("no algorithm of the model stands for {} on {}", f.kernel, gpu.id)};
  o.algorithm = *algorithm;
  const bool fa4_on_blackwell = family == "fa4" && model::is_blackwell(gpu);
  const bool fa4_backward_on_blackwell = fa4_on_blackwell && f.pass == Pass::bwd;
  const bool dedicated_hd256 =
      f.shape.headdim == kFa4DedicatedHeaddim && f.shape.headdim_v == kFa4DedicatedHeaddim;
  o.split_dq_backward = fa4_backward_on_blackwell && dedicated_hd256;
  const bool default_two_cta = !one_cta && f.shape.headdim >= kFa4TwoCtaBackwardMinHeaddim;
  o.shared_tmem_columns_backward = fa4_backward_on_blackwell &&
                                   f.shape.headdim == kFa4SharedColumnsHeaddim &&
                                   f.shape.headdim_v == kFa4SharedColumnsHeaddimV;
  // FA4's forward is persistent only without a mask and below hd256.
  o.single_tile_grid = fa4_on_blackwell && (f.pass == Pass::bwd || f.shape.causal ||
                                            f.shape.window > 0 || dedicated_hd256);
  o.two_cta = (fa4_backward_on_blackwell && (default_two_cta || o.split_dq_backward)) ||
              (cudnn_fp8_backward && f.shape.headdim > kCudnnFp8OneCtaBackwardMaxHeaddim &&
               cudnn_backend_version(f) >= kCudnnFp8TwoCtaBackwardMinVersion);
  // cuDNN's deterministic backward outside that fp8 routing, and its plain backward above hd128
  // on Blackwell (the configuration the frontend pins for deterministic runs there, whose times
  // the plain ones match): the plain kernel, its GQA group reduction included, plus a fixed time
  // per tile step (model::factors::kCudnnDeterministicStepCycles).
  const bool cudnn_backward = is_cudnn(family) && f.pass == Pass::bwd && !cudnn_fp8_backward;
  // cuDNN's fp8 backward on Hopper has no deterministic configuration: the frontend passes the
  // flag to the backend only on Blackwell (sdpa_fp8_bwd.h), and on the lent H200 both graphs run
  // the same kernels at the same times (data/measurements/kernels/
  // 2026-11-29-h200-cudnn-fp8-deterministic-backward.txt).
  if (cudnn_backward && model::is_hopper(gpu) && f.shape.dtype == Dtype::fp8)
    o.deterministic = false;
  const bool plain_pinned = model::is_blackwell(gpu) && f.shape.dtype != Dtype::fp8 &&
                            f.shape.headdim > kCudnnPlainPinnedAboveHeaddim;
  o.cudnn_deterministic_steps = cudnn_backward && (o.deterministic || plain_pinned);
  o.group_reduced_key_grads = cudnn_backward;
  o.fixed_order_tiles = (is_cudnn(family) && model::is_hopper(gpu) && f.pass == Pass::fwd) ||
                        (fa4_on_blackwell && f.pass == Pass::fwd && dedicated_hd256);
  o.layout_copies = family == kTorchFlash && f.pass == Pass::bwd;
  o.serial_smem_mma = cudnn_backward && model::is_hopper(gpu) &&
                      f.shape.dtype != Dtype::fp8 && f.shape.headdim >= kCudnnSerialSmemMinHeaddim;
  o.dq_adds_spill_l2 =
      cudnn_backward && model::is_hopper(gpu) && f.shape.dtype == Dtype::fp8 && f.shape.causal;
  if (model::is_blackwell_ultra(gpu) && o.algorithm == model::Algorithm::fa4 &&
      f.pass == Pass::fwd)
    o.row_max_on_load =
        (family == "fa4" && f.provenance && f.provenance->date >= kFa4RowMaxOnLoadSince) ||
        (is_cudnn(family) && f.shape.dtype == Dtype::fp8 &&
         cudnn_backend_version(f) >= kCudnnFp8RowMaxOnLoadMinVersion);
  if (o.deterministic && f.pass != Pass::bwd)
    return {std::nullopt,
            "a deterministic forward pass is the plain one; the figure is mislabeled"};
  return {o, "", cudnn_fp8_backward};
}

double FigureVsModel::error_percent() const {
  return 100 * (*predicted_tflops - figure->tflops) / figure->tflops;
}

std::vector<FigureVsModel> compare_with_model(const std::vector<hw::Spec>& gpus,
                                              const std::vector<PublishedFigure>& figures) {
  std::vector<FigureVsModel> out;
  out.reserve(figures.size());
  for (const PublishedFigure& f : figures) {
    FigureVsModel row;
    row.figure = &f;
    auto gpu = hw::find_spec(gpus, f.model_gpu());
    if (!gpu) {
      row.not_modeled = fmt::format("no hardware model for {}", f.model_gpu());
      out.push_back(std::move(row));
      continue;
    }
    row.gpu_model = *gpu;
    ModeledAs as = modeled_as(f, **gpu);
    row.options = as.options;
    row.not_modeled = as.not_modeled;
    if (as.options) {
      AttnShape walked = f.shape;
      if (as.masks_window_without_skipping) walked.window = 0;
      auto p = model::predict(**gpu, walked, *as.options);
      if (p)
        row.predicted_tflops = published_flops(f) / (p->time_s + call_seconds(f)) / 1e12;
      else
        row.not_modeled = p.error().message;
    }
    out.push_back(std::move(row));
  }
  return out;
}

ErrorSummary summarize_errors(const std::vector<const FigureVsModel*>& rows) {
  ErrorSummary out;
  std::vector<double> errors;
  for (const FigureVsModel* r : rows) {
    if (!r->predicted_tflops) continue;
    errors.push_back(std::abs(r->error_percent()));
    if (!out.worst || errors.back() > std::abs(out.worst_percent)) {
      out.worst = r;
      out.worst_percent = r->error_percent();
    }
  }
  out.count = int(errors.size());
  // The timing statistics' median (lib/core/stats.hpp) serves any list of numbers.
  if (!errors.empty()) out.median_abs_percent = summarize(std::move(errors)).median_s;
  return out;
}

std::string gpu_family(const hw::Spec& gpu) {
  if (model::is_hopper(gpu)) return "Hopper";
  if (model::is_blackwell(gpu)) return "Blackwell";
  return std::string(hw::to_string(gpu.architecture));
}

bool held_out(const PublishedFigure& f) { return f.role == "held_out" || f.role.empty(); }

bool within_bounds(const PublishedFigure& f) { return f.outside_bounds.empty(); }

}  // namespace fa4::report
