#include "evolve/mutators/chat_response.hpp"

#include "evolve/mutators/excerpt.hpp"
#include "evolve/mutators/token_count.hpp"
#include "ir/bounded_json.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace tv {

namespace {

/// A non-negative integer field of `o` (saturated at kMaxTokenCount), or 0.
long long count_of(const nlohmann::json& o, const char* key) {
  if (!o.is_object()) return 0;
  const auto it = o.find(key);
  if (it == o.end() || !it->is_number_integer()) return 0;
  if (it->is_number_unsigned()) {
    const auto u = it->get<std::uint64_t>();
    return u > std::uint64_t(kMaxTokenCount) ? kMaxTokenCount : (long long)u;
  }
  const long long v = it->get<long long>();
  return v < 0 ? 0 : v;
}

/// The body as JSON (nesting bounded: a server's bytes are as untrusted as a file's), or a
/// discarded value when it is not JSON.
nlohmann::json chat_body_json(std::string_view body) {
  try {
    JsonReadOptions how;
    how.duplicate_keys = DuplicateKeys::keep_last;
    return read_json(body, "the response", how);
  } catch (const InputError&) {
    return nlohmann::json(nlohmann::json::value_t::discarded);
  }
}

} // namespace

ChatResponse parse_chat_response(std::string_view body) {
  ChatResponse r;
  const nlohmann::json j = chat_body_json(body);
  if (j.is_discarded()) {
    r.error = fmt::format("invalid JSON in the response ({} bytes, starting '{}')", body.size(),
                          excerpt(body.substr(0, 40), 40));
    return r;
  }
  if (!j.is_object()) {
    r.error = "the response is not a JSON object";
    return r;
  }
  if (const auto u = j.find("usage"); u != j.end() && u->is_object()) {
    r.has_usage = true;
    r.prompt_tokens = count_of(*u, "prompt_tokens");
    r.completion_tokens = count_of(*u, "completion_tokens");
  }
  const auto choices = j.find("choices");
  if (choices == j.end() || !choices->is_array() || choices->empty()) {
    r.error = j.contains("error") ? "error response: " + error_message_of(body)
                                  : "the response has no choices";
    return r;
  }
  const auto& c = (*choices)[0];
  if (c.is_object())
    if (const auto f = c.find("finish_reason"); f != c.end() && f->is_string())
      r.finish_reason = f->get<std::string>();
  const nlohmann::json* msg = nullptr;
  if (c.is_object())
    if (const auto m = c.find("message"); m != c.end() && m->is_object()) msg = &*m;
  if (!msg) {
    r.error = "the first choice has no message";
    return r;
  }
  const auto content = msg->find("content");
  if (content == msg->end() || !content->is_string()) {
    r.error = "the message has no text content";
    return r;
  }
  const auto& text = content->get_ref<const std::string&>();
  if (text.size() > kMaxReplyChars) {
    r.error =
        fmt::format("the reply has {} characters (more than {})", text.size(), kMaxReplyChars);
    return r;
  }
  r.content = text;
  r.ok = true;
  return r;
}

std::string error_message_of(std::string_view body) {
  const nlohmann::json j = chat_body_json(body);
  if (!j.is_discarded() && j.is_object()) {
    const auto e = j.find("error");
    if (e != j.end()) {
      if (e->is_string()) return excerpt(e->get<std::string>(), 200);
      if (e->is_object())
        if (const auto m = e->find("message"); m != e->end() && m->is_string())
          return excerpt(m->get<std::string>(), 200);
    }
    if (const auto m = j.find("message"); m != j.end() && m->is_string())
      return excerpt(m->get<std::string>(), 200);
  }
  return excerpt(body, 200);
}

} // namespace tv
