// Status and StatusOr: how every fallible function in the compiler core reports
// failure. No exceptions cross module boundaries; user errors (bad input,
// unsupported features) are kept apart from internal invariant failures.
#pragma once

#include <optional>
#include <string>
#include <utility>

namespace atenaot {

enum class StatusCode {
  kOk = 0,
  kInvalidArgument,  // the user's input is malformed or inconsistent
  kUnsupported,      // well-formed, but outside what atenaot handles
  kNotFound,         // a file, op or name that does not exist
  kIoError,          // reading or writing a file failed
  kInternal,         // a bug in atenaot: an invariant did not hold
};

const char* StatusCodeName(StatusCode code);

class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(StatusCode code, std::string message) : code_(code), message_(std::move(message)) {}
  static Status Ok() { return Status(); }

  bool ok() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }
  // "invalid argument: <message>" style, for logs and the CLI.
  std::string ToString() const;
  // Prefixes the message with context ("while importing node %3: ...").
  Status WithContext(const std::string& context) const;

 private:
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
};

inline Status InvalidArgument(std::string m) { return Status(StatusCode::kInvalidArgument, std::move(m)); }
inline Status Unsupported(std::string m) { return Status(StatusCode::kUnsupported, std::move(m)); }
inline Status NotFound(std::string m) { return Status(StatusCode::kNotFound, std::move(m)); }
inline Status IoError(std::string m) { return Status(StatusCode::kIoError, std::move(m)); }
inline Status Internal(std::string m) { return Status(StatusCode::kInternal, std::move(m)); }

template <typename T>
class [[nodiscard]] StatusOr {
 public:
  StatusOr(Status s) : status_(std::move(s)) {}  // NOLINT: implicit by design
  StatusOr(T v) : value_(std::move(v)) {}        // NOLINT
  bool ok() const { return status_.ok(); }
  const Status& status() const { return status_; }
  T& value() & { return *value_; }
  const T& value() const& { return *value_; }
  T&& value() && { return std::move(*value_); }
  T* operator->() { return &*value_; }
  const T* operator->() const { return &*value_; }
  T& operator*() { return *value_; }

 private:
  Status status_;
  std::optional<T> value_;
};

#define AOT_CONCAT_INNER(a, b) a##b
#define AOT_CONCAT(a, b) AOT_CONCAT_INNER(a, b)

#define AOT_RETURN_IF_ERROR(expr)       \
  do {                                  \
    ::atenaot::Status _aot_st = (expr); \
    if (!_aot_st.ok()) return _aot_st;  \
  } while (0)

#define AOT_ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr) \
  auto tmp = (expr);                              \
  if (!tmp.ok()) return tmp.status();             \
  lhs = std::move(tmp).value()

#define AOT_ASSIGN_OR_RETURN(lhs, expr) AOT_ASSIGN_OR_RETURN_IMPL(AOT_CONCAT(_aot_so_, __LINE__), lhs, expr)

// Internal invariant: failing it is an atenaot bug, reported as kInternal.
#define AOT_INTERNAL_CHECK(cond, msg)                                                                               \
  do {                                                                                                              \
    if (!(cond)) return ::atenaot::Internal(std::string(__FILE__) + ":" + std::to_string(__LINE__) + ": " + (msg)); \
  } while (0)

}  // namespace atenaot
