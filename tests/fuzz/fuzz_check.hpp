#pragma once
// Shared helpers of the libFuzzer targets: property checks that abort, a cursor that takes control bytes from
// the fuzz input, and the error classes the decoders document (message.hpp). Test code only.

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <system_error>

#include "zkwire/jute/error.hpp"
#include "zkwire/proto/error.hpp"

namespace zkwire::fuzz {

// Reports a violated property and aborts, which libFuzzer records as a crash with the input that caused it.
[[noreturn]] inline void property_violated(const char* what, const char* file, int line) {
  std::fprintf(stderr, "\nzkwire fuzz: property violated: %s\n  at %s:%d\n", what, file, line);
  std::fflush(stderr);
  std::abort();
}

// The input as a string_view (the decoders take bytes as char).
inline std::string_view as_bytes(const std::uint8_t* data, std::size_t size) noexcept {
  // libFuzzer passes a null pointer with size 0; string_view wants a valid pointer even then.
  if (size == 0) return {};
  return {reinterpret_cast<const char*>(data), size};
}

// Takes control values from the front of an input. Running out is not an error: missing bytes read as 0, so
// every input, even the empty one, is a valid program.
class byte_source {
 public:
  explicit byte_source(std::string_view input) noexcept : input_(input) {}

  std::uint8_t take_u8() noexcept {
    if (input_.empty()) return 0;
    const auto b = static_cast<std::uint8_t>(input_.front());
    input_.remove_prefix(1);
    return b;
  }
  std::uint16_t take_u16() noexcept {
    const auto hi = static_cast<unsigned>(take_u8());
    return static_cast<std::uint16_t>((hi << 8) | take_u8());
  }
  std::uint32_t take_u32() noexcept {
    const std::uint32_t hi = take_u16();
    return (hi << 16) | take_u16();
  }
  // Up to n bytes (fewer at the end of the input).
  std::string_view take(std::size_t n) noexcept {
    const std::string_view out = input_.substr(0, n);
    input_.remove_prefix(out.size());
    return out;
  }
  std::string_view rest() noexcept { return take(input_.size()); }
  [[nodiscard]] bool empty() const noexcept { return input_.empty(); }
  [[nodiscard]] std::size_t size() const noexcept { return input_.size(); }

 private:
  std::string_view input_;
};

// The errors a decoder over a complete payload may return (message.hpp: running out of bytes is
// client_error::truncated_frame, other malformed input a jute::error). jute::error::need_more_bytes must never
// escape such a decoder, and value_too_large is the writer's error, never a decoder's.
inline bool is_complete_input_error(const std::error_code& ec) noexcept {
  if (ec == proto::client_error::truncated_frame) return true;
  if (ec.category() != jute::category()) return false;
  switch (static_cast<jute::error>(ec.value())) {
    case jute::error::negative_length:
    case jute::error::length_exceeds_limit:
    case jute::error::count_exceeds_input:
    case jute::error::invalid_boolean:
    case jute::error::trailing_bytes:
    case jute::error::invalid_value:
      return true;
    case jute::error::need_more_bytes:
    case jute::error::value_too_large:
      return false;
  }
  return false;
}

inline void store_be32(std::string& out, std::size_t offset, std::uint32_t v) {
  for (std::size_t i = 0; i < 4; ++i) out[offset + 3 - i] = static_cast<char>((v >> (8 * i)) & 0xffU);
}

inline std::string be32(std::uint32_t v) {
  std::string out(4, '\0');
  store_be32(out, 0, v);
  return out;
}

inline std::uint32_t load_be32(std::string_view s, std::size_t offset) noexcept {
  std::uint32_t v = 0;
  for (std::size_t i = 0; i < 4; ++i) v = (v << 8) | static_cast<unsigned char>(s[offset + i]);
  return v;
}

// Re-encoding a decoded value may differ from the input only where the decoder maps a null (a length or count of
// -1, bytes ff ff ff ff) to an empty value, which re-encodes as a zero length (00 00 00 00). True if the sizes are
// equal and every difference is such a whole 4-byte field.
inline bool differs_only_by_nulls(std::string_view input, std::string_view reencoded) noexcept {
  if (input.size() != reencoded.size()) return false;
  std::size_t i = 0;
  while (i < input.size()) {
    if (input[i] == reencoded[i]) {
      ++i;
      continue;
    }
    if (input.size() - i < 4 || load_be32(input, i) != 0xffffffffU || load_be32(reencoded, i) != 0) return false;
    i += 4;
  }
  return true;
}

}  // namespace zkwire::fuzz

// Aborts with the condition's text when a property does not hold. Active in every build type (not assert()).
#define ZKWIRE_FUZZ_CHECK(cond)                                                \
  do {                                                                         \
    if (!(cond)) ::zkwire::fuzz::property_violated(#cond, __FILE__, __LINE__); \
  } while (false)
