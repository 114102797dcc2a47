#include "bench/attention_bwd_run.hpp"

#include <algorithm>
#include <random>

#include "bench/attention_bwd_check.hpp"
#include "bench/prepared_buffers.hpp"
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

Result<PreparedAttention> PreparedAttention::backward(
    std::span<const kernels::Kernel* const> kernels, const kernels::Kernel& forward,
    const AttnShape& shape, const kernels::DeviceCaps& device, std::uint64_t seed) {
  PreparedAttention prepared(shape, Pass::bwd, {kernels.begin(), kernels.end()});
  const auto forward_unsupported = kernels::why_unsupported(forward, shape, device);
  std::size_t workspace = 0;
  bool any = false;
  for (std::size_t i = 0; i < kernels.size(); ++i) {
    if (auto reason = kernels::why_unsupported(*kernels[i], shape, device)) {
      prepared.checks_[i] = not_timed(Outcome::skipped, *reason);
      continue;
    }
    if (forward_unsupported) {
      prepared.checks_[i] = not_timed(
          Outcome::skipped, "the forward kernel cannot make O and LSE: " + *forward_unsupported);
      continue;
    }
    any = true;
    workspace = std::max(workspace, kernels[i]->workspace_bytes(shape, device));
  }
  if (!any) return prepared;
  workspace = std::max(workspace, forward.workspace_bytes(shape, device));
  reference::BwdInputs in = inputs_without_forward(shape, seed);
  Result<DeviceBwdProblem> problem = DeviceBwdProblem::upload(in, workspace);
  if (!problem) return problem.error();
  const kernels::AttnBuffers buffers = problem->buffers();
  if (Status s = forward.launch(shape, buffers, nullptr); !s) return s.error();
  if (Status s = download_forward(*problem, in); !s) return s.error();

  const std::vector<reference::RowId> rows = sample_rows(shape, kCheckedRows, seed);
  const std::vector<reference::KeyRowId> key_rows = sample_key_rows(shape, kCheckedRows, seed);
  for (std::size_t i = 0; i < kernels.size(); ++i) {
    if (prepared.checks_[i].outcome == Outcome::skipped) continue;
    if (Status s = problem->poison_gradients(); !s) return s.error();
    if (Status s = kernels[i]->launch(shape, buffers, nullptr); !s) {
      prepared.checks_[i] = not_timed(Outcome::failed, s.error().message);
      continue;
    }
    Result<HostGradients> out = fetch_gradients(*problem, shape);
    if (!out) {
      prepared.checks_[i] = not_timed(Outcome::failed, out.error().message);
      continue;
    }
    const BwdCheckResult check = check_bwd_against_oracle(in, *out, rows, key_rows);
    prepared.checks_[i] =
        not_timed(check.passed() ? Outcome::ok : Outcome::failed, check.summary());
  }
  prepared.buffers_ = std::make_unique<PreparedBuffers>(
      PreparedBuffers{.problem = std::move(problem).value(), .buffers = buffers});
  return prepared;
}

Result<AttentionRun> run_attention_backward(const kernels::Kernel& kernel,
                                            const kernels::Kernel& forward, const AttnShape& shape,
                                            const kernels::DeviceCaps& device, const Timer& timer,
                                            std::uint64_t seed) {
  const kernels::Kernel* const one[] = {&kernel};
  Result<PreparedAttention> prepared =
      PreparedAttention::backward(one, forward, shape, device, seed);
  if (!prepared) return prepared.error();
  return prepared->time(0, timer);
}

}  // namespace fa4::bench
