// Host helpers for TMA tensor maps over the attention tensors: the driver's cuTensorMapEncodeTiled
// (looked up once through the runtime, so no driver library is linked) and the 3-D view
// {headdim, seqlen, batch * heads} of a [batch][heads][seqlen][headdim] 16-bit tensor, in boxes
// of {64, rows, 1} with the 128-byte swizzle the wgmma descriptors expect (TMA zero-fills rows
// past a sequence's end without touching the next head, and clips stores there). Used by fa3's
// forward launch (launch.cuh, and fa4 through it) and fa3_bwd's (bwd_launch.cuh), which also
// loads its per-row float32 statistics through 2-D maps.
#pragma once

#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>

#include "core/error.hpp"
#include "core/shape.hpp"
#include "kernels/cuda_status.hpp"
#include "kernels/fa3/traits.cuh"

namespace fa4::kernels::fa3::tma {

inline Result<PFN_cuTensorMapEncodeTiled_v12000> tensor_map_encoder() {
  static PFN_cuTensorMapEncodeTiled_v12000 encode = nullptr;
  if (encode != nullptr) return encode;
  void* function = nullptr;
  cudaDriverEntryPointQueryResult found{};
  constexpr unsigned kDriverApiVersion = 12000;  // the cuTensorMapEncodeTiled signature used here
  if (Status status = cuda_status(
          cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &function, kDriverApiVersion,
                                           cudaEnableDefault, &found),
          "looking up cuTensorMapEncodeTiled");
      !status)
    return status.error();
  if (found != cudaDriverEntryPointSuccess || function == nullptr)
    return Error{"the CUDA driver has no cuTensorMapEncodeTiled; update the driver (>= 12.0)"};
  encode = reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(function);
  return encode;
}

// The map cuTensorMapEncodeTiled filled, or an error naming its result and `box_over_view`.
inline Result<CUtensorMap> encoded_map(CUresult result, const CUtensorMap& map,
                                       const std::string& box_over_view) {
  if (result != CUDA_SUCCESS)
    return Error{"cuTensorMapEncodeTiled failed with CUresult " + std::to_string(int(result)) +
                 " (" + box_over_view + ")"};
  return map;
}

