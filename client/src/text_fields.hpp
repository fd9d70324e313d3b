#pragma once
// Small text helpers shared by the client's parsers of connect strings (connect_string.cpp) and of the ensemble's
// configuration (ensemble_config.cpp).

#include <charconv>
#include <cstdint>
#include <optional>
#include <string_view>

namespace zkwire::detail {

// `s` without the characters of `blanks` at either end.
inline std::string_view trim(std::string_view s, std::string_view blanks = " \t") {
  const auto first = s.find_first_not_of(blanks);
  if (first == std::string_view::npos) return {};
  return s.substr(first, s.find_last_not_of(blanks) - first + 1);
}

// A TCP port, 1..65535, written as decimal digits and nothing else.
inline std::optional<std::uint16_t> parse_port(std::string_view text) {
  unsigned value = 0;
  const auto* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (text.empty() || ec != std::errc{} || ptr != end || value == 0 || value > 65535) return std::nullopt;
  return static_cast<std::uint16_t>(value);
}

}  // namespace zkwire::detail
