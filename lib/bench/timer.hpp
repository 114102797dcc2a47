// Times GPU work the way every measurement here is taken: warm-up, then per sample an L2 flush
// (a memset of a buffer larger than L2, allocated once, outside the timed region; off for the
// ceiling probes, which touch no memory to speak of or stream far more than L2) and CUDA events
// around the work alone; samples until the relative IQR is below the target or the time cap.
#pragma once

#include <functional>

#include "bench/device_buffer.hpp"
#include "core/error.hpp"
#include "core/stats.hpp"

namespace fa4::bench {

struct TimingOptions {
  int warmup = 5;
  int min_samples = 10;
  int max_samples = 200;
  double target_relative_iqr = 0.02;
  double time_cap_s = 3.0;  // of sampling (flushes included), after the warm-up
  bool flush_l2 = true;     // flush L2 before every sample (cold caches)
};

class Timer {
 public:
  // Allocates the flush buffer (with options.flush_l2): twice `l2_bytes`, at least 256 MiB.
  static Result<Timer> create(std::size_t l2_bytes, TimingOptions options = {});
  // `work` enqueues on the default stream and reports launch errors.
  Result<TimingStats> time(const std::function<Status()>& work) const;
  const TimingOptions& options() const { return options_; }

 private:
  Timer(DeviceBuffer flush, TimingOptions options)
      : flush_(std::move(flush)), options_(options) {}
  DeviceBuffer flush_;
  TimingOptions options_;
};

}  // namespace fa4::bench
