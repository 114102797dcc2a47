#include "progress.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <cstdio>

namespace fa4::app {
namespace {

constexpr auto kQuietFor = std::chrono::seconds(1);
constexpr auto kRedrawEvery = std::chrono::milliseconds(200);

}  // namespace

Progress::Progress(std::string what, std::size_t total)
    : what_(std::move(what)), total_(total), terminal_(::isatty(STDERR_FILENO) == 1) {}

Progress::~Progress() { finish(); }

void Progress::clear() {
  if (drawn_) fmt::print(stderr, "\r\033[K");
  drawn_ = false;
  last_draw_ = {};  // drawn again at the next update
}

void Progress::finish() {
  clear();
  terminal_ = false;  // nothing is drawn after it
}

void Progress::switch_to(std::string what, std::size_t total) {
  what_ = std::move(what);
  total_ = total;
  done_ = 0;
}

void Progress::update(std::size_t done) {
  done_ = done;
  if (!terminal_) return;
  const Clock::time_point now = Clock::now();
  if (now - start_ < kQuietFor || now - last_draw_ < kRedrawEvery) return;
  last_draw_ = now;
  const double seconds = std::chrono::duration<double>(now - start_).count();
  if (total_ > 0)
    fmt::print(stderr, "\r\033[K{} of {} {} ({:.0f}%), {:.0f} s", done, total_, what_,
               100.0 * double(done) / double(total_), seconds);
  else
    fmt::print(stderr, "\r\033[K{} {}, {:.0f} s", done, what_, seconds);
  std::fflush(stderr);
  drawn_ = true;
}

}  // namespace fa4::app
