#pragma once
// Result<T>: the return type of every fallible library operation (parsing, loading, configuration).
// Exceptions never cross library boundaries; the CLI is the only place that turns an Error into an
// exit code.

#include <string>
#include <utility>
#include <variant>

#include "corral/core/check.h"

namespace corral {

enum class ErrorCode {
  kInvalidInput,  // the user's input is wrong (exit code 2)
  kNotFound,      // a referenced file or object does not exist (exit code 2)
  kInternal,      // a runtime failure that is not the input's fault (exit code 1)
};

// A failure with a human-readable message. Messages are complete sentences fragments in kube's
// style ("spec.taints[0].effect: unknown effect ..."), without a trailing period.
struct Error {
  ErrorCode code = ErrorCode::kInvalidInput;
  std::string message;

  static Error Invalid(std::string msg) { return {ErrorCode::kInvalidInput, std::move(msg)}; }
  static Error NotFound(std::string msg) { return {ErrorCode::kNotFound, std::move(msg)}; }
  static Error Internal(std::string msg) { return {ErrorCode::kInternal, std::move(msg)}; }
};

// Holds either a T or an Error. Accessing the wrong alternative is a programmer error (CHECK).
template <class T>
class [[nodiscard]] Result {
 public:
  Result(T value)
      : v_(std::move(value)) {}  // NOLINT(google-explicit-constructor): like expected<T,E>.
  Result(Error error) : v_(std::move(error)) {}  // NOLINT(google-explicit-constructor)

  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }

  T& value() & {
    CORRAL_CHECK_MSG(ok(), "Result::value() on an error");
    return std::get<0>(v_);
  }
  const T& value() const& {
    CORRAL_CHECK_MSG(ok(), "Result::value() on an error");
    return std::get<0>(v_);
  }
  T&& value() && {
    CORRAL_CHECK_MSG(ok(), "Result::value() on an error");
    return std::get<0>(std::move(v_));
  }
  const Error& error() const {
    CORRAL_CHECK_MSG(!ok(), "Result::error() on a value");
    return std::get<1>(v_);
  }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

 private:
  std::variant<T, Error> v_;
};

// Result<void>: success or an Error.
template <>
class [[nodiscard]] Result<void> {
 public:
  Result() = default;
  Result(Error error)
      : error_(std::move(error)), ok_(false) {}  // NOLINT(google-explicit-constructor)
  static Result Ok() { return {}; }
  bool ok() const { return ok_; }
  explicit operator bool() const { return ok_; }
  const Error& error() const {
    CORRAL_CHECK_MSG(!ok_, "Result<void>::error() on success");
    return error_;
  }

 private:
  Error error_;
  bool ok_ = true;
};

}  // namespace corral
