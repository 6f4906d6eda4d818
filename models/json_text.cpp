#include "models/json_text.hpp"

namespace tv {

nlohmann::json parse_json_text(std::string_view text, std::string_view source) {
  return read_json(text, source); // bounded nesting, duplicate keys refused
}

} // namespace tv
