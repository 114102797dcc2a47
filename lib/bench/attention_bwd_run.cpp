#include "bench/attention_bwd_run.hpp"

#include <algorithm>
#include <random>

#include "bench/attention_bwd_check.hpp"
#include "reference/half_float.hpp"

namespace fa4::bench {
namespace {

constexpr std::uint64_t kDoutSeedOffset = 0x5851f42d4c957f2dull;

// Q, K, V as random_inputs gives them and dO Normal(0, 1) rounded to the dtype; O and LSE left
// for the forward kernel (the CPU forward of random_bwd_inputs is too slow at these sizes).
reference::BwdInputs inputs_without_forward(const AttnShape& shape, std::uint64_t seed) {
  reference::BwdInputs in;
  in.attn = reference::random_inputs(shape, seed);
  std::mt19937_64 rng(seed + kDoutSeedOffset);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  in.dout.resize(std::size_t(shape.batch * shape.heads_q * shape.seqlen_q * shape.headdim_v));
  for (float& x : in.dout) x = reference::round_to(normal(rng), shape.dtype);
  return in;
}

}  // namespace

Result<AttentionRun> run_attention_backward(const kernels::Kernel& kernel,
                                            const kernels::Kernel& forward, const AttnShape& shape,
                                            const kernels::DeviceCaps& device, const Timer& timer,
                                            std::uint64_t seed) {
  if (auto reason = kernels::why_unsupported(kernel, shape, device))
    return not_timed(Outcome::skipped, *reason);
  if (auto reason = kernels::why_unsupported(forward, shape, device))
    return not_timed(Outcome::skipped, "the forward kernel cannot make O and LSE: " + *reason);
  reference::BwdInputs in = inputs_without_forward(shape, seed);
  Result<DeviceBwdProblem> problem = DeviceBwdProblem::upload(
      in, std::max(kernel.workspace_bytes(shape, device), forward.workspace_bytes(shape, device)));
  if (!problem) return problem.error();
  const kernels::AttnBuffers buffers = problem->buffers();
  if (Status s = forward.launch(shape, buffers, nullptr); !s) return s.error();
  if (Status s = download_forward(*problem, in); !s) return s.error();

  if (Status s = problem->poison_gradients(); !s) return s.error();
  if (Status s = kernel.launch(shape, buffers, nullptr); !s)
    return not_timed(Outcome::failed, s.error().message);
  Result<HostGradients> out = fetch_gradients(*problem, shape);
  if (!out) return not_timed(Outcome::failed, out.error().message);
  const BwdCheckResult check = check_bwd_against_oracle(
      in, *out, sample_rows(shape, kCheckedRows, seed), sample_key_rows(shape, kCheckedRows, seed));
  if (!check.passed()) return not_timed(Outcome::failed, check.summary());
  return time_checked(timer, shape, Pass::bwd, check.summary(),
                      [&] { return kernel.launch(shape, buffers, nullptr); });
}

}  // namespace fa4::bench
