// Which blocks of S a kernel visits under the mask: the key blocks a forward CTA of query rows
// walks, the query blocks a backward CTA of keys walks, and which of those the mask crosses.
// Causal masks are bottom-right aligned (query i sees keys j <= i + seqlen_k - seqlen_q) and a
// sliding window W keeps only j > that - W.
#pragma once

#include "core/shape.hpp"
#include "model/model.hpp"

namespace fa4::model {

// Blocks of `size` that cover `extent`, the last one partial where they do not divide.
double ceil_div(double extent, double size);

// How far right of the main diagonal the causal one sits: the keys beyond the queries.
double diagonal_shift(const AttnShape& s);

// Key blocks a forward CTA of query rows [row0, row1) visits: every block the band touches, its
// partial blocks at both edges included.
double forward_blocks(const AttnShape& s, Tile t, double row0, double row1);

// Query blocks a backward CTA owning keys [key0, key0 + N) visits (the same band, seen from the
// keys: key j is seen by rows j - shift .. j - shift + W - 1).
double backward_blocks(const AttnShape& s, Tile t, double key0);

// Query blocks a backward CTA walks, over the key blocks of one head on average.
double mean_query_blocks_per_key_block(const AttnShape& s, Tile t);

// The share of the forward's visited blocks that the mask crosses for some row of the CTA: the
// diagonal, the window's left edge, or the end of the keys inside the block. A kernel must mask
// such a block's scores before it takes their row maximum.
double forward_masked_block_share(const AttnShape& s, Tile t);

}  // namespace fa4::model
