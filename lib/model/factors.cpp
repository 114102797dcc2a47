#include "model/factors.hpp"

namespace fa4::model::factors {
namespace {

const Constant kConstants[] = {
    {"kSoftmaxFmaOpsPerElement", kSoftmaxFmaOpsPerElement, "counted", "",
     "FP32-pipe instructions per score in the online softmax besides exp2: scale and subtract "
     "the max (FFMA), row max (FMNMX), row sum (FADD), half a bf16 pack (F2FP)"},
    {"kFmaOpsPerEmulatedExp2", kFmaOpsPerEmulatedExp2, "counted", "",
     "FP32-pipe instructions per software exp2 (FA4 §3.1.3): round-down add and subtract, the "
     "fraction, a degree-3 Horner polynomial; the integer steps run on the ALU pipe"},
    {"kAluOpsPerEmulatedExp2", kAluOpsPerEmulatedExp2, "counted", "",
     "ALU instructions per software exp2: the clamp, the shift into the exponent field, the "
     "exponent add; they take issue slots"},
    {"kIssueLanesPerClkPerSm", kIssueLanesPerClkPerSm, "published", "",
     "issue slots per SM and clock: 4 warp schedulers x one 32-lane instruction (Hopper and "
     "Blackwell whitepapers); the model's fma unit is this issue stream, MUFU issues included"},
    {"kBackwardFmaOpsPerElement", kBackwardFmaOpsPerElement, "counted", "",
     "FP32-pipe instructions per score in the backward pass: recompute P, dS = P·(dP - D), bf16 "
     "packs"},
    {"kMmaSyncShareHopper", kMmaSyncShareHopper, "published", "mma_sync_share",
     "mma.sync's rate as a share of wgmma's on Hopper (FA3 paper §2); Blackwell assumed alike"},
    {"kConditionalRescaleShare", kConditionalRescaleShare, "published", "rescale_share",
     "tiles that still rescale O under conditional rescaling with threshold log2(256) (FA4 "
     "§3.1.4)"},
    {"kFa4DefaultExpEmulation", kFa4DefaultExpEmulation, "published",
     "exp_emulation (a prediction field)",
     "exponentials FA4 emulates on the FP32 pipe by default (FA4 repo tuning); none where MUFU "
     "doubled"},
    {"kOverlapFa2Forward", kOverlapFa2Forward, "fitted", "overlap",
     "FA2 runs MMA, then softmax, in the same warp, but the SM's 8 warps interleave one's "
     "softmax with another's mma.sync; fitted to our fa2 on the lab's H200 at seqlen 8k, hd "
     "64/128/256 (335/353/329 TFLOP/s); PyTorch's flash backend then within 4%"},
    {"kFa2ExposedSmemShare", kFa2ExposedSmemShare, "fitted", "",
     "share of FA2's forward ldmatrix time left exposed beside its MMA and exp; fitted to PyTorch's "
     "flash forward on the lab's H200 at seqlen 8k, hd 64/128/256"},
    {"kHopperPingPongHiddenShare", kHopperPingPongHiddenShare, "fitted", "pingpong_hidden_share",
     "softmax cycles FA3's ping-pong hides per cycle of the tensor stream, the rest exposed; "
     "fitted with the tile overhead to our fa3 on the lab's H200 (fa3-paper sweep, 36 shapes, "
     "all within 9.3%); FA3's H100 661 TFLOP/s held out"},
    {"kOverlapFa4Forward", kOverlapFa4Forward, "by design", "overlap",
     "tcgen05 MMA is asynchronous; softmax and correction warpgroups run beside it; validated "
     "on FA4's B200 hd128 figure"},
    {"kOverlapFa2Backward", kOverlapFa2Backward, "by design", "overlap",
     "FA2's backward keeps five GEMMs and the elementwise work in the same warps"},
    {"kFa2BackwardSmemRereads", kFa2BackwardSmemRereads, "fitted", "",
     "times FA2's backward warps read each shared operand byte; fitted to PyTorch's flash "
     "backward on the lab's H200 at hd128"},
    {"kNaiveStreamingShare", kNaiveStreamingShare, "fitted", "naive_streaming_share",
     "share of the measured copy bandwidth the naive algorithm's GEMMs and row softmax reach; "
     "fitted with the row latency to our naive kernel on the lab's H200 (fa3-paper sweep, 36 "
     "shapes, largest error 10.5%)"},
    {"kNaiveRowLatencySeconds", kNaiveRowLatencySeconds, "fitted", "naive_row_latency_s",
     "time one row block of the naive softmax holds its slot beyond its bytes (two dependent "
     "passes, two block reductions); fitted with the streaming share"},
    {"kNaiveRowsInFlightPerSm", kNaiveRowsInFlightPerSm, "counted", "",
     "row blocks resident per SM: 2048 threads / 256-thread blocks"},
    {"kHopperPersistentTileOverheadCycles", kHopperPersistentTileOverheadCycles, "fitted",
     "tile_overhead_cycles",
     "cycles per 128-row work tile of a Hopper persistent kernel (Q load, pipeline fill and "
     "drain, epilogue) up to hd128, times (d / 128)^2 above; fitted with the ping-pong share to "
     "our fa3 on the lab's H200 (fa3-paper sweep)"},
    {"kHopperSoftmaxChangeExposure", kHopperSoftmaxChangeExposure, "fitted",
     "softmax_change_exposure",
     "share of the change in fa3's softmax issue stream (software exp2, skipped rescales) that "
     "is exposed when FA4's softmax runs on FA3's Hopper pipeline; fitted to our fa4 grid on the "
     "lab's H200 (50% emulated, s8192)"},
    {"kListScheduleTailShare", kListScheduleTailShare, "derived", "",
     "a non-persistent launch of unequal (causal) CTAs ends, on average, this share of a mean "
     "CTA after the fluid bound (list scheduling)"},
    {"kLaunchOverheadSeconds", kLaunchOverheadSeconds, "assumption", "launch_overhead_s",
     "host launch to kernel start, per launch; the harness measures it"},
};

}  // namespace

std::span<const Constant> constants() { return kConstants; }

}  // namespace fa4::model::factors
