#include "bench/attention_run.hpp"

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

Result<AttentionRun> run_attention(const kernels::Kernel& kernel, const AttnShape& shape,
                                   const kernels::DeviceCaps& device, const Timer& timer,
                                   std::uint64_t seed) {
  if (auto reason = kernels::why_unsupported(kernel, shape, device))
    return not_timed(Outcome::skipped, *reason);
  const reference::AttnInputs in = reference::random_inputs(shape, seed);
  Result<DeviceProblem> problem =
      DeviceProblem::upload(in, kernel.workspace_bytes(shape, device), seed);
  if (!problem) return problem.error();
  if (Status s = problem->poison_outputs(); !s) return s.error();
  if (Status s = kernel.launch(shape, problem->buffers(), nullptr); !s)
    return not_timed(Outcome::failed, s.error().message);
  Result<HostOutputs> out = fetch_outputs(*problem, shape);
  if (!out) return not_timed(Outcome::failed, out.error().message);
  const CheckResult check = check_against_oracle(in, *out, sample_rows(shape, kCheckedRows, seed));
  if (!check.passed()) return not_timed(Outcome::failed, check.summary());
  const kernels::AttnBuffers buffers = problem->buffers();
  return time_checked(timer, shape, Pass::fwd, check.summary(),
                      [&] { return kernel.launch(shape, buffers, nullptr); });
}

}  // namespace fa4::bench
