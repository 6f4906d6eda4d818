#pragma once
/// The body of an OpenAI-compatible chat-completions response, read defensively: a server's
/// answer is untrusted input.
#include <cstddef>
#include <string>
#include <string_view>

namespace tv {

/// Largest reply content accepted (longer replies are refused, not truncated).
inline constexpr std::size_t kMaxReplyChars = 1 << 20;

/// What a response body holds.
struct ChatResponse {
  bool ok = false;
  std::string content;       ///< choices[0].message.content
  std::string finish_reason; ///< choices[0].finish_reason ("stop", "length", ...), may be empty
  long long prompt_tokens = 0, completion_tokens = 0; ///< usage (0 when absent)
  bool has_usage = false;
  std::string error; ///< why `ok` is false, e.g. "invalid JSON at byte 7"
};

/// Reads a 200 response body; never throws.
ChatResponse parse_chat_response(std::string_view body);
/// The server's own message from an error body ({"error": {"message": ...}} or plain text),
/// shortened to one line of at most 200 characters; never throws.
std::string error_message_of(std::string_view body);

} // namespace tv
