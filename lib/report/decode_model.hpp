// Decode as the report counts it: which measurements are decode, the bytes each kernel moves
// through HBM, and our decode kernels as the model prices them. The roofline (report_roofline.cpp)
// places decode points by these bytes and the serving section (report_serving.cpp) draws their
// bandwidth, so the two read the same numbers.
#pragma once

#include <optional>
#include <string_view>

#include "core/shape.hpp"
#include "hw/spec.hpp"
#include "model/model.hpp"

namespace fa4::report {

// Decode: at most 16 query rows per sequence, fewer than its keys (roofline.hpp's regime()).
bool is_decode(const AttnShape& shape);

// Our decode kernels (lib/kernels/decode) as the model prices them: fa3's algorithm with the
// profile rows named after the kernel ("our fa3_decode", "our fa3_decode_nosplit": GQA-packed
// rows, the balanced partition or whole row blocks, timed after the harness's L2 flush); nullopt
// for any other kernel name.
std::optional<model::Options> our_decode_options(std::string_view kernel, const AttnShape& shape);

// The model's prediction of our decode kernel `kernel` on `gpu` at `shape`; nullopt for another
// kernel, or where the model refuses it (fa3 needs Hopper).
std::optional<model::Prediction> predict_our_decode(const hw::Spec& gpu, std::string_view kernel,
                                                    const AttnShape& shape);

// The bytes that the kernel moves through HBM on this problem: for our decode kernels, as the
// model counts them on `gpu` (K, V, Q, O and LSE once, a paged cache's block table, the float32
// partials written and read back); for every other kernel, or without `gpu`, the fewest a fused
// kernel must move (core/shape.hpp's attention_min_hbm_bytes: a peer's partials are unknown).
double moved_hbm_bytes(std::string_view kernel, const AttnShape& shape, Pass pass,
                       const hw::Spec* gpu);

}  // namespace fa4::report
