// fa3_decode with the split count given instead of chosen (core/decode_tiles.hpp chooses it for
// the registry entry): for the GPU tests, which cover 1 to 128 parts, and for experiments. Plain
// C++; the kernel is lib/kernels/decode/decode.cu.
#pragma once

#include <cstddef>

#include "core/error.hpp"
#include "core/shape.hpp"
#include "kernels/registry.hpp"

namespace fa4::kernels::decode {

// The workspace fa3_decode needs for `shape` in `splits` parts (none for one part): the float32
// partial O and LSE of every part.
std::size_t workspace_bytes_for_splits(const AttnShape& shape, int splits);

// fa3_decode over `splits` parts (1 to decode_tiles::kMaxSplits); buffers.workspace holds at least
// workspace_bytes_for_splits(shape, splits) bytes.
Status launch_with_splits(const AttnShape& shape, const AttnBuffers& buffers, Stream stream,
                          int splits);

}  // namespace fa4::kernels::decode
