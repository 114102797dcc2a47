// Block counts under causal and sliding-window masks (blocks.hpp).
#include "model/blocks.hpp"

#include <algorithm>
#include <cmath>

namespace fa4::model {

double ceil_div(double extent, double size) { return std::ceil(extent / size); }

double diagonal_shift(const AttnShape& s) { return double(s.seqlen_k - s.seqlen_q); }

namespace {

// The last key block a causal forward CTA of query rows ending at row1 visits.
double last_causal_block(const AttnShape& s, Tile t, double row1) {
  return std::min(ceil_div(double(s.seqlen_k), t.n) - 1,
                  std::floor((row1 - 1 + diagonal_shift(s)) / t.n));
}

}  // namespace

double forward_blocks(const AttnShape& s, Tile t, double row0, double row1) {
  if (!s.causal) return ceil_div(double(s.seqlen_k), t.n);
  const double shift = diagonal_shift(s);
  if (row1 - 1 + shift < 0) return 0;
  const double first_key = s.window ? std::max(0.0, row0 + shift - double(s.window) + 1) : 0;
  return last_causal_block(s, t, row1) - std::floor(first_key / t.n) + 1;
}

double backward_blocks(const AttnShape& s, Tile t, double key0) {
  const double all = ceil_div(double(s.seqlen_q), t.m);
  if (!s.causal) return all;
  const double shift = diagonal_shift(s);
  const double first_row = std::max(0.0, key0 - shift);
  if (first_row >= double(s.seqlen_q)) return 0;
  const double last_key = std::min(key0 + t.n, double(s.seqlen_k)) - 1;
  const double last_row =
      s.window ? std::min(double(s.seqlen_q) - 1, last_key - shift + double(s.window) - 1)
               : double(s.seqlen_q) - 1;
  return std::floor(last_row / t.m) - std::floor(first_row / t.m) + 1;
}

double mean_query_blocks_per_key_block(const AttnShape& s, Tile t) {
  const double key_blocks = ceil_div(double(s.seqlen_k), t.n);
  double walked = 0;
  for (double k = 0; k < key_blocks; ++k) walked += backward_blocks(s, t, k * t.n);
  return walked / key_blocks;
}

double forward_masked_block_share(const AttnShape& s, Tile t) {
  const bool ragged_end = s.seqlen_k % t.n != 0;  // the last block runs past the keys
  const double shift = diagonal_shift(s);
  double visited = 0, masked = 0;
  for (double row0 = 0; row0 < double(s.seqlen_q); row0 += t.m) {
    const double row1 = std::min(row0 + t.m, double(s.seqlen_q));
    const double blocks = forward_blocks(s, t, row0, row1);
    if (blocks <= 0) continue;
    visited += blocks;
    if (!s.causal) {
      masked += ragged_end ? 1 : 0;
      continue;
    }
    const double last = last_causal_block(s, t, row1);
    const double first = last - blocks + 1;
    // From this block on, some key lies beyond row0's diagonal (the last block included).
    const double diagonal = std::max(first, std::floor((row0 + shift + 1) / t.n));
    double crossed = last - diagonal + 1;
    // Before this block, some key lies left of row1 - 1's window.
    if (s.window) {
      const double window_edge = std::ceil((row1 + shift - double(s.window)) / t.n);
      crossed += std::max(0.0, std::min(window_edge, diagonal) - first);
    }
    masked += std::max(0.0, crossed);
  }
  return visited > 0 ? masked / visited : 0;
}

}  // namespace fa4::model
