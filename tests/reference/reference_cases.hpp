// Shared by the reference tests: a one-batch shape, a fresh random seed, and a visit of every
// query row of a shape.
#pragma once

#include <cstdint>
#include <functional>
#include <random>

#include "core/shape.hpp"
#include "reference/attention.hpp"

namespace fa4::reference::testing {

inline AttnShape make_shape(std::int64_t heads_q, std::int64_t heads_kv, std::int64_t seqlen_q,
                            std::int64_t seqlen_k, std::int64_t headdim, std::int64_t headdim_v,
                            bool causal, Dtype dtype) {
  return AttnShape{.batch = 1,
                   .heads_q = heads_q,
                   .heads_kv = heads_kv,
                   .seqlen_q = seqlen_q,
                   .seqlen_k = seqlen_k,
                   .headdim = headdim,
                   .headdim_v = headdim_v,
                   .causal = causal,
                   .dtype = dtype};
}

inline std::uint64_t fresh_seed() { return std::random_device{}(); }

inline void for_each_row(const AttnShape& s, const std::function<void(RowId)>& visit) {
  for (std::int64_t b = 0; b < s.batch; ++b)
    for (std::int64_t h = 0; h < s.heads_q; ++h)
      for (std::int64_t i = 0; i < s.seqlen_q; ++i) visit(RowId{b, h, i});
}

}  // namespace fa4::reference::testing
