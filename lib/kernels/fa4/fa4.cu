// fa4: FlashAttention-4's softmax techniques (Zadouri et al., arXiv 2603.05451, section 3) on
// fa3's Hopper pipeline (TMA + mbarrier K/V pipeline, producer warpgroup, two wgmma consumer
// warpgroups with ping-pong and intra-warpgroup overlap, persistent scheduler; fa3/fa3.cu).
// The pipeline is fa3's own code (fa3/kernel.cuh, fa3/launch.cuh); Variant::fa4_softmax selects the
// softmax policy in the consumer (OnlineSoftmax::update_block, fa3/softmax.cuh):
//   - software exp2 on the FMA pipe (kernels/exp2_emulation.cuh, bit-exact with the CPU
//     reference and tested so by exp2_device_test) for the first E of each row's key groups of 8
//     in every block, MUFU ex2.approx for the rest; E = round(share * kBlockN / 8), the share in
//     eighths (12.5% of 16 groups at kBlockN 128 is 2 groups, 4 values per row; hd64's 192-key
//     blocks: 3 of 24); hd256: no emulation;
//   - conditional rescaling: a warp keeps its rows' running maxima unless one row's block
//     maximum exceeds its running maximum by more than 8 (log2 units, after the scale), decided
//     by __any_sync; O and the row sums stay relative to the same maxima (P < 2^8) and the
//     epilogue's division by the row sum corrects both; skipped rescales also skip O's multiply.
//     Lane 0 of each warp counts the decisions and the skipped ones; the counts are added
//     atomically into the workspace (fa4/fa4.hpp: RescaleCounts).
// Conditional rescaling is a warp-uniform runtime flag; the emulated share is a compile-time
// parameter (Variant::emulated_eighths): as a runtime count (run 1) the per-key-group branches
// split the softmax into basic blocks and made even the share-0 configuration 21% slower than
// fa3 at hd128. One instantiation per (dtype, head dim, key block, share); hd256 keeps exp2 on
// MUFU at every share (44 bytes of spills with the software path beside O's 128 registers).
//
// Registry entries (the issue's ablation grid: emulated share 0, 12.5, 25, 50% x conditional
// rescaling off/on), all shapes fa3 supports:
//   fa4_e{0,12,25,50}_r{0,1}: e = emulated share in percent (12 = 12.5%), r = conditional
//   rescaling off (0) / on (1); fa4 = the configuration measured best on the H200 at each
//   sequence length: e0_r1 from seqlen_k 4096, fa3's softmax below (launch_fa4_best).
// Measured figures and the model's predictions: lib/kernels/fa4/NOTES.md.
#include "kernels/fa3/launch.cuh"
#include "kernels/fa4/fa4.hpp"

