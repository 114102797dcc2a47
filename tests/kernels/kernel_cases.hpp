// What the GPU kernel tests share: named shapes, a shape builder, and how GoogleTest prints a
// test's parameters in its listing (and ctest shows them): the kernel's name and the shape's name
// and description instead of a pointer and the struct's bytes.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>

#include "core/shape.hpp"
#include "kernels/registry.hpp"

namespace fa4::kernels {
inline void PrintTo(const Kernel* kernel, std::ostream* os) { *os << kernel->name; }
}  // namespace fa4::kernels

namespace fa4::bench {

struct ShapeCase {
  std::string name;
  AttnShape shape;
  float input_stddev = 1.0f;  // of Q, K and V entries; scaled logits have stddev input_stddev^2
};

inline void PrintTo(const ShapeCase& c, std::ostream* os) {
  *os << c.name << " (" << describe(c.shape) << ")";
}

inline AttnShape shape_of(std::int64_t batch, std::int64_t heads_q, std::int64_t heads_kv,
                          std::int64_t seqlen_q, std::int64_t seqlen_k, std::int64_t headdim,
                          bool causal, Dtype dtype, std::int64_t headdim_v = 0) {
  return AttnShape{.batch = batch,
                   .heads_q = heads_q,
                   .heads_kv = heads_kv,
                   .seqlen_q = seqlen_q,
                   .seqlen_k = seqlen_k,
                   .headdim = headdim,
                   .headdim_v = headdim_v ? headdim_v : headdim,
                   .causal = causal,
                   .dtype = dtype};
}

}  // namespace fa4::bench
