// Host helpers for running registered backward kernels and checking their gradients against the
// CPU backward oracle (reference/attention_backward.hpp): device buffers with poisoned gradients,
// key-row sampling, FlashAttention-3-style tolerances. The backward's counterpart of
// attention_check.hpp; shared by the GPU tests and kernel_timing.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "bench/attention_check.hpp"
#include "core/error.hpp"
#include "kernels/registry.hpp"
#include "reference/attention_backward.hpp"

namespace fa4::bench {

// One backward problem on the device: the inputs Q, K, V, O, dO (16-bit) and LSE (float32), the
// gradients dQ, dK, dV and the kernel's workspace.
struct DeviceBwdProblem {
  DeviceBuffer q, k, v, o, lse, dout, dq, dk, dv, workspace;

  // Allocates for `in.attn.shape` (plus workspace_bytes) and uploads the inputs; O and LSE only
  // when `in` holds them (else a forward kernel fills them: download_forward reads them back).
  static Result<DeviceBwdProblem> upload(const reference::BwdInputs& in,
                                         std::size_t workspace_bytes);
  kernels::AttnBuffers buffers() const;
  // Fills dQ, dK and dV with 0xFF bytes (NaN in bf16 and fp16), so unwritten entries fail.
  Status poison_gradients() const;
};

// O and LSE from the device into `in` (after a forward kernel ran on the problem's buffers).
Status download_forward(const DeviceBwdProblem& problem, reference::BwdInputs& in);

struct HostGradients {
  std::vector<float> dq, dk, dv;  // converted to float
};
// Synchronizes, then downloads dQ, dK and dV.
Result<HostGradients> fetch_gradients(const DeviceBwdProblem& problem, const AttnShape& shape);

// Key rows to check: sample_tensor_rows over the keys of K and V with the boundary at the first
// key that some query row does not see (causal, seqlen_k > seqlen_q).
std::vector<reference::KeyRowId> sample_key_rows(const AttnShape& shape, std::size_t max_rows,
                                                 std::uint64_t seed);

// dQ on sampled query rows, dK and dV on sampled key rows, each against the oracle next to the
// plain low-precision computation (reference::GradCheck). Passing needs no NaN anywhere in dQ,
// dK or dV (every entry written) and each gradient within its tolerance.
struct BwdCheckResult {
  reference::GradCheck dq, dk, dv;
  std::int64_t nan_gradients = 0;
  Dtype dtype = Dtype::bf16;
  bool passed() const;
  std::string summary() const;
};
BwdCheckResult check_bwd_against_oracle(const reference::BwdInputs& in, const HostGradients& out,
                                        const std::vector<reference::RowId>& rows,
                                        const std::vector<reference::KeyRowId>& key_rows);

}  // namespace fa4::bench
