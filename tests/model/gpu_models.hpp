// The shipped hardware models, loaded once for the model tests.
#pragma once

#include <gtest/gtest.h>

#include "hw/loader.hpp"

namespace fa4::testing {

inline const hw::Spec& gpu(std::string_view id) {
  static const std::vector<hw::Spec> specs = [] {
    auto loaded = hw::load_all_specs(std::string(FA4_SOURCE_DIR) + "/models");
    if (!loaded) throw std::runtime_error(loaded.error().message);
    return std::move(loaded).value();
  }();
  auto found = hw::find_spec(specs, id);
  if (!found) throw std::runtime_error(found.error().message);
  return **found;
}

// The same model with its launches at the peak clock however long they run: for tests of a rule's
// arithmetic, which the sustained clock would bend (hw::Spec::sustained_clock_share).
inline hw::Spec at_peak_clock(std::string_view id) {
  hw::Spec spec = gpu(id);
  spec.sustained_clock_share = 1;
  return spec;
}

inline AttnShape square(std::int64_t batch, std::int64_t heads, std::int64_t seqlen,
                        std::int64_t headdim, bool causal = false, Dtype dtype = Dtype::bf16) {
  AttnShape s;
  s.batch = batch;
  s.heads_q = s.heads_kv = heads;
  s.seqlen_q = s.seqlen_k = seqlen;
  s.headdim = s.headdim_v = headdim;
  s.causal = causal;
  s.dtype = dtype;
  return s;
}

}  // namespace fa4::testing
