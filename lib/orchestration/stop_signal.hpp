// Stopping a long sweep cleanly: while a StopOnSignal lives, SIGINT and SIGTERM set a flag that
// the sweep checks between configurations, so the configuration being measured is finished and
// recorded first. A second signal stops the process at once (what was committed stays: the
// database is in WAL mode). The previous handlers come back when the StopOnSignal is destroyed.
#pragma once

#include <atomic>
#include <csignal>

namespace fa4::orchestration {

class StopOnSignal {
 public:
  StopOnSignal();
  ~StopOnSignal();
  StopOnSignal(const StopOnSignal&) = delete;
  StopOnSignal& operator=(const StopOnSignal&) = delete;

  // Set by the first SIGINT or SIGTERM; lock-free, so the handler may write it.
  const std::atomic<bool>& requested() const;
  // The signal that set it (SIGINT, SIGTERM), 0 when none.
  int signal_number() const;

 private:
  struct sigaction previous_int_ {};
  struct sigaction previous_term_ {};
};

}  // namespace fa4::orchestration
