#include "core/kv_pages.hpp"

#include <algorithm>
#include <numeric>
#include <utility>

namespace fa4::kv_pages {
namespace {

std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

}  // namespace

std::vector<std::int32_t> shuffled_block_table(const AttnShape& shape, std::uint64_t seed) {
  std::vector<std::int32_t> table(std::size_t(pool_pages(shape)));
  std::iota(table.begin(), table.end(), 0);
  for (std::size_t i = table.size(); i > 1; --i) {
    const std::size_t j = std::size_t(splitmix64(seed ^ (std::uint64_t(i) << 20)) % i);
    std::swap(table[i - 1], table[j]);
  }
  return table;
}

std::vector<float> to_pages(const std::vector<float>& contiguous, const AttnShape& shape,
                            std::int64_t width, const std::vector<std::int32_t>& table,
                            float fill) {
  const std::int64_t pages = pages_per_sequence(shape);
  std::vector<float> pool(std::size_t(pool_pages(shape) * shape.heads_kv * shape.page_size * width),
                          fill);
  for (std::int64_t b = 0; b < shape.batch; ++b)
    for (std::int64_t h = 0; h < shape.heads_kv; ++h)
      for (std::int64_t t = 0; t < keys_of(shape, b); ++t) {
        const std::int64_t page = table[std::size_t(b * pages + t / shape.page_size)];
        const std::int64_t to =
            ((page * shape.heads_kv + h) * shape.page_size + t % shape.page_size);
        const std::int64_t from = (b * shape.heads_kv + h) * shape.seqlen_k + t;
        std::copy_n(contiguous.begin() + from * width, width, pool.begin() + to * width);
      }
  return pool;
}

}  // namespace fa4::kv_pages
