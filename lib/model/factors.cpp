#include "model/factors.hpp"

#include <iterator>
#include <string>

namespace fa4::model::factors {
namespace {

constexpr std::string_view kOurFa3Sweep = "our fa3 on H200, fa3-paper sweep (36 shapes)";
constexpr std::string_view kOurNaiveSweep = "our naive kernel on H200, fa3-paper sweep (36 shapes)";
constexpr std::string_view kRecordFit =
    "the published record's \"fit\" figures on Blackwell (cuDNN and FA4; data/published/record)";
constexpr std::string_view kRecordDeterministicFit =
    "the published record's \"fit\" figures of deterministic backward passes (cuDNN, FA4)";
constexpr std::string_view kRecordCudnnDeterministicStepFit =
    "the published record's \"fit\" bf16 figures of cuDNN's deterministic backward and of its "
    "plain backward above hd128 on Blackwell";
constexpr std::string_view kRecordFa4DeterministicPairsFit =
    "the published record's \"fit\" pairs of FA4's plain and deterministic bf16 backward without "
    "a window at hd128 (GB200, GB300), on their throughput ratio";
constexpr std::string_view kRecordCudnnDeterministicPairsFit =
    "the published record's \"fit\" pairs of cuDNN's plain and deterministic bf16 backward at hd64 "
    "and hd128 (GB200, GB300, B300), on their throughput ratio";
constexpr std::string_view kRecordForwardFit =
    "the published record's \"fit\" bf16 forward figures on Blackwell (cuDNN and FA4)";
constexpr std::string_view kRecordUltraForwardFit =
    "the published record's \"fit\" bf16 forward figures on B300 and GB300 at hd 128 and 192/128";
constexpr std::string_view kRecordFa4MaskedForwardFit =
    "the published record's \"fit\" bf16 forward figures of FA4, causal or under a window, at hd "
    "64, 128 and 192/128 (GB200, GB300)";
constexpr std::string_view kRecordHopperBackwardFit =
    "the published record's \"fit\" bf16 backward figures on Hopper (cuDNN 9.19 on H200)";
constexpr std::string_view kRecordFa4Hd192BackwardFit =
    "the published record's \"fit\" bf16 backward figures of FA4 at hd192/128 (GB200, GB300)";
constexpr std::string_view kRecordFa4WindowBackwardFit =
    "the published record's \"fit\" bf16 backward figures of FA4 under a window of 128 keys "
    "(GB200, GB300)";
constexpr std::string_view kRecordFa4Hd128BackwardFit =
    "the published record's \"fit\" bf16 backward figures of FA4 at hd128 from s8192 (GB200, "
    "GB300)";
constexpr std::string_view kOurCudnnFp8BackwardRun =
    "cuDNN 9.19's fp8 causal backward under ncu on the lab's H200, GQA 64/8, hd128, s2048-32768 "
    "(data/measurements/kernels/2026-11-29-h200-cudnn-fp8-causal-backward.txt)";
// Named by the notes, not by its database's path: the published Hopper backward reports one of
// these factors in reports that show no reference runs.
constexpr std::string_view kOurBwdRun =
    "our backward kernels on H200, FA3-paper sweep of 2026-11-23 (lib/model/NOTES_BWD_FIT.md)";
constexpr std::string_view kOurFa2BwdRun =
    "our fa2_bwd on H200, FA3-paper sweep of 2026-11-27 (lib/model/NOTES_BWD_FIT.md)";
constexpr std::string_view kOverlapMeaning =
    "share of the smaller of the tensor and softmax streams hidden behind the larger";

constexpr ReportedText kReported[] = {
#define FA4_REPORTED(id, name, meaning, fitted_to) {Reported::id, name, meaning, fitted_to},
#include "model/reported_factors.def"
#undef FA4_REPORTED
};

constexpr std::string_view name_of(Reported factor) { return kReported[int(factor)].name; }

// A constant's name as written and its value, from the one identifier.
#define NAMED(constant) #constant, constant
const Constant kConstants[] = {
    {NAMED(kSoftmaxFmaOpsPerElement), "counted", "",
     "FP32-pipe instructions per score in the online softmax besides exp2: scale and subtract "
     "the max (FFMA), row max (FMNMX), row sum (FADD), half a bf16 pack (F2FP)"},
    {NAMED(kRowMaxOpsPerElement), "counted", "",
     "the row max's FMNMX per score (the scalar convention of kSoftmaxFmaOpsPerElement), which "
     "Blackwell Ultra's tensor-memory load (tcgen05.ld.red) takes over on the blocks the mask "
     "does not cross"},
    {NAMED(kFmaOpsPerEmulatedExp2), "counted", "",
     "FP32-pipe instructions per software exp2 (FA4 §3.1.3): round-down add and subtract, the "
     "fraction, a degree-3 Horner polynomial; the integer steps run on the ALU pipe"},
    {NAMED(kAluOpsPerEmulatedExp2), "counted", "",
     "ALU instructions per software exp2: the clamp, the shift into the exponent field, the "
     "exponent add; they take issue slots"},
    {NAMED(kIssueLanesPerClkPerSm), "published", "",
     "issue slots per SM and clock: 4 warp schedulers x one 32-lane instruction (Hopper and "
     "Blackwell whitepapers); the model's fma unit is this issue stream, MUFU issues included"},
    {NAMED(kBackwardFmaOpsPerElement), "counted", "",
     "FP32-pipe instructions per score in the backward pass: recompute P, dS = P·(dP - D), bf16 "
     "packs"},
    {NAMED(kFp8BackwardExtraFmaOpsPerElement), "fitted", "",
     "FP32-pipe instructions per score that fp8's per-tensor scaling adds to the backward pass "
     "(descale S and dP, scale P and dS, amax of dS: 3 to 7 counted); fitted within that count to "
     "the record's fit fp8 backward figures on Blackwell"},
    {NAMED(kMmaSyncShareHopper), "published",
     name_of(Reported::mma_sync_share_published),
     "mma.sync's rate as a share of wgmma's on Hopper (FA3 paper §2); Blackwell assumed alike"},
    {NAMED(kConditionalRescaleShare), "published",
     name_of(Reported::rescale_share),
     "tiles that still rescale O under conditional rescaling with threshold log2(256) (FA4 "
     "§3.1.4)"},
    {NAMED(kFa4DefaultExpEmulation), "published",
     "exp_emulation (a prediction field)",
     "exponentials FA4 emulates on the FP32 pipe by default (FA4 repo tuning); none where MUFU "
     "doubled"},
    {NAMED(kOverlapFa2Forward), "fitted", name_of(Reported::overlap_fa2_forward),
     "FA2 runs MMA, then softmax, in the same warp, but the SM's 8 warps interleave one's "
     "softmax with another's mma.sync; fitted to our fa2 on the lab's H200 at seqlen 8k, hd "
     "64/128/256 (335/353/329 TFLOP/s); PyTorch's flash backend then within 4%"},
    {NAMED(kFa2ExposedSmemShare), "fitted", "",
     "share of FA2's forward ldmatrix time left exposed beside its MMA and exp; fitted to "
     "PyTorch's flash forward on the lab's H200 at seqlen 8k, hd 64/128/256"},
    {NAMED(kHopperPingPongHiddenShare), "fitted",
     name_of(Reported::pingpong_hidden_share),
     "softmax cycles FA3's ping-pong hides per cycle of the tensor stream, the rest exposed; "
     "fitted with the tile overhead to our fa3 on the lab's H200 (fa3-paper sweep, 36 shapes, "
     "all within 9.3%); FA3's H100 661 TFLOP/s held out"},
    {NAMED(kOverlapFa2Backward), "by design", name_of(Reported::overlap),
     "FA2's backward keeps five GEMMs and the elementwise work in the same warps"},
    {NAMED(kFa2BackwardSmemRereads), "fitted", "",
     "times FA2's backward warps read each shared operand byte; fitted to PyTorch's flash "
     "backward on the lab's H200 at hd128"},
    {NAMED(kNaiveStreamingShare), "fitted",
     name_of(Reported::naive_streaming_share),
     "share of the measured copy bandwidth the naive algorithm's GEMMs and row softmax reach; "
     "fitted with the row latency to our naive kernel on the lab's H200 (fa3-paper sweep, 36 "
     "shapes, largest error 10.5%)"},
    {NAMED(kNaiveRowLatencySeconds), "fitted",
     name_of(Reported::naive_row_latency_s),
     "time one row block of the naive softmax holds its slot beyond its bytes (two dependent "
     "passes, two block reductions); fitted with the streaming share"},
    {NAMED(kNaiveRowsInFlightPerSm), "counted", "",
     "row blocks resident per SM: 2048 threads / 256-thread blocks"},
    {NAMED(kHopperPersistentTileOverheadCycles), "fitted",
     name_of(Reported::tile_overhead_cycles),
     "cycles per 128-row work tile of a Hopper persistent kernel (Q load, pipeline fill and "
     "drain, epilogue) up to hd128, times (d / 128)^2 above; fitted with the ping-pong share to "
     "our fa3 on the lab's H200 (fa3-paper sweep)"},
    {NAMED(kHopperSoftmaxChangeExposure), "fitted",
     name_of(Reported::softmax_change_exposure),
     "share of the change in fa3's softmax issue stream (software exp2, skipped rescales) that "
     "is exposed when FA4's softmax runs on FA3's Hopper pipeline; fitted to our fa4 grid on the "
     "lab's H200 (50% emulated, s8192)"},
    {NAMED(kBlackwellPersistentTileOverheadCycles), "fitted",
     name_of(Reported::blackwell_tile_overhead_cycles),
     "cycles per work tile of a Blackwell persistent kernel (Q or K, V load, pipeline fill and "
     "drain, epilogue); fitted to the published record's fit figures on Blackwell"},
    {NAMED(kDeterministicWaitTiles), "fitted",
     name_of(Reported::deterministic_wait_tiles),
     "tile times each CTA of a deterministic backward pass waits for the fixed-order dQ chain; "
     "fitted to the record's fit figures of deterministic backward passes"},
    {NAMED(kCudnnDeterministicStepCycles), "fitted",
     name_of(Reported::cudnn_deterministic_step_cycles),
     "cycles per tile step cuDNN's bf16/fp16 deterministic configuration pays beyond its plain "
     "kernel (its plain backward above hd128 on Blackwell too); fitted to the record's fit "
     "figures of both"},
    {NAMED(kCudnnDeterministicDqOrderStepCycles), "fitted",
     name_of(Reported::cudnn_deterministic_dq_order_step_cycles),
     "cycles per tile step cuDNN's deterministic backward up to hd128 pays beyond its pinned "
     "configuration's (its ordered dQ adds); fitted to the record's fit pairs of its plain and "
     "deterministic backward, on their ratio"},
    {NAMED(kFa4DeterministicReduceWaitCycles), "fitted",
     name_of(Reported::fa4_deterministic_reduce_wait_cycles),
     "cycles per tile step at hd128 (scaled by the head dim) FA4's deterministic backward below "
     "hd192 waits for each query block's dQ bulk reduce-adds before releasing its semaphore; "
     "fitted to the record's fit pairs of FA4's plain and deterministic backward, on their ratio"},
    {NAMED(kOverlapPersistentBackward), "fitted",
     name_of(Reported::overlap_persistent_backward),
     "share of the elementwise stream (P, dS) the persistent kernels' backward hides behind its "
     "five GEMMs; fitted to the record's fit backward figures: none"},
    {NAMED(kMmaSyncShareBlackwell), "fitted",
     name_of(Reported::mma_sync_share_blackwell),
     "mma.sync's rate as a share of tcgen05's on Blackwell; fitted to the record's fit "
     "FlashAttention-2 figures on B200"},
    {NAMED(kBlackwellSoftmaxIssueShare), "fitted",
     name_of(Reported::softmax_issue_share),
     "share of the issue rate FA4's softmax warps reach on Blackwell (two warps per scheduler, "
     "dependent FFMA and MUFU chains); fitted with the norm exponent to the record's fit forward "
     "figures on Blackwell"},
    {NAMED(kBlackwellStreamNormExponent), "fitted",
     name_of(Reported::stream_norm_exponent),
     "p in (T^p + S^p)^(1/p), the Blackwell forward tile with every unit at the sustained share: "
     "two dependent streams of near equal length cannot both run full; fitted with the issue "
     "share; then FA4's default 12.5% emulated share is the model's best on B200 (held out)"},
    {NAMED(kBlackwellUltraForwardTensorShare), "fitted",
     name_of(Reported::ultra_forward_tensor_share),
     "share of the tensor peak Blackwell Ultra's forward tensor stream (MMA and the shared-memory "
     "port feeding it) sustains where the B200 family's runs at gemm_efficiency: GB300's forward "
     "ran 1.14-1.27x GB200's in the same runs at one peak, its hd64 forward and its backward "
     "did not; fitted to the record's fit bf16 forward figures on B300 and GB300 at hd 128 and "
     "192/128"},
    {NAMED(kFrameworkCallSeconds), "fitted", "",
     "host time of one framework call that a published benchmark times beside the kernels; the "
     "comparison with a record figure adds it; fitted to the record's fit figures"},
    {NAMED(kListScheduleTailShare), "derived", "",
     "a non-persistent launch of unequal (causal) CTAs ends, on average, this share of a mean "
     "CTA after the fluid bound (list scheduling)"},
    {NAMED(kLongestFirstTailShare), "derived", "",
     "a longest-first schedule of unequal (causal) CTAs ends this share of its shortest CTA "
     "after the fluid bound (0.44-0.80 simulated on the record's causal shapes)"},
    {NAMED(kFixedOrderTailShare), "derived", "",
     "a persistent kernel that takes its tiles in a fixed order (cuDNN's Hopper forward) ends an "
     "unequal (causal) launch this share of its longest CTA after the fluid bound (0.57-0.95 "
     "measured on the lent H200)"},
    {NAMED(kFa2BackwardWarpGridRereads), "counted",
     name_of(Reported::fa2_backward_rereads),
     "times our fa2_bwd's 64-query tiles' warp grids read each shared operand byte at hd128 "
     "(counted 2.11; 2.32 before its one-pass dQ); Hopper"},
    {NAMED(kFa2BackwardHd64TileRereads), "fitted",
     name_of(Reported::fa2_backward_rereads),
     "the same on fa2_bwd's 128 x 128 hd64 tile (counted 1.9); fitted to our fa2_bwd and "
     "fa2_bwd_deterministic at hd64 on the lab's H200 (2026-11-26), kept at the refit of "
     "2026-11-27"},
    {NAMED(kFa2BackwardHd256TileRereads), "fitted",
     name_of(Reported::fa2_backward_rereads),
     "the same on fa2_bwd's hd256 tile (counted 2.16) since its spills fell at commit 5d4c42a; "
     "fitted to our fa2_bwd at hd256 on the lab's H200 (2026-11-27, 12 figures)"},
    {NAMED(kFa2BackwardLdmatrixShare), "fitted",
     name_of(Reported::fa2_backward_ldmatrix_share),
     "share of the shared-memory port FA2's backward ldmatrix reads sustain, which bounds its "
     "tile on Hopper; fitted with kFa2DqReductionBytesPerCycle to our fa2_bwd on the lab's H200, "
     "FA3-paper sweep of 2026-11-27"},
    {NAMED(kBackwardKeyBlockIoExposure), "fitted",
     name_of(Reported::key_block_io_exposure),
     "a key block's K, V loads and dK, dV stores, not overlapped with its query loop in our "
     "Hopper backward kernels: multiple of their time at the SM's HBM share; fitted to their "
     "short sequences on the lab's H200"},
    {NAMED(kLabFa3BackwardStepWaitCycles), "fitted",
     name_of(Reported::lab_fa3_step_wait_cycles),
     "cycles per query block and pass that fa3_bwd loses at its wgmma waits and dS barrier "
     "(warpgroups in phase) with dQ added by atomics (mma_tiles order); fitted to fa3_bwd at "
     "hd256 on the lab's H200, 2026-11-28"},
    {NAMED(kLabFa3StagedDqStepWaitCycles), "fitted",
     name_of(Reported::lab_fa3_staged_step_wait_cycles),
     "cycles per query block that fa3_bwd loses at its wgmma waits and dS barrier with dQ staged "
     "in shared memory for TMA tensor reduce-adds (hd64, hd128); fitted to fa3_bwd at hd128 on "
     "the lab's H200"},
    {NAMED(kHopperBackwardStepWaitCycles), "fitted",
     name_of(Reported::hopper_bwd_step_wait_cycles),
     "cycles per query block that FA3's published backward (and cuDNN's, as the model takes it) "
     "loses at its wgmma waits and dS barrier on Hopper; fitted to the record's fit bf16 backward "
     "figures on H200"},
    {NAMED(kHopperBackwardKeyBlockFillCycles), "fitted",
     name_of(Reported::hopper_bwd_key_block_fill_cycles),
     "cycles per key block (a persistent CTA's work tile) that FA3's published backward (and "
     "cuDNN's, as the model takes it) does not overlap on Hopper: the first query block's S and "
     "dP, the dK, dV epilogue; fitted with the step wait to the record's fit bf16 backward "
     "figures on H200"},
    {NAMED(kFa4SharedTmemColumnsStepCycles), "fitted",
     name_of(Reported::fa4_shared_tmem_columns_step_cycles),
     "cycles per step that FA4's own hd192/128 backward on Blackwell waits for the tensor-memory "
     "columns its S/P shares with dP/dS and dQ; fitted to the record's fit FA4 bf16 backward "
     "figures at hd192/128"},
    {NAMED(kFa4SingleTileCtaCycles), "fitted",
     name_of(Reported::fa4_single_tile_cta_cycles),
     "cycles each CTA of FA4's own backward on Blackwell (one CTA per key block, launched once) "
     "pays beside the persistent cost per work tile: no CTA's epilogue overlaps the next one's "
     "prologue; fitted to the record's fit FA4 bf16 backward figures under a window of 128 keys"},
    {NAMED(kFa4ForwardSingleTileCtaCycles), "fitted",
     name_of(Reported::fa4_forward_single_tile_cta_cycles),
     "cycles each CTA of FA4's causal or windowed forward (SingleTileLPTScheduler) and of its "
     "hd256 forward on Blackwell pays beside the persistent cost per work tile: those grids are "
     "not persistent; fitted to the record's fit FA4 bf16 causal and windowed forward figures at "
     "hd 64, 128 and 192/128"},
    {NAMED(kFa4BackwardSeparateColumnsOverlap), "fitted",
     name_of(Reported::fa4_backward_overlap),
     "share of the shorter stream FA4's own backward on Blackwell's 2-CTA pair hides behind the "
     "longer where S/P, dP/dS and dV, dK have tensor-memory columns of their own (up to hd128); "
     "fitted to the record's fit FA4 bf16 backward figures at hd128 from s8192"},
    {NAMED(kFa4DqChainLinkSeconds), "fitted",
     name_of(Reported::fa4_dq_chain_link_s),
     "seconds per link of FA4's deterministic dQ semaphore chain (one link per key block of a "
     "head; the heads of one L2 section chain at once); fitted to the record's fit FA4 "
     "deterministic figures under a window of 128 keys"},
    {NAMED(kFa4BackwardL2SectionBytes), "counted", "",
     "bytes of Q, dO and dQ accumulator per L2 section of FA4's deterministic backward "
     "scheduler (flash_attn/cute/tile_scheduler.py, size_l2 = 50 MiB)"},
    {NAMED(kLabFa3OneStageRingCycles), "fitted",
     name_of(Reported::lab_fa3_one_stage_ring_cycles),
     "cycles per query block that a one-stage Q/dO ring exposes in fa3_bwd (hd256's dK/dQ "
     "pass): the next block's loads wait for this block's GEMMs; fitted to fa3_bwd_one_stage "
     "against fa3_bwd at hd128 on the lab's H200"},
    {NAMED(kLabFa3SerialDqChunkCyclesPerElement), "fitted",
     name_of(Reported::lab_fa3_serial_dq_chunk_cycles),
     "cycles per float32 dQ element of fa3_bwd's dQ chunks after a warpgroup's first (hd256), "
     "issued, waited for and added with nothing in flight; fitted to fa3_bwd at hd256 on the "
     "lab's H200"},
    {NAMED(kFa2DqReductionBytesPerCycle), "fitted",
     name_of(Reported::fa2_dq_reduction_rate),
     "bytes per cycle per SM at which FA2's published backward's float32 dQ reductions leave a "
     "tile, their time added to the tile's (Hopper; none in our fa2_bwd since its mma_tiles "
     "order); fitted to our fa2_bwd's row-major reductions on the lab's H200, FA3-paper sweep of "
     "2026-11-27"},
    {NAMED(kSpilledDqAddHbmBytesPerElement), "derived", "",
     "HBM bytes per dQ element for each key beyond the band in cuDNN's fp8 causal backward on "
     "Hopper; its measured bytes under ncu on the lab's H200 (GQA 64/8, s32768)"},
    {NAMED(kSpilledDqAddBandKeys), "fitted",
     name_of(Reported::spilled_dq_add_band_keys),
     "keys next to a query row's diagonal whose dQ adds cost no HBM in cuDNN's fp8 causal "
     "backward on Hopper; fitted to its HBM bytes under ncu on the lab's H200 (GQA 64/8, "
     "s2048-32768)"},
    {NAMED(kSpilledDqAddBandwidthShare), "derived", "",
     "share of the copy bandwidth the spilled dQ adds' sector reads and writes reach; measured "
     "under ncu on the lab's H200 where they bound the launch (s8192-32768)"},
    {NAMED(kLayoutCopyBandwidthShare), "derived", "",
     "share of the HBM datasheet rate PyTorch's flash backward's two layout copies of query-side "
     "tensors reach; measured with torch.profiler on the lab's H200 (185 us for two 67 MB "
     "tensors)"},
    {NAMED(kSpilledDqAddMinQueryHeads), "derived", "",
     "query heads (batch x heads) from which cuDNN's fp8 causal backward's dQ adds spill on "
     "Hopper; timed on the lab's H200: 64 and 128 heads spill, 32 do not"},
    {NAMED(kLaunchClockTimeConstantSeconds), "derived", "",
     "seconds over which a launch's SM clock falls from the boost clock toward the GPU's "
     "sustained share of it (a power cap); read off the SM clocks of cuDNN's launches of 3-157 ms on the lab's "
     "H200"},
    {NAMED(kLaunchOverheadSeconds), "assumption",
     name_of(Reported::launch_overhead_s),
     "host launch to kernel start, per launch; the harness measures it"},
};
#undef NAMED

}  // namespace

std::span<const Constant> constants() { return kConstants; }

const ReportedText& text_of(Reported factor) { return kReported[int(factor)]; }

Factor reported(Reported factor, double value) {
  const ReportedText& text = text_of(factor);
  return {std::string(text.name), value, std::string(text.meaning), std::string(text.fitted_to)};
}

}  // namespace fa4::model::factors
