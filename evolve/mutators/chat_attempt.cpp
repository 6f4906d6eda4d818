#include "evolve/mutators/chat_attempt.hpp"

namespace tv {

std::string_view failure_kind_name(FailureKind k) {
  switch (k) {
  case FailureKind::none:
    return "ok";
  case FailureKind::timeout:
    return "timeout";
  case FailureKind::connection:
    return "connection";
  case FailureKind::rate_limited:
    return "rate_limited";
  case FailureKind::server_error:
    return "server_error";
  case FailureKind::client_error:
    return "client_error";
  case FailureKind::bad_response:
    return "bad_response";
  }
  return "ok";
}

bool parse_failure_kind(std::string_view text, FailureKind& out) {
  for (FailureKind k :
       {FailureKind::none, FailureKind::timeout, FailureKind::connection, FailureKind::rate_limited,
        FailureKind::server_error, FailureKind::client_error, FailureKind::bad_response})
    if (failure_kind_name(k) == text) {
      out = k;
      return true;
    }
  return false;
}

bool is_retryable(FailureKind k) {
  return k == FailureKind::timeout || k == FailureKind::connection ||
         k == FailureKind::rate_limited || k == FailureKind::server_error;
}

} // namespace tv
