// Errors as values at I/O boundaries: a Result<T> holds either a value or an Error whose message
// names the input, what is wrong and how to fix it.
#pragma once

#include <stdexcept>
#include <string>
#include <utility>
#include <variant>

namespace fa4 {

struct Error {
  std::string message;
};

template <class T>
class [[nodiscard]] Result {
 public:
  Result(T value) : state_(std::move(value)) {}       // NOLINT: implicit by design
  Result(Error error) : state_(std::move(error)) {}   // NOLINT: implicit by design

  bool ok() const { return std::holds_alternative<T>(state_); }
  explicit operator bool() const { return ok(); }

  const T& value() const& { return checked(); }
  T& value() & { return checked(); }
  T&& value() && { return std::move(checked()); }
  const T& operator*() const& { return checked(); }
  T& operator*() & { return checked(); }
  const T* operator->() const { return &checked(); }
  T* operator->() { return &checked(); }

  const Error& error() const { return std::get<Error>(state_); }

 private:
  T& checked() {
    if (!ok()) throw std::logic_error("Result::value() on an error: " + error().message);
    return std::get<T>(state_);
  }
  const T& checked() const { return const_cast<Result*>(this)->checked(); }

  std::variant<T, Error> state_;
};

// Result<void>: success or an Error.
struct Ok {};
using Status = Result<Ok>;

}  // namespace fa4
