// Decode on fa3's pipeline (Options::decode): the g query heads of a KV head packed into the rows
// of one 64-row tile, the key blocks dealt to CTAs by core/decode_tiles.hpp's partition, each
// CTA's blocks in sequence (S, softmax, P V), float32 partials for the row blocks a CTA does not
// cover whole and a combine launch that reads them. The KV cache is read once: the launch is
// bound by HBM wherever those bytes at the read rate take longer than the SMs' tiles.
#include <algorithm>
#include <cmath>
#include <vector>

#include "core/decode_tiles.hpp"
#include "model/algorithm_traits.hpp"
#include "model/factors.hpp"
#include "model/model.hpp"
#include "model/predict_internal.hpp"

namespace fa4::model::internal {
namespace {

namespace dt = decode_tiles;

// One row block of the problem: its packed rows and keys, the key blocks it reads.
struct RowBlock {
  double rows = 0;
  double keys = 0;
  std::int64_t units = 0;
};

std::vector<RowBlock> row_blocks_of(const AttnShape& s) {
  const dt::PackGeometry g = dt::geometry(s);
  std::vector<RowBlock> out;
  for (std::int64_t b = 0; b < s.batch; ++b) {
    const int keys = int(keys_of(s, b));
    for (std::int64_t h = 0; h < s.heads_kv; ++h)
      for (int rb = 0; rb < g.row_blocks; ++rb) {
        const double rows = std::min(dt::kBlockM, g.packed_rows - rb * dt::kBlockM);
        out.push_back({rows, double(keys), dt::row_block_units(g, keys, rb)});
      }
  }
  return out;
}

// The CTAs' work in key blocks, and the float32 partial rows they store (row blocks not covered
// whole by one CTA): the balanced partition, whole row blocks, or FlashDecoding's split.
struct Partition {
  std::vector<std::int64_t> cta_units;
  double partial_rows = 0;  // rows of float32 partials stored, one per (row, part)
};

// `splits` parts per row block, each a CTA (an empty one stores its -inf part too), as the kernel
// runs them; 1: whole row blocks.
Partition split_partition(const std::vector<RowBlock>& blocks, int splits) {
  Partition out;
  for (const RowBlock& r : blocks) {
    for (int c = 0; c < splits; ++c)
      out.cta_units.push_back(dt::split_part(int(r.units), splits, c).blocks);
    if (splits > 1) out.partial_rows += r.rows * double(splits);
  }
  return out;
}

// Equal ranges of every unit over `parts` CTAs; a row block several CTAs cover stores a partial
// per CTA.
Partition balanced_partition(const std::vector<RowBlock>& blocks, std::int64_t parts) {
  Partition out;
  std::int64_t units = 0;
  for (const RowBlock& r : blocks) units += r.units;
  for (std::int64_t c = 0; c < parts; ++c)
    out.cta_units.push_back(dt::first_unit(c + 1, units, parts) - dt::first_unit(c, units, parts));
  std::int64_t first = 0;
  for (const RowBlock& r : blocks) {
    if (r.units > 0) {
      const std::int64_t lo = dt::part_of(first, units, parts);
      const std::int64_t hi = dt::part_of(first + r.units - 1, units, parts);
      if (hi > lo) out.partial_rows += r.rows * double(hi - lo + 1);
    }
    first += r.units;
  }
  return out;
}

// The kernel's partition: a forced split count, whole row blocks (the ablation), or
// decode_tiles::chosen_partition.
Partition partition(const AttnShape& s, const Options& o, const std::vector<RowBlock>& blocks,
                    int sms) {
  if (s.splits > 0) return split_partition(blocks, int(s.splits));
  if (o.decode == DecodePartition::whole_row_blocks) return split_partition(blocks, 1);
  const dt::ChosenPartition chosen = dt::chosen_partition(s, sms);
  return chosen.balanced ? balanced_partition(blocks, chosen.count)
                         : split_partition(blocks, int(chosen.count));
}

// SM cycles until the last CTA ends: one wave where the CTAs fit the SMs, whole waves of equal
// CTAs, else the fluid bound or the longest CTA.
double makespan_cycles(const std::vector<std::int64_t>& cta_units, double unit_cycles,
                       double cta_cycles, int sms) {
  double longest = 0, total = 0;
  bool equal = true;
  for (std::int64_t u : cta_units) {
    const double c = double(u) * unit_cycles + cta_cycles;
    longest = std::max(longest, c);
    total += c;
    equal = equal && u == cta_units.front();
  }
  const double n = double(cta_units.size());
  if (n <= sms) return longest;
  return equal ? std::ceil(n / sms) * longest : std::max(total / sms, longest);
}

// The read time of a paged cache's boxes over a contiguous one's (factors.def,
// kPagedBoxOverheadBytes): one box per page and 64-column half where a page is shorter than the
// key block, one per key block and half otherwise.
double paged_read_factor(const AttnShape& s, int block_n) {
  if (s.page_size <= 0 || s.page_size >= block_n) return 1;
  const double row = 64.0 * element_bytes(s.dtype);  // one 64-column half of a key's row
  const double o = factors::kPagedBoxOverheadBytes;
  const double page_box = double(s.page_size) * row, block_box = block_n * row;
  return (1 + o / page_box) / (1 + o / block_box);
}

}  // namespace

Tile decode_tile(const AttnShape& s) { return {dt::kBlockM, dt::key_block(s.headdim)}; }

Prediction predict_decode(const hw::Spec& gpu, const AttnShape& s, const Options& o, Prediction p) {
  const TileCycles& c = p.tile_cycles;
  const double e = element_bytes(s.dtype);
  if (combines_streams_by_norm(gpu, o.algorithm, o.pass)) {
    // FA4's Blackwell pipeline (cuDNN's there, as its forward is modeled): the softmax warps on
    // one key block while the MMA warp issues the next, the streams combined as its forward's.
    const StreamTimes times = blackwell_forward_times(gpu, c, p.tensor_stream_cycles);
    p.softmax_stream_cycles = times.softmax;
    p.tile_time_cycles = times.tile;
    p.factors.push_back(factors::reported(factors::Id::kBlackwellSoftmaxIssueShare));
    p.factors.push_back(factors::reported(factors::Id::kBlackwellStreamNormExponent));
  } else {
    // fa3's one consumer warpgroup: S, the softmax and P V in sequence, each GEMM waited for.
    p.tensor_stream_cycles = std::max(c.mma / gpu.gemm_efficiency, c.smem);
    p.softmax_stream_cycles = std::max(c.exp_mufu, c.fma);
    p.tile_time_cycles =
        p.tensor_stream_cycles + p.softmax_stream_cycles + 2 * factors::kDecodeGemmWaitCycles;
    p.factors.push_back(factors::reported(factors::Id::kDecodeGemmWaitCycles));
  }
  p.factors.push_back(factors::reported(factors::Id::kHopperPersistentTileOverheadCycles));
  const double cta_cycles = factors::kHopperPersistentTileOverheadCycles;

  const std::vector<RowBlock> blocks = row_blocks_of(s);
  const Partition plan = partition(s, o, blocks, gpu.sms);
  double units = 0;
  for (std::int64_t u : plan.cta_units) units += double(u);
  p.ctas = double(plan.cta_units.size());
  p.tiles = units;
  p.waves = p.ctas / gpu.sms;
  const double clock_hz = gpu.peak_clock_mhz * 1e6;
  const double compute_s = seconds_under_power_cap(
      gpu, makespan_cycles(plan.cta_units, p.tile_time_cycles, cta_cycles, gpu.sms) / clock_hz);

  // HBM: each row block's keys of K and V (whole key blocks, at most its sequence's keys; a
  // paged cache's boxes at their read factor), its block-table row, Q, O and LSE, the partials.
  const int block_n = p.tile.n;
  double kv = 0, table = 0;
  for (const RowBlock& r : blocks) {
    kv += std::min(double(r.units) * block_n, r.keys) * double(s.headdim + s.headdim_v) * e;
    if (s.page_size > 0) table += std::ceil(r.keys / double(s.page_size)) * sizeof(std::int32_t);
  }
  const double rows = double(s.batch * s.heads_q * s.seqlen_q);
  const double q_o = rows * (double(s.headdim + s.headdim_v) * e + kLseBytes);
  const double partials = plan.partial_rows * (double(s.headdim_v) + 1) * kLseBytes;
  const bool measured_read = gpu.read_efficiency > 0;
  const double share = measured_read ? gpu.read_efficiency : gpu.copy_efficiency;
  p.factors.push_back(
      measured_read
          ? measured_share(gpu, factors::Value::read_efficiency, share, "/read_efficiency")
          : measured_share(gpu, factors::Value::copy_efficiency, share, "/copy_efficiency"));
  const double bandwidth = gpu.hbm_bytes_per_s * share;
  double written_back = 0;
  if (o.after_l2_flush) {
    // The flush left L2 full of dirty lines; each line the read brings in evicts one at random,
    // so the dirty share left decays as e^(-bytes read / L2) and the evicted ones are written.
    written_back = gpu.l2_bytes * -std::expm1(-(kv + table) / gpu.l2_bytes);
  }
  const double paged = paged_read_factor(s, block_n);
  if (paged > 1) p.factors.push_back(factors::reported(factors::Id::kPagedBoxOverheadBytes));
  const double hbm_s = (kv * paged + table + q_o + partials + written_back) / bandwidth;
  p.hbm_bytes = kv + table + q_o + 2 * partials;
  // After the last bytes arrive its CTA still computes its last key block and stores: S, the
  // softmax and P V of that block one after the other (no later block to overlap them with).
  const double last_block_cycles =
      std::max(p.tile_time_cycles, p.tensor_stream_cycles + p.softmax_stream_cycles);
  const double drain_s = (last_block_cycles + cta_cycles) / clock_hz;
  p.main_kernel_s = std::max(compute_s, hbm_s + drain_s);
  // The combine reads each row's partials and writes its O (counted with the main kernel's).
  const bool combine = plan.partial_rows > 0;
  const double combine_s = partials / bandwidth;
  p.launch_overhead_s = (combine ? 2 : 1) * factors::kLaunchOverheadSeconds;
  p.time_s = p.main_kernel_s + combine_s + p.launch_overhead_s;
  if (p.tiles > 0) p.tile_cycles.hbm = hbm_s * gpu.sms * clock_hz / p.tiles;
  p.bottleneck = hbm_s + drain_s >= compute_s ? Unit::hbm : Unit::mma;
  return p;
}

}  // namespace fa4::model::internal
