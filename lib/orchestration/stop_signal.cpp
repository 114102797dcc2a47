#include "orchestration/stop_signal.hpp"

#include <unistd.h>

#include <cstring>

namespace fa4::orchestration {
namespace {

static_assert(std::atomic<bool>::is_always_lock_free);
static_assert(std::atomic<int>::is_always_lock_free);

std::atomic<bool> g_requested{false};
std::atomic<int> g_signal{0};

constexpr char kNotice[] =
    "\nstopping after the current configuration (its result is recorded); "
    "send the signal again to stop now\n";

extern "C" void on_stop_signal(int signal) {
  if (g_requested.exchange(true)) {
    // The second signal: the default action, now (everything committed so far stays).
    std::signal(signal, SIG_DFL);
    std::raise(signal);
    return;
  }
  g_signal.store(signal);
  const ssize_t ignored = ::write(STDERR_FILENO, kNotice, sizeof kNotice - 1);
  (void)ignored;
}

}  // namespace

StopOnSignal::StopOnSignal() {
  g_requested.store(false);
  g_signal.store(0);
  struct sigaction action {};
  action.sa_handler = on_stop_signal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;
  sigaction(SIGINT, &action, &previous_int_);
  sigaction(SIGTERM, &action, &previous_term_);
}

StopOnSignal::~StopOnSignal() {
  sigaction(SIGINT, &previous_int_, nullptr);
  sigaction(SIGTERM, &previous_term_, nullptr);
}

const std::atomic<bool>& StopOnSignal::requested() const { return g_requested; }

int StopOnSignal::signal_number() const { return g_signal.load(); }

}  // namespace fa4::orchestration
