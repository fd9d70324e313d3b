#include "zkwire/proto/connect.hpp"

#include "record_fields.hpp"
#include "zkwire/proto/codec.hpp"
#include "zkwire/proto/error.hpp"

namespace zkwire::proto {

// The fields are described in records.hpp, the trailing readOnly byte as optional_at_end; encode and decode derive
// from them. The sizes with a 16-byte password follow from the description.
static_assert(detail::min_wire_size<connect_request>() + password_length + 1 == connect_request_size);
static_assert(detail::min_wire_size<connect_response>() + password_length + 1 == connect_response_size);

void encode(jute::writer& w, const connect_request& v) { detail::encode_fields(w, v); }

void decode(jute::reader& r, connect_request& v) { detail::decode_fields(r, v); }

void encode(jute::writer& w, const connect_response& v) { detail::encode_fields(w, v); }

void decode(jute::reader& r, connect_response& v) { detail::decode_fields(r, v); }

std::error_code encode_connect_frame(std::string& out, const connect_request& request) {
  const std::size_t start = out.size();
  // The server drops frames longer than its jute.maxbuffer without a reply.
  jute::writer w(out, 4 + jute::server_max_buffer);
  const std::size_t prefix = w.begin_length_prefix();
  encode(w, request);
  w.end_length_prefix(prefix);
  if (w.ok()) return {};
  out.resize(start);
  return client_error::request_too_large;
}

std::error_code decode_connect_response(std::string_view payload, connect_response& out) {
  return decode_exact(payload, out);
}

std::error_code decode_connect_request(std::string_view payload, connect_request& out) {
  return decode_exact(payload, out);
}

bool is_session_expired(const connect_request& sent, const connect_response& received) noexcept {
  return received.timeout <= 0 || (sent.session_id != 0 && received.session_id != sent.session_id);
}

}  // namespace zkwire::proto
