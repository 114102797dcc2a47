#include "bench/attention_check.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <sstream>
#include <utility>

#include "core/kv_pages.hpp"
#include "kernels/cuda_status.hpp"
#include "reference/half_float.hpp"

namespace fa4::bench {
namespace {

constexpr double kErrorFactor = 2.0;
constexpr double kOutputFloor = 1e-4;
constexpr double kLseFloor = 1e-4;
constexpr unsigned char kPoisonByte = 0xff;

std::int64_t o_elements(const AttnShape& s) {
  return s.batch * s.heads_q * s.seqlen_q * s.headdim_v;
}
std::int64_t lse_elements(const AttnShape& s) { return s.batch * s.heads_q * s.seqlen_q; }

}  // namespace

namespace {

// `values` in a new device buffer; `what` names it in an error.
template <class T>
Result<DeviceBuffer> upload_values(const std::vector<T>& values, const char* what) {
  Result<DeviceBuffer> buffer = DeviceBuffer::allocate(values.size() * sizeof(T));
  if (!buffer) return buffer;
  if (Status s = kernels::cuda_status(
          cudaMemcpy(buffer->get(), values.data(), buffer->size(), cudaMemcpyHostToDevice), what);
      !s)
    return s.error();
  return buffer;
}

}  // namespace

Result<DeviceBuffer> upload_16_bit(const std::vector<float>& values, Dtype dtype) {
  return upload_values(reference::to_bits(values, dtype), "uploading an input");
}

namespace {

// K or V as the kernel reads it: contiguous, or in the page pool through `table`.
Result<DeviceBuffer> upload_keys(const std::vector<float>& values, const AttnShape& s,
                                 std::int64_t width, const std::vector<std::int32_t>& table) {
  if (s.page_size == 0) return upload_16_bit(values, s.dtype);
  const float unwritten = std::numeric_limits<float>::quiet_NaN();
  return upload_16_bit(kv_pages::to_pages(values, s, width, table, unwritten), s.dtype);
}

}  // namespace

Result<DeviceProblem> DeviceProblem::upload(const reference::AttnInputs& in,
                                            std::size_t workspace_bytes, std::uint64_t seed) {
  DeviceProblem problem;
  const AttnShape& s = in.shape;
  auto q = upload_16_bit(in.q, s.dtype);
  if (!q) return q.error();
  std::vector<std::int32_t> table;
  if (s.page_size) {
    table = kv_pages::shuffled_block_table(s, seed);
    auto block_table = upload_values(table, "uploading a block table");
    if (!block_table) return block_table.error();
    problem.block_table = std::move(*block_table);
  }
  auto k = upload_keys(in.k, s, s.headdim, table);
  if (!k) return k.error();
  auto v = upload_keys(in.v, s, s.headdim_v, table);
  if (!v) return v.error();
  auto o = DeviceBuffer::allocate(std::size_t(o_elements(s)) * sizeof(std::uint16_t));
  if (!o) return o.error();
  auto lse = DeviceBuffer::allocate(std::size_t(lse_elements(s)) * sizeof(float));
  if (!lse) return lse.error();
  auto workspace = DeviceBuffer::allocate(workspace_bytes);
  if (!workspace) return workspace.error();
  problem.q = std::move(*q);
  problem.k = std::move(*k);
  problem.v = std::move(*v);
  problem.o = std::move(*o);
  problem.lse = std::move(*lse);
  problem.workspace = std::move(*workspace);
  return problem;
}

kernels::AttnBuffers DeviceProblem::buffers() const {
  return kernels::AttnBuffers{.q = q.get(),
                              .k = k.get(),
                              .v = v.get(),
                              .o = o.get(),
                              .lse = static_cast<float*>(lse.get()),
                              .workspace = workspace.get(),
                              .block_table = static_cast<const std::int32_t*>(block_table.get())};
}

Status DeviceProblem::poison_outputs() const {
  if (Status s = kernels::cuda_status(cudaMemset(o.get(), kPoisonByte, o.size()), "poisoning O");
      !s)
    return s;
  return kernels::cuda_status(cudaMemset(lse.get(), kPoisonByte, lse.size()), "poisoning LSE");
}

Result<HostOutputs> fetch_outputs(const DeviceProblem& problem, const AttnShape& shape) {
  if (Status s = kernels::cuda_status(cudaDeviceSynchronize(), "running the kernel"); !s)
    return s.error();
  std::vector<std::uint16_t> o_bits(std::size_t(o_elements(shape)));
  HostOutputs out;
  out.lse.resize(std::size_t(lse_elements(shape)));
  if (Status s = kernels::cuda_status(
          cudaMemcpy(o_bits.data(), problem.o.get(), o_bits.size() * sizeof(std::uint16_t),
                     cudaMemcpyDeviceToHost),
          "downloading O");
      !s)
    return s.error();
  if (Status s =
          kernels::cuda_status(cudaMemcpy(out.lse.data(), problem.lse.get(),
                                          out.lse.size() * sizeof(float), cudaMemcpyDeviceToHost),
                               "downloading LSE");
      !s)
    return s.error();
  out.o = reference::from_bits(o_bits, shape.dtype);
  return out;
}

std::vector<reference::RowId> sample_tensor_rows(std::int64_t batch, std::int64_t heads,
                                                 std::int64_t rows, std::int64_t boundary,
                                                 std::size_t max_rows, std::uint64_t seed) {
  std::vector<reference::RowId> ids;
  if (std::size_t(batch * heads * rows) <= max_rows) {
    for (std::int64_t b = 0; b < batch; ++b)
      for (std::int64_t h = 0; h < heads; ++h)
        for (std::int64_t i = 0; i < rows; ++i) ids.push_back({b, h, i});
    return ids;
  }
  // Structured rows take at most half of the budget, the rest are random.
  for (std::int64_t h = 0; h < heads && ids.size() < max_rows / 2; ++h) {
    ids.push_back({0, h, 0});
    ids.push_back({0, h, rows - 1});
    if (boundary > 0) {
      ids.push_back({0, h, boundary - 1});
      ids.push_back({0, h, boundary});
    }
  }
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<std::int64_t> random_batch(0, batch - 1), random_head(0, heads - 1),
      random_row(0, rows - 1);
  while (ids.size() < max_rows)
    ids.push_back({random_batch(rng), random_head(rng), random_row(rng)});
  return ids;
}

std::vector<reference::RowId> sample_rows(const AttnShape& s, std::size_t max_rows,
                                          std::uint64_t seed) {
  const std::int64_t first_unmasked =
      s.causal ? std::max<std::int64_t>(0, s.seqlen_q - s.seqlen_k) : 0;
  return sample_tensor_rows(s.batch, s.heads_q, s.seqlen_q, first_unmasked, max_rows, seed);
}

double CheckResult::o_tolerance() const { return kErrorFactor * plain.o + kOutputFloor; }
double CheckResult::lse_tolerance() const { return kErrorFactor * plain.lse + kLseFloor; }

bool CheckResult::passed() const {
  return nan_outputs == 0 && kernel.o <= o_tolerance() && kernel.lse <= lse_tolerance();
}

std::string CheckResult::summary() const {
  std::ostringstream text;
  text << (passed() ? "ok" : "FAILED") << ": " << rows_checked << " rows, O error " << kernel.o
       << " (tolerance " << o_tolerance() << ", plain " << plain.o << "), LSE error " << kernel.lse
       << " (tolerance " << lse_tolerance() << ", plain " << plain.lse << "), NaN outputs "
       << nan_outputs;
  return text.str();
}

CheckResult check_against_oracle(const reference::AttnInputs& in, const HostOutputs& out,
                                 const std::vector<reference::RowId>& rows) {
  const AttnShape& s = in.shape;
  CheckResult result;
  result.nan_outputs =
      std::count_if(out.o.begin(), out.o.end(), [](float x) { return std::isnan(x); }) +
      std::count_if(out.lse.begin(), out.lse.end(), [](float x) { return std::isnan(x); });
  for (const reference::RowId& id : rows) {
    const std::int64_t row_index = (id.batch * s.heads_q + id.head) * s.seqlen_q + id.row;
    reference::RowResult kernel_row;
    kernel_row.o.assign(out.o.begin() + row_index * s.headdim_v,
                        out.o.begin() + (row_index + 1) * s.headdim_v);
    kernel_row.lse = out.lse[std::size_t(row_index)];
    const reference::RowResult oracle = reference::oracle_row(in, id);
    result.kernel.add(kernel_row, oracle);
    result.plain.add(reference::low_precision_row(in, id), oracle);
  }
  result.rows_checked = rows.size();
  return result;
}

}  // namespace fa4::bench
