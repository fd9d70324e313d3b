#pragma once
// Errors of the Jute codec. "Need more bytes" is kept apart from "invalid" so a caller that decodes a
// stream can wait for more input, while a caller that decodes a complete frame treats it as truncation.

#include <system_error>

namespace zkwire::jute {

enum class error {
  need_more_bytes = 1,   // input ended before the value did
  negative_length,       // a length or count below -1, or -1 where null is not allowed
  length_exceeds_limit,  // a buffer/string length above the reader's configured maximum
  count_exceeds_input,   // a vector count that cannot fit in the bytes left (never allocated)
  invalid_boolean,       // a boolean byte other than 0 or 1
  trailing_bytes,        // a record decoded completely but bytes were left over
  value_too_large,       // writer: a buffer, string or vector longer than INT32_MAX or the output limit
  invalid_value,         // a field value outside its domain (set by record decoders)
};

const std::error_category& category() noexcept;

inline std::error_code make_error_code(error e) noexcept { return {static_cast<int>(e), category()}; }

}  // namespace zkwire::jute

template <>
struct std::is_error_code_enum<zkwire::jute::error> : std::true_type {};
