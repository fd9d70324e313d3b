#pragma once
// Glue shared by every record: the empty body, and encoding/decoding one record to or from a whole byte string.
//
// Every record type T in zkwire::proto has, found by ADL:
//   void encode(jute::writer&, const T&);   // appends T's fields in wire order
//   void decode(jute::reader&, T&);         // reads them; errors are sticky in the reader
//   bool operator==(const T&, const T&);    // defaulted, field by field

#include <cstddef>
#include <string>
#include <string_view>
#include <system_error>

#include "zkwire/jute/reader.hpp"
#include "zkwire/jute/writer.hpp"

namespace zkwire::proto {

// The body of a request or reply that has none (ping, closeSession, whoAmI requests; delete, check, setWatches,
// auth and removeWatches replies, ...).
struct no_body {
  bool operator==(const no_body&) const = default;
};
inline void encode(jute::writer& /*w*/, const no_body& /*v*/) noexcept {}
inline void decode(jute::reader& /*r*/, no_body& /*v*/) noexcept {}

// Turns the error of a decoder that ran over a complete frame into the error to report: running out of input
// there means the peer sent a truncated record (client_error::truncated_frame), not "wait for more bytes".
// Other errors pass through unchanged.
std::error_code complete_input_error(std::error_code ec) noexcept;

// Decodes `input` as exactly one T: every byte must be consumed (trailing bytes are jute::error::trailing_bytes),
// and no length or count may exceed the input. Returns the first error; `out` is unspecified after a failure.
template <class T>
std::error_code decode_exact(std::string_view input, T& out) {
  // The input is complete, so its size bounds every buffer and string in it: a hostile length fails at once.
  jute::reader r(input, input.size());
  decode(r, out);
  return complete_input_error(r.finish());
}

// Appends the encoding of `value` to `out`; on failure (a value longer than INT32_MAX, or more than max_size
// bytes in total) `out` is restored to its previous size and the writer's error is returned.
template <class T>
std::error_code encode_append(std::string& out, const T& value, std::size_t max_size = jute::max_wire_length) {
  const std::size_t start = out.size();
  jute::writer w(out, max_size);
  encode(w, value);
  if (!w.ok()) out.resize(start);
  return w.error();
}

}  // namespace zkwire::proto
