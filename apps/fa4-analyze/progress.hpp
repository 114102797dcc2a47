// A progress line for long commands: on stderr, only when stderr is a terminal, only once the
// command has run for a second, redrawn at most five times a second and erased when done. Output
// to a file or a pipe never sees it.
#pragma once

#include <chrono>
#include <cstddef>
#include <string>

namespace fa4::app {

class Progress {
 public:
  // `what` names the work ("predictions"); `total` is 0 when unknown.
  Progress(std::string what, std::size_t total);
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;
  ~Progress();  // erases the line

  void update(std::size_t done);

 private:
  using Clock = std::chrono::steady_clock;
  std::string what_;
  std::size_t total_;
  bool terminal_;
  Clock::time_point start_ = Clock::now(), last_draw_{};
  bool drawn_ = false;
};

}  // namespace fa4::app
