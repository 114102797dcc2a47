// The paged KV cache's layout, shared by the decode kernels, the harness and the tests.
//
// A pool of pages, each holding `page_size` tokens of every KV head: K and V are
// [pool_pages][heads_kv][page_size][headdim] (FlashInfer's "HND" page layout), so one page of one
// head is page_size * headdim contiguous elements, a TMA box of its own. Sequence b's token t is
// row t % page_size of page block_table[b * pages_per_sequence + t / page_size]. The pool holds
// every sequence's full capacity (seqlen_k keys, pages_per_sequence pages each); a ragged batch
// leaves the pages and rows past a sequence's key count unwritten, and kernels neither read
// those pages nor let those rows reach O.
#pragma once

#include <cstdint>
#include <vector>

#include "core/shape.hpp"

namespace fa4::kv_pages {

constexpr std::int64_t pages_per_sequence(const AttnShape& shape) {
  return (shape.seqlen_k + shape.page_size - 1) / shape.page_size;
}
constexpr std::int64_t pool_pages(const AttnShape& shape) {
  return shape.batch * pages_per_sequence(shape);
}

// A block table ([batch][pages_per_sequence], int32) dealing the pool's pages to the sequences in
// an order shuffled by `seed` (Fisher-Yates on splitmix64): no page is used twice, and neighbouring
// tokens across a page boundary are far apart in memory, as in a serving engine's cache.
std::vector<std::int32_t> shuffled_block_table(const AttnShape& shape, std::uint64_t seed);

// A contiguous K or V ([batch][heads_kv][seqlen_k][width]) laid out in the pool through `table`;
// pool slots no sequence's key fills hold `fill`.
std::vector<float> to_pages(const std::vector<float>& contiguous, const AttnShape& shape,
                            std::int64_t width, const std::vector<std::int32_t>& table, float fill);

}  // namespace fa4::kv_pages
