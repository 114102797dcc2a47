// Every number in the model that is not a hardware rate: named, explained, and either derived
// (by counting instructions or bytes) or fitted, with the data it was fitted to. predict() lists
// the ones it used in Prediction::factors so that the CLI and the report show them.
#pragma once

#include <span>
#include <string_view>

#include "core/fa2_bwd_tiles.hpp"
#include "model/model.hpp"

namespace fa4::model::factors {

// --- Instruction counts (derived by counting, not fitted) -----------------------------------

// FP32-pipe instructions per element of S in the online softmax, besides exp2 itself:
// scale-and-subtract-max (1 FFMA), row-max (1 FMNMX), row-sum (1 FADD), bf16 pack (0.5 F2FP).
inline constexpr double kSoftmaxFmaOpsPerElement = 3.5;
// The row max's part of kSoftmaxFmaOpsPerElement (one FMNMX per score), which a kernel skips on a
// block the mask does not cross when the tensor-memory load of S returns each row's maximum
// (Options::row_max_on_load: tcgen05.ld.red, PTX ISA 8.8, Blackwell Ultra only). A masked block's
// maximum must be taken after the mask, in software (flash-attention PR 2696, flash_fwd_sm100.py:
// "Masked iterations reduce over post-mask values in software"). Counted in the scalar convention
// of kSoftmaxFmaOpsPerElement; FA4's SM100 code takes the max with a three-input FMNMX, half an
// instruction per score of its 2.0 packed ones, the same quarter of the softmax's FP32 work but a
// sixth, not a fifth, of the issue stream with MUFU's slot. The record's Ultra fp8 forward takes
// the scalar count (held-out median 7.2%; 8.3% at 0.75, the packed share: NOTES.md section 2aj).
inline constexpr double kRowMaxOpsPerElement = 1.0;
// FP32-pipe instructions of one emulated exp2 (FA4 §3.1.3): round-down add and subtract of
// 2^23+2^22 (2 FADD), the fraction (1 FADD), degree-3 Horner polynomial (3 FFMA).
inline constexpr double kFmaOpsPerEmulatedExp2 = 6.0;
// Its integer/ALU instructions: the clamp (FMNMX), the shift of the floor into the exponent
// field (SHF) and the exponent add (IADD). They run on the ALU pipe, not the FP32 one, but every
// instruction takes an issue slot.
inline constexpr double kAluOpsPerEmulatedExp2 = 3.0;
// Issue slots: each of the SM's 4 warp schedulers issues one warp instruction (32 lanes) per
// clock (NVIDIA Hopper and Blackwell architecture whitepapers), 128 lane-instructions per clock
// per SM, the FP32 pipe's own width. The model's `fma` unit is this issue stream: the softmax's
// FP32 instructions, the emulated exp2's FP32 and ALU instructions, and one issue slot per
// hardware exp2 sent to MUFU. This is what bounds the emulated share from above: on B200 it puts
// the best share (the one that leaves the softmax the most slack under the MMA) at 22%.
inline constexpr double kIssueLanesPerClkPerSm = 128;
// FP32-pipe instructions per element of S in the backward pass: recompute P (1 FFMA), dS =
// P * (dP - D) (FADD + FMUL), bf16 packs of P and dS (1). The backward's `fma` unit is the same
// issue stream as the forward's (kIssueLanesPerClkPerSm): these, plus one issue slot per exp2 sent
// to MUFU. It binds where MUFU doubled: Blackwell Ultra's backward softmax stream is 640 cycles a
// 128 x 128 tile, not MUFU's 512 (lib/model/NOTES.md, section 2j), and on A100 (64 FP32 lanes)
// 1152 against MUFU's 1024 (its tile stays bound by the MMA); elsewhere MUFU binds.
inline constexpr double kBackwardFmaOpsPerElement = 4.0;
// FP32-pipe instructions per element that an fp8 backward adds to kBackwardFmaOpsPerElement: the
// per-tensor scaling of cuDNN's fp8 graph (cudnn-frontend include/cudnn_frontend/node/
// sdpa_fp8_bwd.h): descale S (descale_q, descale_k), scale P before its fp8 cast (scale_s),
// descale dP (descale_dO, descale_V), the running amax of dS (amax_dP, a reduction over every
// element) and scale dS before its fp8 cast (scale_dP): 3 to 7 instructions, as the constant
// factors fold into the softmax's FFMAs or not. Fitted within that count to the record's "fit"
// fp8 backward figures on Blackwell (36: cuDNN 9.13 on B200, 9.19 on GB200 and GB300, 9.24 on
// B300), over whole instruction counts beside the issue slot of each exp2: 5 (median |error|
// 11.1% at 3, 7.6% at 4, 6.2% at 5, 7.8% at 6, where B300's deterministic series turns to -40%;
// 6 before that slot was counted, the same total). The bf16 backward's casts of P and dS are
// counted there.
inline constexpr double kFp8BackwardExtraFmaOpsPerElement = 5.0;

// --- Published figures used as rates ------------------------------------------------------

// mma.sync (the Ampere instruction that FA2 uses) reaches about 2/3 of Hopper's wgmma peak.
// Source: FA3 paper (arXiv 2407.08608) §2. Ampere: native rate (1). Blackwell: below.
inline constexpr double kMmaSyncShareHopper = 2.0 / 3.0;
// mma.sync on Blackwell: FA2's instruction runs far below tcgen05's rate there (the tensor cores
// doubled for tcgen05 only). Fitted to FlashAttention-2 (flash-attn 2.7.4 and PyTorch's flash
// backend) on B200, the record's "fit" figures (cudnn-frontend's B200 CSV, flash-attention issue
// 1589): 0.35 of tcgen05's peak, about Hopper's mma.sync rate per SM and clock (2/3 of half).
inline constexpr double kMmaSyncShareBlackwell = 0.35;
// Conditional rescaling (threshold 8 in log2 units) skips ~90% of rescales (FA4 §3.1.4): the
// share of tiles that still rescale O.
inline constexpr double kConditionalRescaleShare = 0.10;
// FA4's default emulated exp2 share (FA4 repo tuning, fa4-facts.md §4): 12.5%.
inline constexpr double kFa4DefaultExpEmulation = 0.125;

// --- Overlap of the tensor-core stream with the softmax stream -----------------------------
// A tile's time is max(T, S) + (1 - overlap) * min(T, S) (Hopper's ping-pong: see
// kHopperPingPongHiddenShare), T = the tensor stream (MMA at the
// sustained GEMM rate, and the operand reads the tensor core makes from shared memory),
// S = the softmax stream (MUFU or FP32 pipe, whichever is busier; for FA2 plus the exposed part
// of the ldmatrix reads its warps issue).

// FA2: one warp runs MMA, then softmax, then MMA, with no overlap inside a warp (FA2 paper); but
// the SM holds 8 such warps (2 CTAs of 4 at hd <= 128, one of 8 at hd 256) and its schedulers
// issue one warp's exp2 and ldmatrix while another's mma.sync runs. Fitted to our fa2 on the
// lent H200 at seqlen 8k, non-causal (335 / 353 / 329 TFLOP/s at hd 64 / 128 / 256, implied
// overlap 0.37 / 0.21 / 0.22; data/published/ours-h200.json); PyTorch's flash backend in the same
// run (307 / 362 / 323) is then modeled within 4%.
inline constexpr double kOverlapFa2Forward = 0.25;
// FA2's warps read their K and V fragments from shared memory with ldmatrix in the same
// instruction stream as their mma.sync; about half of that time is exposed. Fitted to PyTorch's
// flash backend forward on the lent H200 at seqlen 8k, non-causal, hd 64 / 128 / 256 (305 / 342 /
// 322 TFLOP/s, peer-timings-h200.md): the remainder after MMA and exp is 0.35 / 0.50 / 0.46 of
// the ldmatrix time. (The backward pass counts all of it: its re-read factor below was fitted so.)
inline constexpr double kFa2ExposedSmemShare = 0.5;
// FA3 on Hopper (and FA4's softmax on its pipeline): two consumer warpgroups ping-pong, one's
// softmax running while the other's GEMMs keep the tensor cores busy, plus the intra-warpgroup
// overlap of the next S GEMM with the current softmax. That hides softmax time up to a share of
// the tensor stream's length; the rest is exposed:
//   tile = max(T, S) + max(0, min(T, S) - share * max(T, S)).
// So the softmax is all but free where it is short beside the GEMMs (hd256: S = 0.2 T) and
// mostly exposed where it is as long (hd64: S = 0.8 T at 192-key blocks). Fitted, with the tile
// overhead below, to our fa3 on the lent H200 over the fa3-paper sweep (hd 64/128/256, seqlen
// 512..16k, both masks, 36 shapes; data/runs/2026-11-23-h200.db): every shape within 9.3%;
// held out, the day's final run (reports/h200-2026-11-23.md) within 8.1% and the previous day's
// run within 7.9%. (A fixed share of the shorter stream, this model's rule before, could not fit
// hd64 and hd256 at once: 27-32% off at hd64.) The backward pass of fa3 and fa4 on Hopper takes
// the same rule; no measurement or published figure checks it there.
inline constexpr double kHopperPingPongHiddenShare = 0.27;

// FA4's forward on Blackwell: tcgen05 MMA is fully asynchronous, two softmax warpgroups (one per
// 128-row half of the 256-row tile) and a correction warpgroup run beside it (FA4 §3.1). Three
// rules, fitted together to the record's "fit" bf16 forward figures (cuDNN and FA4 on B200,
// GB200, B300 and GB300; data/published/record; lib/model/NOTES.md has the search and its errors):
// - Every unit runs at the GPU's sustained share (gemm_efficiency), not the tensor core alone: a
//   large GEMM's shortfall on Blackwell is mostly the clock the chip sustains under load, which
//   slows MUFU, the FP32 pipe and shared memory alike. FA4's figures require it: its Table 1 puts
//   MMA and exp2 at 1024 cycles each per 128x128 hd128 tile, and its kernel reaches 71% of the
//   B200 peak (1613 TFLOP/s), as cuBLAS's GEMM does (1610); with the sustained share on the MMA
//   alone, MUFU had 40% slack there and neither software exp2 nor conditional rescaling could
//   gain anything, against the paper's finding that the B200 forward is exp-bound.
// - The softmax warps reach only this share of the SM's issue rate (kIssueLanesPerClkPerSm): two
//   warpgroups are 8 warps, two per scheduler, each a chain of dependent FFMA, MUFU and tensor-
//   memory instructions per row. This is what bounds hd64 where MUFU doubled (GB300: MUFU and MMA
//   each 1024 cycles per tile, the issue stream 1165; FA4 and cuDNN reach 46-49% of the peak).
inline constexpr double kBlackwellSoftmaxIssueShare = 0.8;
// - The tensor stream T and the softmax stream S combine as (T^p + S^p)^(1/p): each tile's P V
//   waits for its softmax and each softmax for its S = Q K^T, so two streams of near equal length
//   cannot both run full (a tie costs 2^(1/p), 7%), while one much longer than the other costs
//   its own length. With it the model's best emulated share on B200 hd128 is FA4's own default,
//   12.5% (not fitted: held out), and software exp2 gains +4.5% and conditional rescaling +5.3%
//   (b2 h16 s8192 hd128).
inline constexpr double kBlackwellStreamNormExponent = 10;
// - On Blackwell Ultra (B300, GB300) the forward's tensor stream (the MMA and the shared-memory
//   port that feeds it) sustains this share of the tensor peak instead of gemm_efficiency; its
//   softmax stream keeps the sustained share. In the same cudnn-frontend runs (9.26, 2026-07-24)
//   GB300's forward ran 1.14-1.27x GB200's at hd 128, 192/128 and 256 (cuDNN and FA4; GB300's
//   hd128 reaches 2187 TFLOP/s, 0.875 of the peak) where both boards have one dense peak and the
//   model gave them one time, while GB300's hd64 forward (on the softmax warps' issue stream)
//   and its backward (cuDNN 1.08-1.18x, FA4 1.03-1.11x, what the doubled MUFU alone gives) fit
//   the B200 family's shares. B300's forward sits as far above B200's (same peak). The cause is
//   not modeled: a GEMM does not show it (cuBLAS bf16 1769 TFLOP/s on B300 against 1745 on
//   B200, stas00/ml-engineering); lib/model/NOTES.md section 2z has the candidates. Fitted to
//   the record's fit bf16 forward figures on B300 and GB300 at hd 128 and 192/128 (42; median
//   signed error -0.05% at 0.882, +0.05% at 0.883), with FA4's figures from July 2026 taking
//   their row max from the tensor-memory load (Options::row_max_on_load; 0.895 before, section
//   2aj). Refitted when launches start at the boost clock and settle at the boards' sustained
//   clocks (section 2ar; GB300's 0.91 against GB200's 0.86 takes part of the Ultra gap): 58
//   figures with the May runs, -0.1% at 0.862, +0.0% at 0.863, +0.1% at 0.864.
inline constexpr double kBlackwellUltraForwardTensorShare = 0.863;

// Backward: FA2's backward keeps five GEMMs and the elementwise work in the same warps (no
// overlap), and its warps each ldmatrix-read the shared operands they need, so each operand
// byte is read more than once. The re-read factor is fitted to PyTorch's flash backend backward
// on the lent H200, hd128 seqlen 8k, 16k tokens: 296 TFLOP/s (peer-timings-h200.md).
inline constexpr double kOverlapFa2Backward = 0.0;
inline constexpr double kFa2BackwardSmemRereads = 1.66;
// The persistent kernels' backward pass (FA3 and FA4, cuDNN's as the model takes them, Hopper and
// Blackwell alike): recomputing P = exp(S - LSE) and dS = P * (dP - D) sits between the GEMMs
// that produce S and dP and those that consume P and dS, on one tile; the elementwise stream
// hides behind the tensor stream only by this share: none. Fitted to the record's "fit" backward
// figures (the best share lies at the edge, 0; 0.1 and up over-predict every long-sequence
// backward figure of cuDNN and FA4 on GB200, GB300 and H200).
inline constexpr double kOverlapPersistentBackward = 0.0;

// FA4's softmax on FA3's Hopper pipeline: each warpgroup's softmax sits between its own GEMMs, so
// a change in its instruction stream (software exp2's FP32 and ALU instructions, or the O rescale
// that conditional rescaling skips) lands on the critical path, while the MUFU time that
// emulation frees buys nothing (MUFU is not the binding unit on Hopper: 1408 MUFU against 3565
// tensor cycles per hd128 tile). The tile is fa3's, plus this share of the change in the issue
// stream. Fitted to our fa4 grid on the lent H200 at 50% emulated, s8192 non-causal (hd128
// -12.5%, hd64 -16.0% against fa3; implied exposure 0.55-0.64); the model then lands within 5
// points of every measured grid point (lib/kernels/fa4/NOTES.md, run 2).
inline constexpr double kHopperSoftmaxChangeExposure = 0.6;

// --- The backward pass of the lab's kernels on Hopper ----------------------------------------
// Fitted to our fa2_bwd, fa2_bwd_deterministic, fa3_bwd and fa3_bwd_atomics on the lent H200
// (data/runs/2026-11-23-h200-bwd.db, runs 1-2 of 2026-11-23: the FA3-paper sweep, hd 64/128/256,
// seqlen 512..16k, both masks, 16k tokens, hidden 2048, bf16; 144 figures): every figure within
// 7.8% (lib/model/NOTES_BWD_FIT.md has the table, and the held-out checks).

// FA2's backward warps read their GEMM operands from shared memory with ldmatrix on a warp grid
// per GEMM (lib/kernels/fa2_bwd.cu): each operand byte is read by every warp of the grid's other
// dimension, and dS once more per dQ column pass. Counted from our kernel's 64-query tiles: 2.32 /
// 2.16 times the bytes of backward_smem_bytes (tile_cycles.cpp) at hd 128 / 256 (and 2.08 at hd64
// on the 64 x 128 tile it had before commit 0f81846, to which this value was fitted too). hd128's
// dQ runs in one pass since 2026-11-27 (2.11 counted); 2.2 kept for both, the share below
// refitted with it (2.11 at hd128 puts the fit's worst at 8.6%, model fast; NOTES_BWD_FIT.md).
inline constexpr double kFa2BackwardWarpGridRereads = 2.2;
// hd64 runs on 128 x 128 tiles instead (S/dP warps 4 x 2, PyTorch's flash backward's hd64 tile),
// whose backward_smem_bytes are 21 per score against the 64-query tile's 24: counted, its grids
// read 1.9 times those bytes (17% fewer ldmatrix bytes per FLOP than the 64-query tile); measured,
// it is 10-12% faster rather than 17%, so the value is fitted to our fa2_bwd and
// fa2_bwd_deterministic at hd64 on the lent H200 (data/runs/2026-11-26-h200-fa2-hd64.db, seqlen
// 512..16k, both masks), with the share below at 0.6; kept at the refit of 2026-11-27 (hd64's
// new figures within the fit's -7.6% to +4.9%).
inline constexpr double kFa2BackwardHd64TileRereads = 2.24;
// hd256's tile (64 keys, dQ in four column passes; counted 2.16) since commit 5d4c42a, whose
// linear grid cut its spills from 48 / 32 to 40 / 24 bytes a thread: local memory goes through
// the same LSU data pipe as ldmatrix (at 84% of its peak at hd256, lib/kernels/NOTES.md), and
// hd256 ran 3-8% faster from s2048 on, 7-11% faster than modeled at 2.2. Fitted to our fa2_bwd
// at hd256 on the lent H200 (data/runs/2026-11-27-h200-fa2-bwd-3.db non-causal, -4.db causal:
// 12 figures, -5.1% to +3.9% against -10.7% to -0.2% at 2.2; NOTES_BWD_FIT.md).
inline constexpr double kFa2BackwardHd256TileRereads = 2.05;
// The re-read factor of FA2's backward warps on a tile at a head dim: hd256's fitted value holds
// on our fa2_bwd's hd256 tile only (PyTorch's flash backward, modeled on the default tile, keeps
// kFa2BackwardWarpGridRereads).
inline constexpr double fa2_backward_rereads(std::int64_t headdim, Tile tile) {
  if (headdim <= 64) return kFa2BackwardHd64TileRereads;
  const bool ours_at_hd256 = headdim >= 256 && tile.m == fa2_bwd_tiles::query_block(256) &&
                             tile.n == fa2_bwd_tiles::key_block(256);
  return ours_at_hd256 ? kFa2BackwardHd256TileRereads : kFa2BackwardWarpGridRereads;
}
// Share of the shared-memory port (128 B/clk/SM) those ldmatrix reads sustain; the port then
// bounds the tile: with the rereads above it is 3.67x the operand bytes' time, above the
// mma.sync and exp2 streams at every head dim (the kernel's notes say so: "the shared-memory
// port, not the tensor cores, bounds this structure"). Fitted with kFa2DqReductionBytesPerCycle
// to our fa2_bwd on the lent H200 after its loop changes (data/runs/2026-11-27-h200-fa2-bwd.db,
// the FA3-paper sweep, 36 figures: -7.6% to +4.9%; NOTES_BWD_FIT.md); 0.6 before, fitted with
// the reductions' time inside it to the loop of 2026-11-23.
inline constexpr double kFa2BackwardLdmatrixShare = 0.7;
// FA2's published backward (PyTorch's flash backward, Options::hidden_dq_reductions off) adds dQ by
// float32 reductions into L2 (4 M d bytes a tile), not hidden under the port-bound loop: their
// time at this rate per SM adds to the tile's. Fitted with kFa2BackwardLdmatrixShare to our
// fa2_bwd when its reductions took 8 rows an instruction in row-major order (the record above: 48
// gives the fit's least worst error (6.6%), 44 (7.6%) keeps PyTorch's flash backward at hd128
// s4096 causal inside the published figures' 25% regression guard); kept for the published
// kernel, whose own reductions are coalesced (one cache line an instruction) but whose loop
// issues 13% more instructions than ours at hd256 (ncu, lib/kernels/NOTES.md): the term stands
// for that excess until a fit to its own figures. Our fa2_bwd since commit 17de6ae adds each
// accumulator tile with one 16-byte reduction per lane (the mma_tiles order), which the model
// takes as hidden: fitted to its hd256 record (data/runs/2026-11-28-h200-hd256-bwd-tiles.db,
// -4.3% to +5.4%; 176 bytes per cycle, 4x this, gave -8.0% to +2.8%) and held out on that
// session's hd64 and hd128 rounds (-4.4% to +0.5%; fa2_bwd_deterministic +0.9% to +3.8%).
inline constexpr double kFa2DqReductionBytesPerCycle = 44;

// A key block's K and V loads and its dK and dV stores (4 N d elements; 5 N d for fa3_bwd's two
// passes at hd256, which load K twice) are not overlapped with its query loop in our kernels (nor,
// as the model takes it, in FA3's published backward on Hopper: kHopperBackwardStepWaitCycles)
// (fa3_bwd's notes: "the K/V of the next tile could load while the current tile's epilogue runs",
// not done); they take this multiple of their time at the SM's share of HBM bandwidth (latency
// on top of bytes). Fitted to the short sequences of both kernels (at seqlen 512 a CTA walks 4-8
// query blocks, so this is 15-30% of the time).
inline constexpr double kBackwardKeyBlockIoExposure = 1.4;

// fa3_bwd's consumer warpgroups are held in phase by the dS barrier (both warpgroups' dS must be
// in shared memory before dQ = dS K), and each query block waits on its GEMMs (S^T and dP^T
// before exp2; dQ; dK before the next S^T) and on its dQ's way out. Cycles lost per query block
// and pass beyond the GEMMs and the elementwise stream, which the model's persistent backward
// exposes in full already (kOverlapPersistentBackward), per dQ path:
// - dQ by atomics from the consumers' registers (fa3_bwd at hd256, and at hd64 since run 17 of
//   lib/kernels/fa3/NOTES_BWD.md; fa3_bwd_atomics), one 16-byte reduction per lane and accumulator
//   tile in the mma_tiles order since commit 17de6ae: fitted (minimax) to fa3_bwd at hd256 in
//   data/runs/2026-11-28-h200-hd256-bwd-tiles.db (12 figures, -5.5% to +6.7%; 300 gave -7.0% to
//   +4.7%), where it meets the staged path's wait below; held out on that session's fa3_bwd_atomics
//   rounds at hd64 and hd128 (-4.0% to +6.8%) and on fa3_bwd at hd64 in
//   data/runs/2026-11-28-h200-fa3-bwd-hd64-atomics.db (-3.8% to +8.3%). Before that order (8-byte
//   reductions over 8 rows each) the path took 800 cycles and 0.04 more per dQ element, fitted to
//   fa3_bwd_atomics against fa3_bwd at hd128 (lib/model/NOTES_BWD_FIT.md).
inline constexpr double kLabFa3BackwardStepWaitCycles = 200;
// - dQ staged in shared memory and added by one TMA tensor reduce-add per 32-column box (fa3_bwd at
//   hd128 since run 9 of lib/kernels/fa3/NOTES_BWD.md, and at hd64 in runs 9-16): the consumers no
//   longer wait for the staging tile to drain (ncu: the wait fell from 17.8% of warp samples to
//   1%). Fitted (minimax) to fa3_bwd at hd128 in data/runs/2026-11-27-h200-fa3-bwd.db (12 figures,
//   -6.9% to +7.4%), after the staging rows were interleaved by halves: the staging stores had
//   taken two shared-memory wavefronts a half warp (35.0 M bank conflicts at hd128 s4096, ncu),
//   time that the 400 cycles fitted before (data/runs/2026-11-26-h200-bwd.db) held and the model's
//   conflict-free shared-memory bytes did not. Checked on the Llama-3 shapes (held out:
//   data/runs/2026-11-27-h200-fa3-llama3.db) and, while hd64 still staged, at hd64.
inline constexpr double kLabFa3StagedDqStepWaitCycles = 200;
// A one-stage Q/dO ring (fa3_bwd's dK/dQ pass at hd256, where K and V take 128 KiB; its dV pass
// has two stages): the next query block's TMA loads wait until this block's GEMMs have read the
// stage, so their latency is exposed once per query block of such a pass. Fitted to the
// fa3_bwd_one_stage ablation against fa3_bwd at hd128 (run 4 against run 1 of
// data/runs/2026-11-23-h200-bwd-2.db: 1.05-1.11x slower, 0.98x at s16k causal), when a dQ
// hand-off's wait hid most of the load; it has not been fitted again (the ablation is not held:
// tests/model/backward_fit_test.cpp).
inline constexpr double kLabFa3OneStageRingCycles = 600;
// fa3_bwd's dQ chunks after a warpgroup's first (hd256: its second 64 columns) are issued, waited
// for and added by atomics one after the other, with no GEMM of the warpgroup in flight: cycles
// per float32 element of those chunks (the chunk's GEMM latency and its atomics, exposed). Fitted
// to fa3_bwd at hd256, the only configuration with such chunks: 12 figures of
// data/runs/2026-11-26-h200-bwd-2.db (minimax, -5.9% to +6.0%), after commit e494b05 freed Q and dO
// separately in the dK/dQ pass (its next block's loads now run under the dQ chunks; the 0.23 fitted
// to the kernel before it put hd256 8-13% slow); held out on the lent H100's (-6.9% to +6.6%).
inline constexpr double kLabFa3SerialDqChunkCyclesPerElement = 0.07;

// --- The published persistent backward on Hopper (FA3's design; cuDNN's as the model takes it) --
// FA3's backward (flash-attention's hopper/ kernels: flash_bwd_preprocess, the warp-specialized
// main kernel, flash_bwd_postprocess) has the structure our fa3_bwd has: each query block's
// dQ = dS K needs the dS of both consumer warpgroups in shared memory (a barrier holds them in
// phase), and each warpgroup waits on S and dP before its exp2 and on its dV, dK, dQ GEMMs
// before the next block's S: the tensor pipe drains at each wait. Its K, V loads and dK, dV
// stores per key block are exposed (kBackwardKeyBlockIoExposure, our kernels' value, not
// refitted), and its preprocessing and dQ conversion launches run before and after the main
// kernel. (That is how the model reads the design; the values are fitted.) Two costs: cycles
// lost per query block at those waits, beyond the GEMMs and the elementwise stream
// (kHopperBackwardStepWaitCycles), and cycles per key block (a persistent CTA's work tile) that
// its first query block's S and dP and its dK, dV epilogue do not overlap with any other step:
// the pipeline filled and drained once per key block (kHopperBackwardKeyBlockFillCycles). Fitted
// together to the record's "fit" bf16 backward figures on Hopper (cuDNN 9.19 on H200,
// data/published/record/cudnn-frontend-h200.json: Llama-3.1 GQA 64/8 hd128 at seqlen 4k and 16k,
// both masks, gpt-oss's windowed hd64 at 4k and 16k, and DeepSeek-V3's deterministic hd192/128 at
// 4k), the pair that makes the worst of them least (5.6%). With the step wait alone (950, worst
// 8.2%) the model was 6-9% slow on the non-causal GQA figures, whose key blocks walk the most
// query blocks, and 7-10% fast on the windowed ones, whose key blocks walk the fewest (about 9):
// the per-key-block cost the single term spread over every step. The step wait that remains is
// near what our fa3_bwd's with its staged dQ was (kLabFa3StagedDqStepWaitCycles, 400 while its
// staging stores took two wavefronts a half warp; 200 since).
// lib/model/NOTES.md section 2g has the grid and the held-out errors.
inline constexpr double kHopperBackwardStepWaitCycles = 425;
inline constexpr double kHopperBackwardKeyBlockFillCycles = 12000;

// --- The naive algorithm -------------------------------------------------------------------

// Share of the measured copy bandwidth that the naive algorithm's three streaming launches
// (cuBLAS GEMMs writing or reading S and P, the row softmax) reach; its row softmax uses scalar
// 2-byte loads. Fitted together with the row latency below to our naive kernel on the lent H200
// (fa3-paper sweep: hd 64/128/256, seqlen 512..16k, causal and not, 36 shapes;
// data/published/ours-h200.json): the pair that minimises the largest error, 10.5%.
inline constexpr double kNaiveStreamingShare = 0.86;
// The row softmax runs one 256-thread block per row of S; at 16k tokens there are 131k-524k rows
// whatever the sequence length, and each block waits on two dependent passes over its row (DRAM
// then L2 latency) and two block-wide reductions. The time one row's block occupies its slot
// beyond its bytes: fitted with the share above (2.8 us; at seqlen 512 this latency is 60% of
// the naive time, at 16k under 10%).
inline constexpr double kNaiveRowLatencySeconds = 2.8e-6;
// Row blocks resident per SM: 2048 threads per SM / 256 threads per block (counted).
inline constexpr double kNaiveRowsInFlightPerSm = 8;

// --- Whole-kernel scheduling ---------------------------------------------------------------

// A Hopper persistent kernel's forward (fa3, fa4's softmax on fa3's pipeline) pays a cost per
// work tile of 128 query rows besides its key blocks (its backward pays its key block's exposed
// I/O instead, kBackwardKeyBlockIoExposure): Q's load latency, the pipeline's fill (the first
// S = Q K^T has no softmax to overlap) and drain, the epilogue writing O and LSE. Fitted with the
// ping-pong share above: about the same at hd64 and hd128 (3.0k cycles at the model's clock) and
// about four times that at hd256 (the implied per-tile cost there is 10-12k cycles at every
// sequence length, with one Q buffer (80-key blocks) and with two (48-key blocks) alike). The
// model scales it by max(1, (d / 128)^2); with data at hd256 only, the exponent is a fit of one
// point, not an established law, and the cause of the extra cost at hd256 is not identified.
inline constexpr double kHopperPersistentTileOverheadCycles = 3000;

// A Blackwell persistent kernel (FA4, and cuDNN's kernels as the model takes them) pays a cost per
// work tile besides its key blocks, as Hopper's does: Q's load, the first S = Q K^T with no
// softmax beside it, the correction warpgroup's final O scaling, the epilogue writing O and LSE
// (forward); K and V's load, the last dK, dV out of tensor memory (backward). Fitted to the
// record's "fit" figures on B200, GB200, B300 and GB300 (data/published/record), where it sets
// how fast the TFLOP/s fall at short sequences (about 3 us a work tile).
inline constexpr double kBlackwellPersistentTileOverheadCycles = 6000;
// FA4's own backward at head dims 192/128 on Blackwell shares tensor-memory columns between its
// steps: dV and dK take columns 0-319 of 512, so S/P (320-447) overlaps dP/dS (384-511) and dQ
// (416-511) (flash_attn/cute/flash_bwd_sm100.py at 0251105; at hd128 S and dP have columns of their
// own). The dP GEMM cannot write until P has been read, nor the next S until dS and dQ have, so
// each step waits on the tensor memory round trips that the other head dims run beside the GEMMs:
// cycles per tile (one step) beyond the two streams. Fitted to the record's 32 fit-role FA4 bf16
// backward figures at hd192/128 (GB200, GB300; plain and deterministic), in steps of 200 cycles
// where their median signed error crosses zero (+1.5% at 600, -2.1% at 800; 1000 before the
// backward's side launches and FA4's single-tile grid were modeled, lib/model/NOTES.md 2x).
// cuDNN's kernels there publish no tensor-memory map: not applied to them.
inline constexpr double kFa4SharedTmemColumnsStepCycles = 600;
// FA4's own backward on Blackwell launches one CTA per key block (Options::single_tile_grid;
// flash_bwd_sm100.py's SingleTileScheduler, "persistent mode not tested"): nothing overlaps one
// CTA's epilogue (dK, dV out of tensor memory to HBM) with the next one's prologue (barriers,
// tensor memory allocation, K, V and the first Q, dO loads) on its SM. Cycles each CTA pays
// beside kBlackwellPersistentTileOverheadCycles. Fitted to the record's fit-role FA4 bf16
// backward figures where a CTA walks two query blocks (gpt-oss's window of 128 keys, s4096 and
// s16384 on GB200 and GB300), in steps of 2000 cycles where their median signed error crosses
// zero (+5.5% at 4000, -4.2% at 6000); without it those figures run 30-32% slower than modeled.
inline constexpr double kFa4SingleTileCtaCycles = 6000;
// FA4's causal or local forward on Blackwell launches one CTA per 256-row work tile as well
// (Options::single_tile_grid; flash_fwd_sm100.py's SingleTileLPTScheduler: interface.py makes the
// SM100 forward persistent only without a mask, read at 0251105), and so does its dedicated hd256
// forward (sm100_hd256_2cta_fmha_forward.py, `is_persistent = False`): nothing overlaps one CTA's
// epilogue (O and LSE out) with the next one's prologue. Cycles each CTA pays beside
// kBlackwellPersistentTileOverheadCycles; less than the backward's, whose epilogue moves dK and dV.
// Fitted to the record's 20 fit-role FA4 bf16 causal and windowed forward figures at hd 64, 128
// and 192/128 (GB200, GB300; the hd256 kernel's are the record's worst misses apart), in steps of
// 250 cycles where their median signed error crosses zero (+0.25% at 1250, +0.05% at 1500, -0.95%
// at 2000); without it FA4's forward under gpt-oss's 128-key window (two key blocks a CTA) runs
// 17-28% slower than modeled.
inline constexpr double kFa4ForwardSingleTileCtaCycles = 1500;
// Where FA4's backward on the 2-CTA pair keeps S/P, dP/dS and dV, dK in tensor-memory columns of
// their own up to hd128 (not the hd192/128 map above, nor the split hd256 kernels; on one CTA its
// dQ takes dP's columns, flash_bwd_sm100.py's tmem_dQ_offset, so that kernel hides none), its
// softmax warps compute one step's P and dS while the MMA warp runs the other GEMMs: this share of
// the shorter stream hides behind the longer (cuDNN's kernels, as the model takes them, hide none:
// kOverlapPersistentBackward). Fitted to the record's fit-role FA4 bf16 backward figures at hd128
// from s8192 (GB200, GB300; plain and deterministic), in steps of 0.1 where their median signed
// error crosses zero: 28 figures, -0.7% at 0.4, +1.4% at 0.5; refitted when launches settled at
// the boards' sustained clocks (section 2ar), 52 figures with the May runs: -1.1% at 0.6, +0.7%
// at 0.7. Without it they run 8-17% faster than modeled.
inline constexpr double kFa4BackwardSeparateColumnsOverlap = 0.7;

// Deterministic backward (FA4 and cuDNN): dQ of a query block is summed over the key blocks in a
// fixed order, each key block's CTA waiting for the one before; the chain costs each CTA this
// many of its own tile times before its adds can start. Fitted to the record's "fit" figures
// of deterministic backward passes (cuDNN on GB200, GB300, B300, H200; FA4 on GB200). FA4's cost
// falls with the sequence as this rule does (-26% at 2k, -5% at 32k on GB200); cuDNN's stays
// near 12% on GB200 and near none on B300, which one rule cannot follow: cuDNN's bf16 and fp16
// deterministic backward is priced by kCudnnDeterministicStepCycles instead. Refitted to FA4's 36
// fit-role deterministic bf16 figures without a window (GB200, GB300) where their median signed
// error crosses zero (+1.5% at 2, +0.2% at 3, -1.1% at 4; 4 before the backward's side launches
// and FA4's single-tile grid were modeled, lib/model/NOTES.md 2x). A CTA waits no longer than its
// key block walks query blocks (its predecessor adds the block they share after walking as many:
// two under gpt-oss's 128-key window), which binds under a window and for the shortest causal
// sequences only (section 2ah).
inline constexpr double kDeterministicWaitTiles = 3;
// FA4's deterministic backward orders each query block's dQ adds with a semaphore: a key block
// adds after the block above it has added and released (flash_bwd_sm100.py,
// _dq_semaphore_lock_value with spt, the shortest-first order, for causal and windowed masks; the
// release waits for the adder's next block, delay_semaphore_release, except at hd192). Under a
// window every key block walks the same two query blocks, so a head's key blocks form one chain,
// one link (wait, poll, bulk reduce-add, release) after another, and only the heads of one L2
// section (kFa4BackwardL2SectionBytes) chain at once: the kernel lasts at least CTAs x link /
// heads per section. Seconds per link. Fitted to the record's 4 fit-role FA4 deterministic
// windowed figures (s4096, s16384 on GB200, GB300) in steps of 0.1 us where their median signed
// error crosses zero (+3.0% at 0.8 us, -2.8% at 0.9 us; refitted when the chain's wait was capped
// by the query blocks a key block walks, section 2ah: +3.1% at 0.9 us, -1.7% at 1.0 us; and again
// when kFa4DeterministicReduceWaitCycles joined, section 2aq, on the 8 fit figures the May runs
// make: -3.8% at 1.0 us, +1.0% at 0.9 us); without it the model had the windowed figures up to 6x
// too fast (+495% at s32768): they fall as 1/s where the plain kernel holds 142-157 TFLOP/s.
inline constexpr double kFa4DqChainLinkSeconds = 0.9e-6;
// FA4's deterministic backward below hd192 waits, at each query block, for its dQ bulk reduce-adds
// to complete (cp_async_bulk_wait_group(0)) before it releases the block's semaphore, on a staging
// ring of two buffers where the plain kernel has four (flash_bwd_sm100.py at 0251105, the dQ
// reduce loop; at hd192 the plain kernel waits so too): a fixed time per tile step beyond the plain
// kernel's tiles. Cycles per tile step at hd128, scaled by the head dim (the bytes of a block's
// reduce-add). Fitted to the record's 36 fit-role pairs of FA4's plain and deterministic bf16
// backward without a window (GB200, GB300; hd128) on the deterministic-over-plain throughput
// ratio, so that the plain kernel's own errors stay out of the fit: in steps of 50 cycles where
// the model's ratio over the published one crosses one, for the short (up to s8192) and the long
// pairs alike (median +1.1% and +0.9% at 200, +0.0% and -0.3% at 250, -1.1% and -1.4% at 300);
// kDeterministicWaitTiles, refitted with it, stays 3 (short pairs +2.6% at 2, +0.0% at 3, -2.6%
// at 4). The model's ratio at hd128 (92 pairs, fit and held out) goes from 0.82-0.99 to
// 0.78-0.94; the record's is 0.74-1.01 (lib/model/NOTES.md, section 2aq).
inline constexpr double kFa4DeterministicReduceWaitCycles = 250;
// FA4's deterministic backward groups heads into sections that fit this many bytes of Q, dO and
// the float32 dQ accumulator (flash_attn/cute/tile_scheduler.py, SingleTileLPTBwdScheduler:
// size_l2 = 50 MiB; the heads per section, a power of two, floor(log2(size_l2 / bytes per head)),
// one where a head is larger; the accumulator counted since PR 2390, 5c7711e, 2026-03-25). Counted.
inline constexpr double kFa4BackwardL2SectionBytes = 50.0 * 1024 * 1024;
// cuDNN's deterministic backward (bf16, fp16) pays a fixed time per tile step beyond its plain
// kernel (Options::fixed_step_cost). On Blackwell the frontend pins the deterministic
// graph to one configuration, 128 x 128 tiles, the "bprop warp" kernel and two pipeline stages
// (cudnn-frontend scaled_dot_product_flash_attention.h, override_heuristics_query), where the plain
// graph takes the heuristics' choice; the record cannot tell the two stages' exposed loads from the
// ordered dQ adds. Its throughput over the plain kernel's in the same runs (GB200, GB300 9.26; B300
// 9.24) holds with the length within a head dim: 0.75-0.79 at hd64, 0.80-0.92 at hd128 (about 880
// and 750 cycles on the model's tiles of 2944 and 4599 cycles), and 0.94-1.07 above hd128 (60
// pairs), where the plain graph runs the same configuration: there the model's plain kernel ran
// 1-20% faster than published at s2048-8192 (36 figures on GB200, GB300 and B300, median +6.6%)
// while its deterministic one, priced at a share, did not, so the plain backward above hd128 on
// Blackwell pays the same steps. On Hopper, where nothing is pinned, the lent H200 gives 0.89-0.92
// at hd128 and 0.88 at hd192/128, near this rule, but 0.63 at hd64 and 0.71 at hd256, which it does
// not reach (data/measurements/kernels/2026-11-29-h200-cudnn-deterministic.txt; the record's Hopper
// figures are hd192/128). Cycles per tile step: the kernel's time scaled by (tile + this) / tile.
// Fitted to the record's 77 fit-role figures it moves (cuDNN's bf16 deterministic backward on
// GB200, GB300, B300 and H200; its plain backward above hd128 on Blackwell) in steps of 100 cycles
// where their median signed error crosses zero (+1.4% at 400, -0.6% at 500): below the pairs'
// 750-880, which the hd192/128 and hd256 figures pull down. It replaced a constant share of the
// plain throughput (0.925, section 2l), which left cuDNN's deterministic hd64 under the 128-key
// window 22-29% too fast and its plain backward above hd128 up to 29% (lib/model/NOTES.md, section
// 2af). Refitted when launches settled at the boards' sustained clocks and the ordered dQ adds got
// their own step below (section 2ar), on the 53 fit figures it alone prices (above hd128: the
// plain backward on Blackwell, the deterministic one there and on H200): +1.1% at 300, -0.9% at
// 400, -2.5% at 500.
inline constexpr double kCudnnDeterministicStepCycles = 400;
// cuDNN's deterministic backward up to hd128 pays this many cycles per tile step beyond the pinned
// configuration's (kCudnnDeterministicStepCycles): its dQ adds in a fixed order. Above hd128 the
// record's pairs of deterministic and plain figures show none (0.94-1.07, the plain graph running
// the same configuration there); at hd128 they run 0.79-0.93 (median 0.87) and under gpt-oss's
// 128-key window at hd64 0.75-0.79, where the pinned step alone gave 0.91-0.94 and 0.90-0.91.
// Fitted, as FA4's reduce wait, on the deterministic-over-plain throughput of the record's 24
// fit-role pairs at hd64 and hd128 (GB200, GB300, B300), so that the plain kernel's own error stays
// out of the fit, in steps of 50 cycles where the model's ratio over the published one crosses
// one: +1.3% at 300, +0.2% at 350, -0.9% at 400 (lib/model/NOTES.md, section 2ar).
inline constexpr double kCudnnDeterministicDqOrderStepCycles = 350;

// A non-persistent launch of unequal CTAs (causal) ends, on average, half a mean CTA after the
// fluid bound (list scheduling).
inline constexpr double kListScheduleTailShare = 0.5;
// A longest-first schedule of unequal CTAs (the persistent kernels' causal work tiles, FA4's
// single-tile LPT grids) ends within its shortest CTA of the fluid bound: the last CTAs placed are
// the shortest, each on the least loaded SM. Derived, not fitted: simulated on the record's causal
// shapes (b1-b2, 32-128 heads, 2-16 work tiles a head of 1..n key blocks each, with and without a
// per-tile cost, 132 and 152 SMs) the overshoot is 0.44-0.80 of the shortest CTA; it matters where
// an SM runs a few CTAs (s2048 causal: +2% to +9%), not from s8192 (under 1%).
inline constexpr double kLongestFirstTailShare = 0.5;
// A kernel whose CTAs take their work tiles in a fixed order, not longest first (cuDNN's forward on
// Hopper; FA4's hd256 forward and its split backward's dQ kernel on Blackwell, whose grids start
// their query blocks in order; Options::fixed_order_tiles): an unequal (causal) launch ends about
// this share of its longest CTA after the fluid bound. Derived from cuDNN 9.19's forward measured
// on the lent H200 (data/measurements/kernels/2026-11-29-h200-cudnn-fwd-causal.txt): beyond half
// its dense time a causal launch pays a part that grows with the batch (its tiles) and one that
// does not: at hd128 24 us at s2048 and 59-70 us at s8192, at s2048 18 us at hd64 and 32 us at
// hd256, that is 0.89, 0.57-0.68, 0.95 and 0.61 of the model's longest CTA there (27, 104, 19 and
// 53 us); the middle of that range taken, not fitted to the record. Our fa3 places its tiles
// longest first (lib/kernels/fa3/tile_scheduler.cuh) and pays no such part. A list schedule of
// FA4's hd256 grids in block order (each head's query blocks shortest first, heads one after
// another; 2048 to 32768 keys, 32 heads, 148 SMs, with and without 2-CTA pairs) ends 0.55-0.68 of
// the longest CTA after the fluid bound (lib/model/NOTES.md, section 2al): one share is kept for
// both; on FA4's hd256 forward the difference is about a point (GB200's May figures at s16384 and
// s32768: -10.3% and -4.1% with this tail, -5.6% and -1.5% with none).
inline constexpr double kFixedOrderTailShare = 0.75;
// cuDNN 9.19's fp8 causal backward on Hopper (Options::dq_adds_spill_l2) adds dQ into its float32
// accumulator in an order that leaves the accumulator out of L2. Measured on the lent H200
// (data/measurements/kernels/2026-11-29-h200-cudnn-fp8-causal-backward.txt; main kernel
// ..._flash_bprop_wgmma_f8_knob_26_64x64x128_..., 132 persistent CTAs, hd128), ncu on GQA 64/8:
// - its reductions hit L2 at 70%, 51%, 37% and 35% at s2048, 4096, 16384 and 32768, where the same
//   kernel without a mask hits 96-99%;
// - it moves 0.8, 4.4, 20, 84 and 344 GB of HBM at s2048 to s32768 (0.3-10 GB without a mask);
// - its causal calls take 0.70-0.91 of the dense ones' time, where the bf16 kernel's take 0.53-0.55
//   (s8192; its reductions hit 98%).
// MHA 64 holds 67-72% to s8192 and falls to 39% and 35% at s16384 and s32768 (causal over dense
// 0.63-0.70, then 0.93, 0.97). The fp8 backward builds at hd128 only there (hd64 and hd256 are
// refused by cuDNN 9.19 on Hopper).
// HBM bytes per dQ element for each key a query row sees beyond the band below: GQA 64/8's bytes
// at s32768 less the model's own for the launch, over those keys' dQ elements (0.0817 at s16384).
// What ncu counts behind it: reductions of 0.75 of one 4-byte add per 64-key block, 64.5% of them
// missing, each missed byte moving 2.5 bytes of HBM. Derived from the measurement above.
inline constexpr double kSpilledDqAddHbmBytesPerElement = 0.0805;
// The adds of a query row whose key lies within this many keys of its diagonal cost no HBM.
// Fitted to GQA 64/8's five measured byte counts (s2048-32768), the model's own bytes for each
// launch included, in steps of 10 keys: the largest relative error is smallest at 540 (-2.3% to
// +2.5%). MHA's hits hold longer: its TFLOP/s at s4096 and s8192 come out 15% and 29% low.
inline constexpr double kSpilledDqAddBandKeys = 540;
// The share of the copy bandwidth (hw::Spec::copy_efficiency) that such sector-wise reads and
// writes reach: 2.77-2.86 TB/s measured at s8192-32768 (GQA and MHA), where the launch is bound by
// them, over the lent H200's 4.25 TB/s copy rate (0.65-0.67). Derived from the measurement above.
inline constexpr double kSpilledDqAddBandwidthShare = 0.66;
// PyTorch's flash backward called with BHSD tensors (Options::layout_copies) first copies two
// query-side tensors of (b, s_q, h_q, d_v) elements into its own layout: two copy kernels, each
// reading and writing its tensor at this share of the HBM datasheet rate. Measured on the lent
// H200 (data/measurements/kernels/2026-11-29-h200-sdpa-backward-call.txt, PyTorch 2.11): 185 us
// for the two at 67 MB each, at every shape of the FA3-paper sweep's token count (1.45 TB/s of
// 4.8); 724 us with four times the queries and a quarter of the keys.
inline constexpr double kLayoutCopyBandwidthShare = 0.30;
// The adds spill only in a launch of at least this many query heads (batch x heads). Timed on the
// same H200:
// - 64 heads spill (64/8 and MHA at batch 1);
// - 128 spill more (64/8 at batch 2, s8192: causal over dense 0.97, the model 14% fast);
// - 32 do not (32/4 at s8192 and s16384, 32/8 at s16384, 16/2 at batch 2 and s4096: causal over
//   dense 0.49-0.57, the bf16 kernel's; the model within 5% with no spill).
// Measured bounds, not a law: the kernel's tile order is not published (if its CTAs take the
// heads' key blocks in turn, 64 heads leave about two of a head's blocks in flight at once and 32
// about four, whose adds to one dQ block would come close enough together to hit).
inline constexpr double kSpilledDqAddMinQueryHeads = 64;
// A launch's SM clock falls from the boost clock f_b toward the GPU's sustained share of it, f_s
// (hw::Spec::sustained_clock_share), as f(t) = f_s + (f_b - f_s) e^(-t / tau) under the board's
// power cap; a launch whose cycles take T at the peak clock f_p takes the t that solves
// (f_s t + (f_b - f_s) tau (1 - e^(-t / tau))) / f_p = T. Measured on the lent H200 (cuDNN 9.19's
// Llama-3.1 layer through PyTorch SDPA, launches of 3 to 157 ms with nvidia-smi's SM clock beside
// them: 1980 MHz to 9 ms, 1903-1940 at 18 ms, 1803-1833 at 38 ms, 1728-1753 at 77 ms, 1703 at
// 157 ms, 1690 sustained over 2 s;
// data/measurements/kernels/2026-11-29-h200-cudnn-launch-clock.txt, lib/model/NOTES.md sections
// 2ag and 2ar): seconds, read off that table. The Blackwell boards'
// sustained shares are fitted to the record (models/*.json); the H200 model keeps 1, as NVIDIA's
// own H200 run in the record holds its rate to 51 ms launches where the lent board's does not.
inline constexpr double kLaunchClockTimeConstantSeconds = 0.017;
// Host-side launch to kernel start, per kernel launch. Assumption (typical CUDA launch latency
// on an idle stream, a few microseconds); the harness measures it.
inline constexpr double kLaunchOverheadSeconds = 4e-6;

// A published benchmark that times one framework call per iteration (PyTorch SDPA, the cuDNN
// frontend's Python graph, FlashAttention's Python interface; CUDA events around the call) also
// times the host work of the call before its kernels start: on an idle stream the GPU waits for
// it. The model predicts the kernels' time; the comparison with a figure of the record
// (lib/report/published_model.cpp) adds this per call. Fitted to the record's "fit" figures at the
// shortest sequences, where it is most of the time. (The B200 CSV of cudnn-frontend 1.15 implies
// 35-130 us a call at seqlen 512, far more than any later source: its short sequences are the
// record's worst misses.) cudnn-frontend's CSVs from its 1.17 sum the kernels' profiler
// durations instead (benchmark_single_sdpa.py: `fwd_time = sum(item.device_time for item in
// matched_kernels)`); their origins say "timed": "kernels" and the comparison adds nothing there
// (lib/model/NOTES.md, sections 2e and 2ac).
inline constexpr double kFrameworkCallSeconds = 15e-6;

// --- The factors a prediction reports (Prediction::factors) --------------------------------
// Each one's name, meaning and what it was fitted to are written once, in factors.cpp; predict()
// adds the value it used. The GPU's measured shares take their source from the model file.

enum class Reported {
#define FA4_REPORTED(id, ...) id,
#include "model/reported_factors.def"
#undef FA4_REPORTED
};

struct ReportedText {
  Reported factor;
  std::string_view name;
  std::string_view meaning;
  std::string_view fitted_to;  // "" when derived, not fitted (or, for the GPU's measured shares,
                               // the model file's source)
};
const ReportedText& text_of(Reported factor);

// The factor's record with the value a prediction used.
Factor reported(Reported factor, double value);

// --- The same constants as a table, for the report and anyone listing them ----------------

struct Constant {
  std::string_view name;
  double value;
  std::string_view kind;         // counted, published, fitted, by design, derived, assumption
  std::string_view reported_as;  // the Prediction::factors name, or "" when not reported
  std::string_view what;
};
std::span<const Constant> constants();

}  // namespace fa4::model::factors
