#include "bench/attention_bwd_check.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cmath>
#include <span>
#include <sstream>
#include <tuple>
#include <utility>

#include "kernels/cuda_status.hpp"
#include "reference/half_float.hpp"

namespace fa4::bench {
namespace {

constexpr unsigned char kPoisonByte = 0xff;

std::size_t q_elements(const AttnShape& s) {
  return std::size_t(s.batch * s.heads_q * s.seqlen_q * s.headdim);
}
std::size_t o_elements(const AttnShape& s) {
  return std::size_t(s.batch * s.heads_q * s.seqlen_q * s.headdim_v);
}
std::size_t k_elements(const AttnShape& s) {
  return std::size_t(s.batch * s.heads_kv * s.seqlen_k * s.headdim);
}
std::size_t v_elements(const AttnShape& s) {
  return std::size_t(s.batch * s.heads_kv * s.seqlen_k * s.headdim_v);
}
std::size_t lse_elements(const AttnShape& s) {
  return std::size_t(s.batch * s.heads_q * s.seqlen_q);
}

Result<DeviceBuffer> allocate_16_bit(std::size_t elements) {
  return DeviceBuffer::allocate(elements * sizeof(std::uint16_t));
}

Result<std::vector<float>> download_16_bit(const DeviceBuffer& buffer, Dtype dtype,
                                           const std::string& what) {
  std::vector<std::uint16_t> bits(buffer.size() / sizeof(std::uint16_t));
  if (Status s = kernels::cuda_status(
          cudaMemcpy(bits.data(), buffer.get(), buffer.size(), cudaMemcpyDeviceToHost),
          "downloading " + what);
      !s)
    return s.error();
  return reference::from_bits(bits, dtype);
}

std::int64_t count_nan(const std::vector<float>& values) {
  return std::count_if(values.begin(), values.end(), [](float x) { return std::isnan(x); });
}

}  // namespace

Result<DeviceBwdProblem> DeviceBwdProblem::upload(const reference::BwdInputs& in,
                                                  std::size_t workspace_bytes) {
  const AttnShape& s = in.attn.shape;
  DeviceBwdProblem p;
  for (auto [target, values] : {std::pair{&p.q, &in.attn.q}, std::pair{&p.k, &in.attn.k},
                                std::pair{&p.v, &in.attn.v}, std::pair{&p.dout, &in.dout}}) {
    Result<DeviceBuffer> buffer = upload_16_bit(*values, s.dtype);
    if (!buffer) return buffer.error();
    *target = std::move(*buffer);
  }
  Result<DeviceBuffer> o =
      in.o.empty() ? allocate_16_bit(o_elements(s)) : upload_16_bit(in.o, s.dtype);
  if (!o) return o.error();
  p.o = std::move(*o);
  Result<DeviceBuffer> lse = DeviceBuffer::allocate(lse_elements(s) * sizeof(float));
  if (!lse) return lse.error();
  p.lse = std::move(*lse);
  if (!in.lse.empty())
    if (Status st = kernels::cuda_status(
            cudaMemcpy(p.lse.get(), in.lse.data(), p.lse.size(), cudaMemcpyHostToDevice),
            "uploading LSE");
        !st)
      return st.error();
  for (auto [target, elements] : {std::pair{&p.dq, q_elements(s)}, std::pair{&p.dk, k_elements(s)},
                                  std::pair{&p.dv, v_elements(s)}}) {
    Result<DeviceBuffer> buffer = allocate_16_bit(elements);
    if (!buffer) return buffer.error();
    *target = std::move(*buffer);
  }
  Result<DeviceBuffer> workspace = DeviceBuffer::allocate(workspace_bytes);
  if (!workspace) return workspace.error();
  p.workspace = std::move(*workspace);
  return p;
}

kernels::AttnBuffers DeviceBwdProblem::buffers() const {
  return kernels::AttnBuffers{.q = q.get(),
                              .k = k.get(),
                              .v = v.get(),
                              .o = o.get(),
                              .lse = static_cast<float*>(lse.get()),
                              .workspace = workspace.get(),
                              .dout = dout.get(),
                              .dq = dq.get(),
                              .dk = dk.get(),
                              .dv = dv.get()};
}

Status DeviceBwdProblem::poison_gradients() const {
  for (const DeviceBuffer* gradient : {&dq, &dk, &dv})
    if (Status s = kernels::cuda_status(cudaMemset(gradient->get(), kPoisonByte, gradient->size()),
                                        "poisoning a gradient");
        !s)
      return s;
  return Ok{};
}

Status download_forward(const DeviceBwdProblem& problem, reference::BwdInputs& in) {
  if (Status s = kernels::cuda_status(cudaDeviceSynchronize(), "running the forward kernel"); !s)
    return s;
  Result<std::vector<float>> o = download_16_bit(problem.o, in.attn.shape.dtype, "O");
  if (!o) return o.error();
  in.o = std::move(*o);
  in.lse.resize(problem.lse.size() / sizeof(float));
  return kernels::cuda_status(
      cudaMemcpy(in.lse.data(), problem.lse.get(), problem.lse.size(), cudaMemcpyDeviceToHost),
      "downloading LSE");
}

Result<HostGradients> fetch_gradients(const DeviceBwdProblem& problem, const AttnShape& shape) {
  if (Status s = kernels::cuda_status(cudaDeviceSynchronize(), "running the backward kernel"); !s)
    return s.error();
  HostGradients out;
  for (auto [target, buffer, name] :
       {std::tuple{&out.dq, &problem.dq, "dQ"}, std::tuple{&out.dk, &problem.dk, "dK"},
        std::tuple{&out.dv, &problem.dv, "dV"}}) {
    Result<std::vector<float>> values = download_16_bit(*buffer, shape.dtype, name);
    if (!values) return values.error();
    *target = std::move(*values);
  }
  return out;
}

std::vector<reference::KeyRowId> sample_key_rows(const AttnShape& s, std::size_t max_rows,
                                                 std::uint64_t seed) {
  // Keys below seqlen_k - seqlen_q are seen by every query row; the next ones by fewer and fewer.
  const std::int64_t first_partly_seen =
      s.causal ? std::max<std::int64_t>(0, s.seqlen_k - s.seqlen_q) : 0;
  std::vector<reference::KeyRowId> keys;
  for (const reference::RowId& id :
       sample_tensor_rows(s.batch, s.heads_kv, s.seqlen_k, first_partly_seen, max_rows, seed))
    keys.push_back({id.batch, id.head, id.row});
  return keys;
}

bool BwdCheckResult::passed() const {
  return nan_gradients == 0 && dq.passed(dtype) && dk.passed(dtype) && dv.passed(dtype);
}

std::string BwdCheckResult::summary() const {
  std::ostringstream text;
  text << (passed() ? "ok" : "FAILED") << ": " << dq.summary("dQ", dtype) << "; "
       << dk.summary("dK", dtype) << "; " << dv.summary("dV", dtype) << "; NaN gradients "
       << nan_gradients;
  return text.str();
}

BwdCheckResult check_bwd_against_oracle(const reference::BwdInputs& in, const HostGradients& out,
                                        const std::vector<reference::RowId>& rows,
                                        const std::vector<reference::KeyRowId>& key_rows) {
  const AttnShape& s = in.attn.shape;
  BwdCheckResult result;
  result.dtype = s.dtype;
  result.nan_gradients = count_nan(out.dq) + count_nan(out.dk) + count_nan(out.dv);
  for (const reference::RowId& id : rows) {
    const std::int64_t row = (id.batch * s.heads_q + id.head) * s.seqlen_q + id.row;
    result.dq.add(std::span(out.dq).subspan(std::size_t(row * s.headdim), std::size_t(s.headdim)),
                  reference::low_precision_dq_row(in, id), reference::oracle_dq_row(in, id));
  }
  for (const reference::KeyRowId& id : key_rows) {
    const std::int64_t key = (id.batch * s.heads_kv + id.head_kv) * s.seqlen_k + id.key;
    const reference::KeyGrads oracle = reference::oracle_dkv_row(in, id);
    const reference::KeyGrads plain = reference::low_precision_dkv_row(in, id);
    result.dk.add(std::span(out.dk).subspan(std::size_t(key * s.headdim), std::size_t(s.headdim)),
                  plain.dk, oracle.dk);
    result.dv.add(
        std::span(out.dv).subspan(std::size_t(key * s.headdim_v), std::size_t(s.headdim_v)),
        plain.dv, oracle.dv);
  }
  return result;
}

}  // namespace fa4::bench
