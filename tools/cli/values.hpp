#pragma once
// Option values as numbers, with the usage errors every command reports for them. Pure functions.

#include <cstdint>
#include <string_view>

namespace zkwire::cli {

// `text` as a decimal integer in [min, max] (an optional leading '+'); otherwise usage_error
// "<what>: '<text>' is not an integer in [<min>, <max>]".
std::int64_t parse_integer(std::string_view text, std::int64_t min, std::int64_t max, std::string_view what);

// `text` as a non-negative, finite number of seconds ("5", "0.5"); otherwise usage_error
// "<what>: '<text>' is not a number of seconds".
double parse_seconds(std::string_view text, std::string_view what);

}  // namespace zkwire::cli
