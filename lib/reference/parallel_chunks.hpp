// Work over [0, count) split into one contiguous chunk per hardware thread, for the element-wise
// passes over multi-gigabyte inputs (drawing them, converting them to 16 bits); serial below a
// million elements, where starting threads costs more than it saves.
#pragma once

#include <algorithm>
#include <cstdint>
#include <thread>
#include <vector>

namespace fa4::reference {

// Calls chunk(begin, end) for disjoint ranges covering [0, count), concurrently.
template <class Chunk>
void for_each_chunk(std::int64_t count, const Chunk& chunk) {
  constexpr std::int64_t kSerialBelow = std::int64_t{1} << 20;
  const std::int64_t threads =
      count < kSerialBelow ? 1 : std::max<std::int64_t>(1, std::thread::hardware_concurrency());
  const std::int64_t size = (count + threads - 1) / threads;
  std::vector<std::thread> workers;
  for (std::int64_t begin = size; begin < count; begin += size)
    workers.emplace_back([&chunk, begin, end = std::min(count, begin + size)] { chunk(begin, end); });
  chunk(0, std::min(count, size));
  for (std::thread& worker : workers) worker.join();
}

}  // namespace fa4::reference
