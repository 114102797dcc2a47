#include "bench/attention_run.hpp"

#include <algorithm>

#include "bench/prepared_buffers.hpp"

namespace fa4::bench {

AttentionRun not_timed(Outcome outcome, std::string reason) {
  AttentionRun run;
  run.outcome = outcome;
  run.reason = std::move(reason);
  return run;
}

Result<AttentionRun> time_checked(const Timer& timer, const AttnShape& shape, Pass pass,
                                  std::string check_summary,
                                  const std::function<Status()>& launch) {
  Result<TimingStats> timing = timer.time(launch);
  if (!timing) return timing.error();
  const double tflops = attention_flops(shape, pass) / timing->median_s / 1e12;
  return AttentionRun{.outcome = Outcome::ok,
                      .reason = std::move(check_summary),
                      .timing = std::move(timing).value(),
                      .tflops = tflops};
}

PreparedAttention::PreparedAttention(AttnShape shape, Pass pass,
                                     std::vector<const kernels::Kernel*> kernels)
    : shape_(std::move(shape)),
      pass_(pass),
      kernels_(std::move(kernels)),
      checks_(kernels_.size()) {}
PreparedAttention::PreparedAttention(PreparedAttention&&) noexcept = default;
PreparedAttention& PreparedAttention::operator=(PreparedAttention&&) noexcept = default;
PreparedAttention::~PreparedAttention() = default;

Result<PreparedAttention> PreparedAttention::forward(
    std::span<const kernels::Kernel* const> kernels, const AttnShape& shape,
    const kernels::DeviceCaps& device, std::uint64_t seed) {
  PreparedAttention prepared(shape, Pass::fwd, {kernels.begin(), kernels.end()});
  std::size_t workspace = 0;
  bool any = false;
  for (std::size_t i = 0; i < kernels.size(); ++i) {
    if (auto reason = kernels::why_unsupported(*kernels[i], shape, device)) {
      prepared.checks_[i] = not_timed(Outcome::skipped, *reason);
      continue;
    }
    any = true;
    workspace = std::max(workspace, kernels[i]->workspace_bytes(shape, device));
  }
  if (!any) return prepared;
  const reference::AttnInputs in = reference::random_inputs(shape, seed);
  Result<DeviceProblem> problem = DeviceProblem::upload(in, workspace, seed);
  if (!problem) return problem.error();
  const kernels::AttnBuffers buffers = problem->buffers();
  const std::vector<reference::RowId> rows = sample_rows(shape, kCheckedRows, seed);
  for (std::size_t i = 0; i < kernels.size(); ++i) {
    if (prepared.checks_[i].outcome == Outcome::skipped) continue;
    if (Status s = problem->poison_outputs(); !s) return s.error();
    if (Status s = kernels[i]->launch(shape, buffers, nullptr); !s) {
      prepared.checks_[i] = not_timed(Outcome::failed, s.error().message);
      continue;
    }
    Result<HostOutputs> out = fetch_outputs(*problem, shape);
    if (!out) {
      prepared.checks_[i] = not_timed(Outcome::failed, out.error().message);
      continue;
    }
    const CheckResult check = check_against_oracle(in, *out, rows);
    prepared.checks_[i] =
        not_timed(check.passed() ? Outcome::ok : Outcome::failed, check.summary());
  }
  prepared.buffers_ = std::make_unique<PreparedBuffers>(
      PreparedBuffers{.problem = std::move(problem).value(), .buffers = buffers});
  return prepared;
}

Result<AttentionRun> PreparedAttention::time(std::size_t i, const Timer& timer) const {
  const AttentionRun& check = checks_.at(i);
  if (check.outcome != Outcome::ok || !buffers_) return check;
  const kernels::Kernel& kernel = *kernels_[i];
  const kernels::AttnBuffers buffers = buffers_->buffers;
  return time_checked(timer, shape_, pass_, check.reason,
                      [&] { return kernel.launch(shape_, buffers, nullptr); });
}

Result<AttentionRun> run_attention(const kernels::Kernel& kernel, const AttnShape& shape,
                                   const kernels::DeviceCaps& device, const Timer& timer,
                                   std::uint64_t seed) {
  const kernels::Kernel* const one[] = {&kernel};
  Result<PreparedAttention> prepared = PreparedAttention::forward(one, shape, device, seed);
  if (!prepared) return prepared.error();
  return prepared->time(0, timer);
}

}  // namespace fa4::bench