namespace fa4::kernels {
namespace fa4_softmax {
namespace {

using fa3::SoftmaxOptions;
using fa3::Traits;
using fa3::Variant;

// Instantiations, with fa3's key blocks for the shape (core/fa3_tiles.hpp): hd64 (128- and
// 192-key blocks) and hd128 per emulated share; hd256 (80- and 48-key blocks) keeps exp2 on MUFU
// (softmax.cuh: kEmulatedGroups), so every share launches the share-0 instantiation there.
template <int Eighths, typename Element>
Status launch_for_element(const AttnShape& shape, const AttnBuffers& buffers, Stream stream,
                          SoftmaxOptions options) {
  constexpr Variant kStandard{.fa4_softmax = true, .emulated_eighths = Eighths};
  constexpr Variant kWide{
      .wide_key_blocks = true, .fa4_softmax = true, .emulated_eighths = Eighths};
  constexpr Variant kMufuOnly{.fa4_softmax = true, .emulated_eighths = 0};
  constexpr Variant kMufuOnlyNarrow{.narrow_key_blocks = true, .fa4_softmax = true};
  const fa3_tiles::KeyBlocks blocks = fa3_tiles::key_blocks_for(shape.headdim, shape.seqlen_k);
  switch (shape.headdim) {
    case 64:
      return blocks == fa3_tiles::KeyBlocks::wide
                 ? fa3::launch_traits<Traits<Element, 64, kWide>>(shape, buffers, stream, options)
                 : fa3::launch_traits<Traits<Element, 64, kStandard>>(shape, buffers, stream,
                                                                      options);
    case 128:
      return fa3::launch_traits<Traits<Element, 128, kStandard>>(shape, buffers, stream, options);
    case 256:
      return blocks == fa3_tiles::KeyBlocks::narrow
                 ? fa3::launch_traits<Traits<Element, 256, kMufuOnlyNarrow>>(shape, buffers, stream,
                                                                             options)
                 : fa3::launch_traits<Traits<Element, 256, kMufuOnly>>(shape, buffers, stream,
                                                                       options);
    default:
      return Error{"fa4: head dim " + std::to_string(shape.headdim) + " has no tile configuration"};
  }
}

template <int EmulatedEighths, bool ConditionalRescale>
Status launch_fa4(const AttnShape& shape, const AttnBuffers& buffers, Stream stream) {
  const SoftmaxOptions options{.conditional_rescale = ConditionalRescale};
  return shape.dtype == Dtype::bf16
             ? launch_for_element<EmulatedEighths, __nv_bfloat16>(shape, buffers, stream, options)
             : launch_for_element<EmulatedEighths, __half>(shape, buffers, stream, options);
}

// fa4 itself: conditional rescaling (exp2 on MUFU) where it pays, from seqlen_k 4096; below that
// fa3's own softmax, launched as fa3 launches it (the same instantiations). Measured on the H200
// in A/B rounds (NOTES.md, run 8): with 4-16 key blocks per row the skipped O multiplies do not
// pay for the per-block vote (-0.5..-0.8% at hd64 s512-1024, +-0.6% at hd128), and the policy's
// code layout alone (fa4_e0_r0) is up to 1.7% slower than fa3 there; from s4096 conditional
// rescaling gains 2-4% (runs 2-3).
Status launch_fa4_best(const AttnShape& shape, const AttnBuffers& buffers, Stream stream) {
  constexpr std::int64_t kConditionalRescaleFromSeqlen = 4096;
  if (shape.seqlen_k >= kConditionalRescaleFromSeqlen)
    return launch_fa4<0, true>(shape, buffers, stream);
  return fa3::launch_fa3(shape, buffers, stream);
}

std::optional<std::string> unsupported_reason(const AttnShape& shape, const DeviceCaps& device) {
  if (auto reason = fa3::unsupported_reason(shape, device))
    return "fa4 runs on fa3's pipeline: " + *reason;
  return std::nullopt;
}

std::size_t rescale_counts_bytes(const AttnShape&, const DeviceCaps&) {
  return sizeof(RescaleCounts);
}

// A grid entry: the emulated exp2 share in eighths and conditional rescaling off or on.
template <int EmulatedEighths, bool ConditionalRescale>
constexpr Kernel grid_kernel(std::string_view name, std::string_view summary) {
  return fa3::hopper_kernel(name, summary, launch_fa4<EmulatedEighths, ConditionalRescale>,
                            rescale_counts_bytes, unsupported_reason);
}

}  // namespace
}  // namespace fa4_softmax

// The registry's fa4 entries (declared in registry.cpp): fa4 itself and the grid.
extern const Kernel fa4_kernel;
const Kernel fa4_kernel = fa3::hopper_kernel(
    "fa4",
    "FA4's softmax on fa3's pipeline where it pays on H200: conditional rescaling with exp2 on "
    "MUFU from seqlen_k 4096, fa3's softmax below",
    fa4_softmax::launch_fa4_best, fa4_softmax::rescale_counts_bytes,
    fa4_softmax::unsupported_reason);

extern const Kernel fa4_e0_r0_kernel;
const Kernel fa4_e0_r0_kernel = fa4_softmax::grid_kernel<0, false>(
    "fa4_e0_r0", "fa4 grid: exp2 all on MUFU, always rescale (fa3's softmax)");
extern const Kernel fa4_e0_r1_kernel;
const Kernel fa4_e0_r1_kernel = fa4_softmax::grid_kernel<0, true>(
    "fa4_e0_r1", "fa4 grid: exp2 all on MUFU, conditional rescaling");
extern const Kernel fa4_e12_r0_kernel;
const Kernel fa4_e12_r0_kernel = fa4_softmax::grid_kernel<1, false>(
    "fa4_e12_r0", "fa4 grid: 12.5% of exp2 in software, always rescale");
extern const Kernel fa4_e12_r1_kernel;
const Kernel fa4_e12_r1_kernel = fa4_softmax::grid_kernel<1, true>(
    "fa4_e12_r1", "fa4 grid: 12.5% of exp2 in software, conditional rescaling");
extern const Kernel fa4_e25_r0_kernel;
const Kernel fa4_e25_r0_kernel = fa4_softmax::grid_kernel<2, false>(
    "fa4_e25_r0", "fa4 grid: 25% of exp2 in software, always rescale");
extern const Kernel fa4_e25_r1_kernel;
const Kernel fa4_e25_r1_kernel = fa4_softmax::grid_kernel<2, true>(
    "fa4_e25_r1", "fa4 grid: 25% of exp2 in software, conditional rescaling");
extern const Kernel fa4_e50_r0_kernel;
const Kernel fa4_e50_r0_kernel = fa4_softmax::grid_kernel<4, false>(
    "fa4_e50_r0", "fa4 grid: 50% of exp2 in software, always rescale");
extern const Kernel fa4_e50_r1_kernel;
const Kernel fa4_e50_r1_kernel = fa4_softmax::grid_kernel<4, true>(
    "fa4_e50_r1", "fa4 grid: 50% of exp2 in software, conditional rescaling");
extern const Kernel fa4_e100_r1_kernel;
const Kernel fa4_e100_r1_kernel = fa4_softmax::grid_kernel<8, true>(
    "fa4_e100_r1", "fa4: every exp2 in software, conditional rescaling");

}  // namespace fa4::kernels