// The 3-D view {columns, rows, heads} of a row-major array of `element_bytes`-byte elements, in
// boxes of {128 bytes of columns, box_rows, 1} with the 128-byte swizzle; `what` prefixes the box
// in errors.
inline Result<CUtensorMap> swizzled_rows_map(PFN_cuTensorMapEncodeTiled_v12000 encode,
                                             CUtensorMapDataType type, int element_bytes,
                                             const void* data, std::int64_t columns,
                                             std::int64_t rows, std::int64_t heads, int box_rows,
                                             CUtensorMapL2promotion promotion,
                                             std::string_view what) {
  CUtensorMap map{};
  const int box_columns = kSwizzleBytes / element_bytes;
  const cuuint64_t dims[3] = {cuuint64_t(columns), cuuint64_t(rows), cuuint64_t(heads)};
  const cuuint64_t strides[2] = {cuuint64_t(columns * element_bytes),
                                 cuuint64_t(rows * columns * element_bytes)};
  const cuuint32_t box[3] = {cuuint32_t(box_columns), cuuint32_t(box_rows), 1};
  const cuuint32_t element_strides[3] = {1, 1, 1};
  const CUresult result = encode(&map, type, 3, const_cast<void*>(data), dims, strides, box,
                                 element_strides, CU_TENSOR_MAP_INTERLEAVE_NONE,
                                 CU_TENSOR_MAP_SWIZZLE_128B, promotion,
                                 CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  return encoded_map(result, map,
                     std::string(what) + "box {" + std::to_string(box_columns) + ", " +
                         std::to_string(box_rows) + ", 1} over {" + std::to_string(columns) +
                         ", " + std::to_string(rows) + ", " + std::to_string(heads) + "}");
}

// An attention tensor (16-bit) in boxes of {64, box_rows, 1}, as the wgmma descriptors expect.
inline Result<CUtensorMap> attention_tensor_map(PFN_cuTensorMapEncodeTiled_v12000 encode,
                                                const void* data, Dtype dtype, std::int64_t headdim,
                                                std::int64_t seqlen, std::int64_t rows_of_heads,
                                                int box_rows) {
  static_assert(kSwizzleBytes / 2 == kColumnBlock, "a 16-bit box row is one column block");
  return swizzled_rows_map(
      encode,
      dtype == Dtype::bf16 ? CU_TENSOR_MAP_DATA_TYPE_BFLOAT16 : CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 2,
      data, headdim, seqlen, rows_of_heads, box_rows, CU_TENSOR_MAP_L2_PROMOTION_L2_256B, "");
}

// The 2-D view {columns, rows} of a 32-bit array of `rows` rows of `columns` values, in boxes of
// {box_columns, 1}, without swizzle; `what` names the array in errors.
inline Result<CUtensorMap> words_tensor_map(CUtensorMapDataType type, const void* data,
                                            std::int64_t columns, std::int64_t rows,
                                            int box_columns, std::string_view what) {
  auto encode = tensor_map_encoder();
  if (!encode) return encode.error();
  CUtensorMap map{};
  const cuuint64_t dims[2] = {cuuint64_t(columns), cuuint64_t(rows)};
  const cuuint64_t strides[1] = {cuuint64_t(columns * 4)};
  const cuuint32_t box[2] = {cuuint32_t(box_columns), 1};
  const cuuint32_t element_strides[2] = {1, 1};
  const CUresult result =
      (*encode)(&map, type, 2, const_cast<void*>(data), dims, strides, box, element_strides,
                CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE,
                CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  return encoded_map(result, map,
                     std::string(what) + " box {" + std::to_string(box_columns) + ", 1} over {" +
                         std::to_string(columns) + ", " + std::to_string(rows) + "}");
}

// The view {rows, heads} of a float32 array with one value per query row of every head (fa3_bwd's
// LSE * log2 e and D, `rows` a multiple of 4 per head), in boxes of {box_rows, 1}.
inline Result<CUtensorMap> row_values_tensor_map(const float* data, std::int64_t rows,
                                                 std::int64_t heads, int box_rows) {
  return words_tensor_map(CU_TENSOR_MAP_DATA_TYPE_FLOAT32, data, rows, heads, box_rows, "float32");
}

// The view of `entries` 16-byte entries of 4 int32 (bwd_common.hpp's tile-index table), in boxes
// of one entry.
inline Result<CUtensorMap> tile_ids_tensor_map(const std::int32_t* data, std::int64_t entries) {
  return words_tensor_map(CU_TENSOR_MAP_DATA_TYPE_INT32, data, 4, entries, 4, "tile-index");
}

// fa3_bwd's dQ accumulator, float32 {columns, rows, heads} (rows a multiple of block_rows), as
// the 4-D view {columns, 2, rows - block_rows / 2, heads} whose second dimension steps half a
// block of rows: a box {32, 2, block_rows / 2, 1} at {c, 0, m, h} holds rows m ... m + block_rows
// - 1 with row m + y + b * block_rows / 2 at box row 2y + b (rows of a block interleaved by
// halves), 128 bytes a row with the 128-byte swizzle. Rows 0-3 of each half then take four
// distinct swizzle phases (2y % 8), which keeps a half warp's 8-byte staging stores, rows g = 0-3
// or 4-7 of the mma layout, on distinct banks.
inline Result<CUtensorMap> float_row_halves_tensor_map(const float* data, std::int64_t columns,
                                                       std::int64_t rows, std::int64_t heads,
                                                       int block_rows) {
  auto encode = tensor_map_encoder();
  if (!encode) return encode.error();
  constexpr int kElementBytes = 4;
  const int box_columns = kSwizzleBytes / kElementBytes, half = block_rows / 2;
  const std::int64_t row_bytes = columns * kElementBytes;
  CUtensorMap map{};
  const cuuint64_t dims[4] = {cuuint64_t(columns), 2, cuuint64_t(rows - half), cuuint64_t(heads)};
  const cuuint64_t strides[3] = {cuuint64_t(half * row_bytes), cuuint64_t(row_bytes),
                                 cuuint64_t(rows * row_bytes)};
  const cuuint32_t box[4] = {cuuint32_t(box_columns), 2, cuuint32_t(half), 1};
  const cuuint32_t element_strides[4] = {1, 1, 1, 1};
  const CUresult result = (*encode)(
      &map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 4, const_cast<float*>(data), dims, strides, box,
      element_strides, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
      CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  return encoded_map(result, map,
                     "float32 box {" + std::to_string(box_columns) + ", 2, " +
                         std::to_string(half) + ", 1} over {" + std::to_string(columns) + ", 2, " +
                         std::to_string(rows - half) + ", " + std::to_string(heads) + "}");
}

// One tensor map of a launch: where it goes, the tensor, its rows (seqlen) and heads (batch *
// heads), the box rows of one copy.
struct MapRequest {
  CUtensorMap* map;
  const void* data;
  std::int64_t seqlen, heads;
  int box_rows;
};

// Encodes every request's map over `headdim` columns of `dtype`; errors name `kernel`.
inline Status encode_tensor_maps(std::string_view kernel, Dtype dtype, std::int64_t headdim,
                                 std::initializer_list<MapRequest> requests) {
  auto encode = tensor_map_encoder();
  if (!encode) return Error{std::string(kernel) + ": " + encode.error().message};
  for (const MapRequest& r : requests) {
    auto map = attention_tensor_map(*encode, r.data, dtype, headdim, r.seqlen, r.heads, r.box_rows);
    if (!map) return Error{std::string(kernel) + ": " + map.error().message};
    *r.map = *map;
  }
  return Ok{};
}

}  // namespace fa4::kernels::fa3::tma
