// The one way a subcommand reports failure to main: a message that says what is wrong and how to
// fix it. main prints it as "error: <message>", any control character in it escaped (printable:
// a quoted argument or file name cannot end the line or drive the terminal), and exits with
// status 1.
#pragma once

#include <stdexcept>
#include <string>

#include "core/error.hpp"

namespace fa4::app {

struct UserError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// A sweep stopped by SIGINT or SIGTERM after recording what it finished: main prints the message
// (what was recorded, how to resume) and exits with status 130, the shell's code for Ctrl-C.
struct Interrupted : std::runtime_error {
  using std::runtime_error::runtime_error;
};
inline constexpr int kInterruptedExitCode = 130;

// Unwraps a Result or throws its error as a UserError.
template <class T>
T take(Result<T> result) {
  if (!result) throw UserError(result.error().message);
  return std::move(result).value();
}

}  // namespace fa4::app
