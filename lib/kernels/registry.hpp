// The kernel registry: the single list of attention kernels, forward and backward, that the CLI,
// the harness, the tests and the report iterate. Plain C++ (no CUDA headers): a Kernel is a name, a
// summary, the oldest GPU it runs on, a check that says why a shape cannot run, the scratch memory
// it needs, a launch function taking device pointers and an opaque stream, and its pass.
//
// Adding a kernel: write lib/kernels/<name>.cu defining `const Kernel <name>_kernel`, then add one
// declaration and one table entry in registry.cpp.
//
// Tensor layout (shared with reference/attention.hpp): Q [batch][heads_q][seqlen_q][headdim],
// K [batch][heads_kv][seqlen_k][headdim], V [batch][heads_kv][seqlen_k][headdim_v],
// O [batch][heads_q][seqlen_q][headdim_v] in shape.dtype, contiguous; LSE [batch][heads_q]
// [seqlen_q] float32, natural log. Softmax scale 1/sqrt(headdim); causal is bottom-right aligned;
// fully masked rows get O = 0 and LSE = -inf.
// Backward kernels (pass bwd) read Q, K, V, O, LSE and dO (laid out as O) and write dQ (as Q), dK
// (as K) and dV (as V) in shape.dtype; with GQA/MQA dK and dV are summed over each query-head
// group. Fully masked rows contribute nothing.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.hpp"
#include "core/shape.hpp"

struct CUstream_st;  // cudaStream_t is `CUstream_st*`; declared here so no CUDA header is needed

namespace fa4::kernels {

using Stream = CUstream_st*;  // nullptr is the default stream

struct DeviceCaps {
  std::string name;
  int sm = 0;  // compute capability as major * 10 + minor: 90 for H100/H200
  int multiprocessors = 0;
  std::size_t global_memory_bytes = 0;
  std::size_t l2_bytes = 0;
};

// Reads the properties of CUDA device `device`; an Error when there is no usable device, which
// says what CUDA reports ("CUDA reports: no CUDA-capable device is detected; ...") and leaves
// the words "no CUDA device" to the caller, so a message says them once.
Result<DeviceCaps> query_device(int device = 0);

struct AttnBuffers {
  const void* q = nullptr;
  const void* k = nullptr;
  const void* v = nullptr;
  void* o = nullptr;
  float* lse = nullptr;
  // At least workspace_bytes(shape, device) bytes for the device the launch runs on (the current
  // one), 256-byte aligned.
  void* workspace = nullptr;
  // Serving (decode kernels): with shape.page_size, k and v are the page pool and block_table its
  // [batch][pages_per_sequence] int32 table (core/kv_pages.hpp). A ragged batch's key counts are
  // the shape's (the host plans the work from them, as a serving engine's scheduler does).
  const std::int32_t* block_table = nullptr;
  // The backward pass's tensors (unused by forward kernels).
  const void* dout = nullptr;
  void* dq = nullptr;
  void* dk = nullptr;
  void* dv = nullptr;
};

struct Kernel {
  std::string_view name;
  std::string_view summary;
  int min_sm;  // oldest compute capability the algorithm needs (major * 10 + minor)
  // Why `shape` cannot run on `device` (beyond min_sm), or nullopt when it can.
  std::optional<std::string> (*unsupported_reason)(const AttnShape& shape,
                                                   const DeviceCaps& device);
  // Device memory the kernel needs beside the tensors (AttnBuffers::workspace) to run `shape` on
  // `device`.
  std::size_t (*workspace_bytes)(const AttnShape& shape, const DeviceCaps& device);
  // Enqueues the kernel's pass on `stream`; launch and library errors come back as values.
  // Asynchronous: errors inside the kernel surface at the next synchronization.
  Status (*launch)(const AttnShape& shape, const AttnBuffers& buffers, Stream stream);
  Pass pass = Pass::fwd;  // forward (O, LSE from Q, K, V) or backward (dQ, dK, dV)
  // Reads AttnShape's serving fields (a paged cache, ragged key counts, a forced split count);
  // why_unsupported refuses shapes with them for every other kernel.
  bool serving = false;
};

std::span<const Kernel* const> all_kernels();
std::vector<const Kernel*> kernels_for(Pass pass);  // the registered kernels of one pass
const Kernel* find_kernel(std::string_view name);   // nullptr when no kernel has that name

// min_sm and the kernel's own check together: nullopt when `kernel` can run `shape` on `device`.
std::optional<std::string> why_unsupported(const Kernel& kernel, const AttnShape& shape,
                                           const DeviceCaps& device);

}  // namespace fa4::kernels
