// The profile table: one row per special case of an implementation, with the reason in a few
// lines and the measurement or source behind it (the fit history is in lib/model/NOTES.md,
// whose sections the rows name). Rows apply in order, each seeing the options the rows before it
// made; a figure's prediction lists the rows it paid.
#include "model/profiles.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>

#include "model/algorithm_traits.hpp"

namespace fa4::model {
namespace {

constexpr std::string_view kDeterministicSuffix = "-deterministic";
constexpr std::string_view kOneCtaSuffix = "-1cta";

bool is_cudnn(std::string_view family) { return family == "cudnn" || family == "sdpa-cudnn"; }
bool fa4_dedicated_hd256(const AttnShape& s) { return s.headdim == 256 && s.headdim_v == 256; }

// The algorithm that stands for a published family on a GPU family (a figure may name its own).
// cuDNN's fused attention is a persistent, warp-specialized kernel: fa3 on Hopper, fa4 on Blackwell.
struct StandsFor {
  std::string_view family;
  GpuFamily gpu;
  Algorithm algorithm;
};
constexpr StandsFor kStandsFor[] = {
    {"cudnn", GpuFamily::hopper, Algorithm::fa3},
    {"cudnn", GpuFamily::blackwell, Algorithm::fa4},
    {"fa4", GpuFamily::any, Algorithm::fa4},
};

bool on(GpuFamily family, const hw::Spec* gpu) {
  if (family == GpuFamily::any) return true;
  if (!gpu) return false;
  switch (family) {
    case GpuFamily::any: return true;
    case GpuFamily::hopper: return is_hopper(*gpu);
    case GpuFamily::blackwell: return is_blackwell(*gpu);
    case GpuFamily::blackwell_ultra: return is_blackwell_ultra(*gpu);
  }
  return false;
}

bool of_family(std::string_view wanted, std::string_view family) {
  return wanted.empty() || wanted == family || (wanted == "cudnn" && is_cudnn(family));
}

// cuDNN's fp8 backward on Blackwell up to head dims 192/128 runs its deterministic kernel
// (cudnn-frontend routes the graph there: sdpa_fp8_bwd.h, v1.22.0), so the rows of its other
// backward kernels leave it out.
bool cudnn_fp8_deterministic_route(const ProfileCase& c) {
  return is_cudnn(c.implementation.family) && c.pass == Pass::bwd &&
         c.shape.dtype == Dtype::fp8 && c.gpu && is_blackwell(*c.gpu) && c.shape.headdim <= 192 &&
         c.shape.headdim_v <= 128;
}
bool other_cudnn_backward(const ProfileCase& c) { return !cudnn_fp8_deterministic_route(c); }

// FA4's Blackwell backward takes the 2-CTA pair from hd128 (interface.py, `use_2cta_instrs =
// head_dim >= 128 and ...` since PR 2280, a00ddeb), one CTA below it or as "-1cta"; its dedicated
// hd256 kernels always take it (`use_dedicated_hd256_kernel`, PR 2412).
bool fa4_pair(const ProfileCase& c) {
  return (!c.implementation.one_cta && c.shape.headdim >= 128) || fa4_dedicated_hd256(c.shape);
}

// The rows. Each predicate is the part of "where" that the columns cannot say.
constexpr Profile kProfiles[] = {
    // cudnn-frontend routes a non-deterministic fp8 backward graph up to hd192/128 on Blackwell
    // to the deterministic kernel (sdpa_fp8_bwd.h, v1.22.0; GB200's plain and deterministic 9.19
    // figures differ by 0-3%); that kernel walks the whole causal triangle under a sliding window
    // (its windowed figures fall as 1/s: lib/model/NOTES.md, section 2q).
    {"cudnn fp8 bwd blackwell: deterministic kernel", "cudnn", GpuFamily::blackwell, Pass::bwd,
     DtypeIs::fp8, 0, "",
     [](const ProfileCase& c) { return c.shape.headdim <= 192 && c.shape.headdim_v <= 128; },
     Term::deterministic_kernel,
     "up to hd192/128 the deterministic kernel, the window masked over the whole triangle"},
    // The frontend passes the deterministic flag to the backend on Blackwell only (sdpa_fp8_bwd.h);
    // on the lent H200 both graphs run the same kernels at the same times
    // (data/measurements/kernels/2026-11-29-h200-cudnn-fp8-deterministic-backward.txt).
    {"cudnn fp8 bwd hopper: one kernel", "cudnn", GpuFamily::hopper, Pass::bwd, DtypeIs::fp8, 0, "",
     nullptr, Term::no_deterministic_kernel,
     "no deterministic configuration: the plain kernel either way"},
    // FA4's dedicated hd256 backward (sm100_hd256_2cta_fmha_backward.py, PR 2412): a dQ kernel and
    // a dK, dV kernel, each computing S and dP itself.
    {"fa4 bwd blackwell hd256: split dQ kernels", "fa4", GpuFamily::blackwell, Pass::bwd,
     DtypeIs::any, 0, "", [](const ProfileCase& c) { return fa4_dedicated_hd256(c.shape); },
     Term::split_dq_backward, "hd256: a dQ kernel and a dK dV kernel, one after the other"},
    // flash_bwd_sm100.py's 2-CTA tensor-memory map for tile_hdim 192, tile_hdimv 128 shares
    // S/P's columns with dP/dS and dQ.
    {"fa4 bwd blackwell hd192/128: shared tensor-memory columns", "fa4", GpuFamily::blackwell,
     Pass::bwd, DtypeIs::any, 0, "",
     [](const ProfileCase& c) { return c.shape.headdim == 192 && c.shape.headdim_v == 128; },
     Term::shared_tmem_columns_backward, "hd192/128: each step waits for the shared columns"},
    // One CTA per work tile (SingleTileScheduler, SingleTileLPTScheduler): FA4's backward, and its
    // forward under a mask (interface.py makes it persistent only without one) or at hd256
    // (`is_persistent = False`).
    {"fa4 blackwell: single-tile grid", "fa4", GpuFamily::blackwell, std::nullopt, DtypeIs::any, 0,
     "",
     [](const ProfileCase& c) {
       return c.pass == Pass::bwd || c.shape.causal || c.shape.window > 0 ||
              fa4_dedicated_hd256(c.shape);
     },
     Term::single_tile_grid, "one CTA per work tile: the backward, a masked or hd256 forward"},
    {"fa4 bwd blackwell: 2-CTA pair", "fa4", GpuFamily::blackwell, Pass::bwd, DtypeIs::any, 0, "",
     fa4_pair, Term::two_cta, "the 2-CTA pair from hd128 (not as -1cta), always at hd256"},
    // From 9.22 cuDNN's fp8 backward above hd128 is modeled on the pair, as FA4's must run there
    // ("Must use 2CTA for hdim 192"): on one CTA its 9.24/9.26 figures are 8-42% too slow, on the
    // pair within 16%; the gate is where GB300's fp8 backward ran 1.87-1.98x its bf16 one
    // (NOTES.md, sections 2q, 2v).
    {"cudnn >= 9.22 fp8 bwd blackwell above hd128: 2-CTA pair", "cudnn", GpuFamily::blackwell,
     Pass::bwd, DtypeIs::fp8, 92200, "",
     [](const ProfileCase& c) { return cudnn_fp8_deterministic_route(c) && c.shape.headdim > 128; },
     Term::two_cta, "the deterministic fp8 kernel on the 2-CTA pair above hd128"},
    // Its deterministic backward, and above hd128 on Blackwell its plain one, which runs the
    // configuration the frontend pins for deterministic runs (override_heuristics_query; the
    // record's pairs there match at 0.94-1.07: NOTES.md, section 2af): a fixed time per step.
    {"cudnn bwd: fixed step cost", "cudnn", GpuFamily::any, Pass::bwd, DtypeIs::any, 0, "",
     [](const ProfileCase& c) {
       const bool pinned = c.gpu && is_blackwell(*c.gpu) && c.shape.dtype != Dtype::fp8 &&
                           c.shape.headdim > 128;
       return other_cudnn_backward(c) && (c.options.deterministic || pinned);
     },
     Term::fixed_step_cost, "deterministic, or bf16/fp16 above hd128 on Blackwell: a time a step"},
    // Its GQA backward stores dK, dV per query head and sums each group in two launches after it
    // (fmha_reduce_head: ncu on the lent H200, lib/kernels/fa3/NOTES_BWD.md run 7).
    {"cudnn bwd: group-reduced dK dV", "cudnn", GpuFamily::any, Pass::bwd, DtypeIs::any, 0, "",
     other_cudnn_backward, Term::group_reduced_key_grads,
     "dK dV per query head, each group summed in two launches after"},
    // cuDNN's Hopper forward takes its tiles in a fixed order (measured on the lent H200:
    // data/measurements/kernels/2026-11-29-h200-cudnn-fwd-causal.txt).
    {"cudnn fwd hopper: fixed tile order", "cudnn", GpuFamily::hopper, Pass::fwd, DtypeIs::any, 0,
     "", nullptr, Term::fixed_order_tiles, "tiles in a fixed order, not the longest first"},
    // sm100_hd256_2cta_fmha_forward.py's static scheduler takes the block index as its tile:
    // the shortest first under a causal mask.
    {"fa4 fwd blackwell hd256: fixed tile order", "fa4", GpuFamily::blackwell, Pass::fwd,
     DtypeIs::any, 0, "", [](const ProfileCase& c) { return fa4_dedicated_hd256(c.shape); },
     Term::fixed_order_tiles, "hd256: query blocks in order, the shortest first"},
    // PyTorch's flash backend, called with BHSD tensors, copies two query-side tensors into its
    // layout first (torch.profiler on the lent H200, 2026-11-29-h200-sdpa-backward-call.txt).
    {"sdpa-flash bwd: layout copies", "sdpa-flash", GpuFamily::any, Pass::bwd, DtypeIs::any, 0, "",
     nullptr, Term::layout_copies, "two query-side tensors copied into its layout first"},
    // Its 64 x 64 x 256 kernel takes each tile's shared-memory traffic and MMA one after the other
    // (ncu on the lent H200, 2026-11-29-h200-cudnn-bwd-smem.txt: 1.5-1.8x the longer of the two;
    // NOTES.md, section 2am).
    {"cudnn bwd hopper hd256: shared memory after the MMA", "cudnn", GpuFamily::hopper, Pass::bwd,
     DtypeIs::not_fp8, 0, "",
     [](const ProfileCase& c) { return other_cudnn_backward(c) && c.shape.headdim >= 256; },
     Term::serial_smem_mma, "bf16/fp16 from hd256: shared memory and MMA in sequence"},
    // Its causal fp8 backward adds dQ beyond a band next to the diagonal in HBM (ncu on the lent
    // H200, 2026-11-29-h200-cudnn-fp8-causal-backward.txt).
    {"cudnn fp8 bwd hopper causal: dQ adds in HBM", "cudnn", GpuFamily::hopper, Pass::bwd,
     DtypeIs::fp8, 0, "",
     [](const ProfileCase& c) { return other_cudnn_backward(c) && c.shape.causal; },
     Term::dq_adds_spill_l2, "causal: dQ adds beyond a band of the diagonal miss L2"},
    // Its decode (one query row per sequence, cudnn-frontend's decode sweep): the GQA group's
    // query heads read each KV head's cache once, its key range dealt to all SMs with float32
    // partials and a combine, HBM-bound (cuDNN's decode kernels are not public; the record's
    // decode figures read 4.4-4.5 TB/s on H200 and 7.2-7.5 TB/s on GB200 from 1 GB of cache,
    // which no tile per query head reaches: NOTES.md, section 8).
    {"cudnn fwd decode: GQA-packed split KV", "cudnn", GpuFamily::any, Pass::fwd, DtypeIs::any, 0,
     "", [](const ProfileCase& c) { return c.shape.seqlen_q == 1; }, Term::decode_packed,
     "one query row: the group's heads packed, the keys dealt to every SM, partials combined"},
    // A published fa4 forward on Blackwell Ultra takes each row's max in software unless a row
    // below says its release takes it from the tensor-memory load.
    {"blackwell ultra fwd: software row max", "", GpuFamily::blackwell_ultra, Pass::fwd,
     DtypeIs::any, 0, "",
     [](const ProfileCase& c) { return c.options.algorithm == Algorithm::fa4; },
     Term::software_row_max, "the row max in software (FMNMX), unless a row below"},
    // FA4's forward takes it from flash-attention PR 2696 (af04967, 2026-07-11:
    // `use_ldred_rowmax`);
    // a run records no FA4 commit, so its date stands for it.
    {"fa4 >= 2026-07-11 fwd blackwell ultra: row max from the load", "fa4",
     GpuFamily::blackwell_ultra, Pass::fwd, DtypeIs::any, 0, "2026-07-11",
     [](const ProfileCase& c) { return c.options.algorithm == Algorithm::fa4; },
     Term::row_max_on_load, "the row max from the tensor-memory load (tcgen05.ld.red)"},
    // cuDNN's Ultra kernels are not public; the record shows its fp8 forward with it from 9.18.1
    // (+5.5..+7.5% with, -9.5..-15.1% without) and its bf16 forward without (NOTES.md, sections
    // 2aj, 2as). A figure without a recorded release is modeled without.
    {"cudnn >= 9.18 fp8 fwd blackwell ultra: row max from the load", "cudnn",
     GpuFamily::blackwell_ultra, Pass::fwd, DtypeIs::fp8, 91800, "",
     [](const ProfileCase& c) { return c.options.algorithm == Algorithm::fa4; },
     Term::row_max_on_load, "the row max from the tensor-memory load"},
    // The lab's own backward kernels (lib/kernels/fa3/fa3_bwd.cu, fa2_bwd.cu): one CTA walks a key
    // block's query blocks for a GQA group, fa3_bwd's dQ by bulk reduce-adds from a staging tile
    // (atomics from registers in fa3_bwd_atomics), fa2_bwd's dQ reductions hidden under its
    // port-bound loop; the ablations are predicted as fa3_bwd.
    {"our fa3_bwd", "fa3_bwd", GpuFamily::any, Pass::bwd, DtypeIs::any, 0, "", nullptr,
     Term::group_walking_tensor_reduce, "the lab's Hopper schedule, dQ by bulk reduce-adds"},
    {"our fa3_bwd_no_overlap", "fa3_bwd_no_overlap", GpuFamily::any, Pass::bwd, DtypeIs::any, 0, "",
     nullptr, Term::group_walking_tensor_reduce, "as our fa3_bwd"},
    {"our fa3_bwd_one_stage", "fa3_bwd_one_stage", GpuFamily::any, Pass::bwd, DtypeIs::any, 0, "",
     nullptr, Term::group_walking_tensor_reduce, "as our fa3_bwd"},
    {"our fa3_bwd_no_persistent", "fa3_bwd_no_persistent", GpuFamily::any, Pass::bwd, DtypeIs::any,
     0, "", nullptr, Term::group_walking_tensor_reduce, "as our fa3_bwd"},
    {"our fa3_bwd_atomics", "fa3_bwd_atomics", GpuFamily::any, Pass::bwd, DtypeIs::any, 0, "",
     nullptr, Term::group_walking_atomics, "the lab's Hopper schedule, dQ by atomics"},
    {"our fa2_bwd", "fa2_bwd", GpuFamily::any, Pass::bwd, DtypeIs::any, 0, "", nullptr,
     Term::hidden_dq_reductions, "dQ reductions hidden under the port-bound loop"},
    {"our fa2_bwd_deterministic", "fa2_bwd_deterministic", GpuFamily::any, Pass::bwd, DtypeIs::any,
     0, "", nullptr, Term::hidden_dq_reductions, "as our fa2_bwd"},
    // The lab's decode kernels (lib/kernels/decode, core/decode_tiles.hpp): GQA-packed 64-row
    // tiles, S, softmax and P V in sequence, the balanced partition or whole row blocks; timed
    // after the harness's L2 flush (bench/timer.cpp), whose dirty lines share the read's HBM.
    {"our fa3_decode", "fa3_decode", GpuFamily::any, Pass::fwd, DtypeIs::any, 0, "", nullptr,
     Term::decode_packed,
     "GQA-packed rows, split (uniform) or balanced (ragged) work, partials and their combine"},
    {"our fa3_decode_nosplit", "fa3_decode_nosplit", GpuFamily::any, Pass::fwd, DtypeIs::any, 0, "",
     nullptr, Term::decode_whole_row_blocks, "GQA-packed rows, each row block whole in a CTA"},
    {"our fa3_decode: after the L2 flush", "fa3_decode", GpuFamily::any, Pass::fwd, DtypeIs::any, 0,
     "", nullptr, Term::after_l2_flush, "the flush's dirty L2 lines written back during the read"},
    {"our fa3_decode_nosplit: after the L2 flush", "fa3_decode_nosplit", GpuFamily::any, Pass::fwd,
     DtypeIs::any, 0, "", nullptr, Term::after_l2_flush, "as our fa3_decode"},
    {"our fa2_bwd_deterministic: dQ slots", "fa2_bwd_deterministic", GpuFamily::any, Pass::bwd,
     DtypeIs::any, 0, "", nullptr, Term::deterministic_kernel, "dQ parts in slots summed in order"},
};

bool matches(const Profile& row, const ProfileCase& c) {
  const Implementation& impl = c.implementation;
  const bool fp8 = c.shape.dtype == Dtype::fp8;
  return of_family(row.family, impl.family) && on(row.gpu, c.gpu) &&
         (!row.pass || *row.pass == c.pass) &&
         (row.dtype == DtypeIs::any || (row.dtype == DtypeIs::fp8) == fp8) &&
         (row.min_release == 0 || impl.release >= row.min_release) &&
         (row.since.empty() || impl.date >= row.since) && (!row.holds || row.holds(c));
}

void pay(Term term, Options& o, Configured* out) {
  switch (term) {
    case Term::deterministic_kernel:
      o.deterministic = true;
      if (out) out->masks_window_without_skipping = true;
      return;
    case Term::no_deterministic_kernel: o.deterministic = false; return;
    case Term::split_dq_backward: o.split_dq_backward = true; return;
    case Term::shared_tmem_columns_backward: o.shared_tmem_columns_backward = true; return;
    case Term::single_tile_grid: o.single_tile_grid = true; return;
    case Term::two_cta: o.two_cta = true; return;
    case Term::fixed_step_cost: o.fixed_step_cost = true; return;
    case Term::group_reduced_key_grads: o.group_reduced_key_grads = true; return;
    case Term::fixed_order_tiles: o.fixed_order_tiles = true; return;
    case Term::layout_copies: o.layout_copies = true; return;
    case Term::serial_smem_mma: o.serial_smem_mma = true; return;
    case Term::dq_adds_spill_l2: o.dq_adds_spill_l2 = true; return;
    case Term::software_row_max: o.row_max_on_load = false; return;
    case Term::row_max_on_load: o.row_max_on_load = true; return;
    case Term::group_walking_tensor_reduce: o.group_walking_backward = DqAdd::tensor_reduce; return;
    case Term::group_walking_atomics: o.group_walking_backward = DqAdd::atomics; return;
    case Term::hidden_dq_reductions: o.hidden_dq_reductions = true; return;
    case Term::decode_packed:
      o.decode = DecodePartition::chosen;
      return;
    case Term::decode_whole_row_blocks:
      o.decode = DecodePartition::whole_row_blocks;
      return;
    case Term::after_l2_flush:
      o.after_l2_flush = true;
      return;
  }
}

// Applies every row that holds, in order; where `out` is given, records them there.
void apply(const ProfileCase& c, Options& o, Configured* out) {
  for (const Profile& row : kProfiles)
    if (matches(row, {c.implementation, c.gpu, c.shape, c.pass, o})) {
      pay(row.term, o, out);
      if (out) out->paid.push_back(row.name);
    }
}

bool strip_suffix(std::string_view& name, std::string_view suffix) {
  if (!name.ends_with(suffix)) return false;
  name.remove_suffix(suffix.size());
  return true;
}

}  // namespace

Implementation parse_implementation(std::string_view kernel) {
  Implementation out;
  out.deterministic = strip_suffix(kernel, kDeterministicSuffix);
  out.one_cta = strip_suffix(kernel, kOneCtaSuffix);
  out.family = std::string(kernel);
  return out;
}

std::span<const Profile> profiles() { return kProfiles; }

Configured configure(const Implementation& impl, const hw::Spec& gpu, const AttnShape& shape,
                     Pass pass) {
  Configured out;
  Options o;
  o.pass = pass;
  o.deterministic = impl.deterministic;
  std::optional<Algorithm> algorithm = impl.algorithm;
  for (const StandsFor& row : kStandsFor)
    if (!algorithm && of_family(row.family, impl.family) && on(row.gpu, &gpu))
      algorithm = row.algorithm;
  if (!algorithm) {
    out.not_modeled = fmt::format("no algorithm of the model stands for {}{}{} on {}",
                                  impl.family, impl.one_cta ? kOneCtaSuffix : "",
                                  impl.deterministic ? kDeterministicSuffix : "", gpu.id);
    return out;
  }
  o.algorithm = *algorithm;
  apply({impl, &gpu, shape, pass, o}, o, &out);
  if (o.deterministic && pass != Pass::bwd) {
    out.not_modeled = "a deterministic forward pass is the plain one; the figure is mislabeled";
    return out;
  }
  out.options = o;
  return out;
}

Options with_kernel_profile(std::string_view kernel, const AttnShape& shape, Options options,
                            std::vector<std::string_view>* paid) {
  Implementation impl;
  impl.family = std::string(kernel);
  Configured rows;
  apply({impl, nullptr, shape, options.pass, options}, options, paid ? &rows : nullptr);
  if (paid) paid->insert(paid->end(), rows.paid.begin(), rows.paid.end());
  return options;
}

}  // namespace fa4::model
