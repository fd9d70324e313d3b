#include "values.hpp"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <string>

#include "errors.hpp"

namespace zkwire::cli {

std::int64_t parse_integer(std::string_view text, std::int64_t min, std::int64_t max, std::string_view what) {
  std::int64_t value = 0;
  const char* first = text.data();
  const char* last = text.data() + text.size();
  if (!text.empty() && text.front() == '+') ++first;
  const auto [end, ec] = std::from_chars(first, last, value);
  if (text.empty() || ec != std::errc() || end != last || value < min || value > max) {
    throw usage_error(std::string(what) + ": '" + std::string(text) + "' is not an integer in [" + std::to_string(min) +
                      ", " + std::to_string(max) + "]");
  }
  return value;
}

double parse_seconds(std::string_view text, std::string_view what) {
  const std::string copy(text);
  char* end = nullptr;
  const double value = std::strtod(copy.c_str(), &end);
  if (copy.empty() || end != copy.c_str() + copy.size() || !std::isfinite(value) || value < 0 || value > 1e9) {
    throw usage_error(std::string(what) + ": '" + copy + "' is not a number of seconds");
  }
  return value;
}

}  // namespace zkwire::cli
