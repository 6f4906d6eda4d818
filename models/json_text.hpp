#pragma once
/// Strict reading of JSON text from files a user (or a crashed run) may have written.
#include "ir/bounded_json.hpp"

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace tv {

/// Parses `text` as one JSON value (read_json with its defaults: nesting up to kMaxJsonDepth).
/// Throws InputError "<source>:<line>:<col>: malformed JSON: <reason>" for bad syntax,
/// "<source>:<line>:<col>: JSON nested deeper than 512 levels", and "<source>:<line>:<col>:
/// duplicate key 'k' in <object>" for an object that repeats a key (nlohmann would silently keep
/// one of them).
nlohmann::json parse_json_text(std::string_view text, std::string_view source);

/// Why `v` cannot be read as T without losing or inventing a value, or "" when it can. An
/// integer type needs a JSON integer within its range (nlohmann's get<T>() would cast 4e21
/// to an integer, which is undefined behaviour, and wrap 2^64-1 into a signed -1), a floating
/// type a finite number, bool a boolean, std::string a string, std::vector<T> an array of such.
template <class T> std::string json_type_problem(const nlohmann::json& v);

namespace detail {
template <class T> struct is_vector : std::false_type {};
template <class T, class A> struct is_vector<std::vector<T, A>> : std::true_type {};
} // namespace detail

template <class T> std::string json_type_problem(const nlohmann::json& v) {
  if constexpr (std::is_same_v<T, bool>) {
    return v.is_boolean() ? "" : "expected true or false";
  } else if constexpr (std::is_integral_v<T>) {
    if (!v.is_number_integer()) return "expected an integer";
    if (v.is_number_unsigned()) {
      if (v.get<std::uint64_t>() > std::uint64_t(std::numeric_limits<T>::max()))
        return "the integer is out of range";
      return "";
    }
    const std::int64_t x = v.get<std::int64_t>();
    if constexpr (std::is_unsigned_v<T>) {
      if (x < 0 || std::uint64_t(x) > std::uint64_t(std::numeric_limits<T>::max()))
        return "expected a non-negative integer in range";
    } else {
      if (x < std::int64_t(std::numeric_limits<T>::min()) ||
          x > std::int64_t(std::numeric_limits<T>::max()))
        return "the integer is out of range";
    }
    return "";
  } else if constexpr (std::is_floating_point_v<T>) {
    if (!v.is_number()) return "expected a number";
    return std::isfinite(v.get<double>()) ? "" : "expected a finite number";
  } else if constexpr (std::is_same_v<T, std::string>) {
    return v.is_string() ? "" : "expected a string";
  } else if constexpr (detail::is_vector<T>::value) {
    if (!v.is_array()) return "expected an array";
    for (std::size_t i = 0; i < v.size(); ++i)
      if (std::string why = json_type_problem<typename T::value_type>(v[i]); !why.empty())
        return "element " + std::to_string(i) + ": " + why;
    return "";
  } else {
    static_assert(std::is_same_v<T, nlohmann::json>, "json_type_problem: unsupported type");
    return "";
  }
}

} // namespace tv
