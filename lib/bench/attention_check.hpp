// Host helpers for running registered kernels on reference inputs and checking them against the
// CPU oracle: device buffers, upload with poisoned outputs, row sampling, tolerances. Shared by the
// GPU tests, kernel_timing and `fa4-analyze bench`.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "bench/device_buffer.hpp"
#include "core/error.hpp"
#include "kernels/registry.hpp"
#include "reference/attention.hpp"

namespace fa4::bench {

// `values` (already rounded to `dtype`) as 16-bit patterns in a new device buffer.
Result<DeviceBuffer> upload_16_bit(const std::vector<float>& values, Dtype dtype);

// One problem on the device: Q, K, V as 16-bit patterns; O, LSE and the kernel's workspace; for
// a paged cache the block table.
struct DeviceProblem {
  DeviceBuffer q, k, v, o, lse, workspace, block_table;

  // Allocates for `in.shape` (plus workspace_bytes), uploads Q, K, V. A paged shape's K and V go
  // into a pool of pages in shuffled order (kv_pages::shuffled_block_table with `seed`), slots no
  // key fills holding NaN.
  static Result<DeviceProblem> upload(const reference::AttnInputs& in, std::size_t workspace_bytes,
                                      std::uint64_t seed = 0);
  kernels::AttnBuffers buffers() const;
  // Fills O and LSE with 0xFF bytes: NaN in bf16, fp16 and float32, so unwritten outputs fail.
  Status poison_outputs() const;
};

struct HostOutputs {
  std::vector<float> o;    // O converted to float
  std::vector<float> lse;  // natural log
};
Result<HostOutputs> fetch_outputs(const DeviceProblem& problem, const AttnShape& shape);

// Rows of a [batch][heads][rows] tensor to check (Q's rows; the backward's keys of K and V): all
// of them when there are at most `max_rows`, else, for the heads of batch 0 while they fill at
// most half of `max_rows`, the first and last rows and (when `boundary` > 0) the rows on either
// side of `boundary`; then random rows up to `max_rows`.
std::vector<reference::RowId> sample_tensor_rows(std::int64_t batch, std::int64_t heads,
                                                 std::int64_t rows, std::int64_t boundary,
                                                 std::size_t max_rows, std::uint64_t seed);

// Query rows to check: sample_tensor_rows with the boundary at the first row that sees a key
// (causal, seqlen_q > seqlen_k).
std::vector<reference::RowId> sample_rows(const AttnShape& shape, std::size_t max_rows,
                                          std::uint64_t seed);

// The kernel's worst O and LSE errors against the float64 oracle on the sampled rows, next to a
// plain computation in the input dtype (reference::low_precision_row) on the same rows. Passing
// needs: no NaN anywhere in O or LSE (every element written), and each error at most twice the
// plain computation's plus a floor (FlashAttention-3's rule; the floor covers rows where the plain
// computation is exact, e.g. a single visible key, while the GPU still rounds in float32).
struct CheckResult {
  reference::ErrorSummary kernel;
  reference::ErrorSummary plain;
  std::int64_t nan_outputs = 0;
  std::size_t rows_checked = 0;
  double o_tolerance() const;
  double lse_tolerance() const;
  bool passed() const;
  std::string summary() const;
};
CheckResult check_against_oracle(const reference::AttnInputs& in, const HostOutputs& out,
                                 const std::vector<reference::RowId>& rows);

}  // namespace fa4::bench
