// fa3_decode with its partition given (core/decode_tiles.hpp): the split partition with a split
// count, or the balanced one with a CTA count instead of one per SM. For the GPU tests, which
// cover 1 to 128 splits and 1 to 256 parts, and for experiments. Plain C++; the kernel is
// lib/kernels/decode/decode.cu.
#pragma once

#include <cstddef>

#include "core/error.hpp"
#include "core/shape.hpp"
#include "kernels/registry.hpp"

namespace fa4::kernels::decode {

// The workspace fa3_decode needs for `shape` in `splits` parts per row block (none for one part):
// the float32 partial O and LSE of every part.
std::size_t workspace_bytes_for_splits(const AttnShape& shape, int splits);

// fa3_decode over `splits` parts per row block (1 to decode_tiles::kMaxSplits); buffers.workspace
// holds at least workspace_bytes_for_splits(shape, splits) bytes.
Status launch_with_splits(const AttnShape& shape, const AttnBuffers& buffers, Stream stream,
                          int splits);

// The workspace of the balanced partition over `parts` CTAs.
std::size_t workspace_bytes_for_parts(const AttnShape& shape, int parts);

// fa3_decode balanced over `parts` CTAs (1 to decode_tiles::kMaxParts); buffers.workspace holds
// at least workspace_bytes_for_parts(shape, parts) bytes.
Status launch_with_parts(const AttnShape& shape, const AttnBuffers& buffers, Stream stream,
                         int parts);

}  // namespace fa4::kernels::decode
