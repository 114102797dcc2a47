// A progress line for long commands: on stderr, only when stderr is a terminal, only once the
// command has run for a second, redrawn at most five times a second and erased when done. Output
// to a file or a pipe never sees it. A command of several steps shows one line, switched from
// step to step.
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
  void advance() { update(done_ + 1); }
  // Counts another step's work from 0 on the same line ("charts drawn" after "rows read").
  void switch_to(std::string what, std::size_t total);
  // Erases the line so that the command can print a line of its own; the next update draws it
  // again.
  void clear();
  // Erases the line for good, before the command prints what it did (the destructor does it too).
  void finish();

 private:
  using Clock = std::chrono::steady_clock;
  std::string what_;
  std::size_t total_;
  std::size_t done_ = 0;
  bool terminal_;
  Clock::time_point start_ = Clock::now(), last_draw_{};
  bool drawn_ = false;
};

}  // namespace fa4::app
