#include "zkwire/proto/connect.hpp"

#include <utility>

#include "zkwire/proto/codec.hpp"
#include "zkwire/proto/error.hpp"

namespace zkwire::proto {
namespace {

// The hand-appended readOnly byte is optional: a record that ends before it reads as false.
bool read_optional_read_only(jute::reader& r) {
  if (!r.ok() || r.remaining() == 0) return false;
  return r.read_bool();
}

std::string read_password(jute::reader& r) {
  auto passwd = r.read_buffer();
  return passwd ? std::move(*passwd) : std::string();
}

}  // namespace

void encode(jute::writer& w, const connect_request& v) {
  w.write_int(v.protocol_version);
  w.write_long(v.last_zxid_seen);
  w.write_int(v.timeout);
  w.write_long(v.session_id);
  w.write_buffer(std::string_view(v.passwd));
  w.write_bool(v.read_only);
}

void decode(jute::reader& r, connect_request& v) {
  v.protocol_version = r.read_int();
  v.last_zxid_seen = r.read_long();
  v.timeout = r.read_int();
  v.session_id = r.read_long();
  v.passwd = read_password(r);
  v.read_only = read_optional_read_only(r);
}

void encode(jute::writer& w, const connect_response& v) {
  w.write_int(v.protocol_version);
  w.write_int(v.timeout);
  w.write_long(v.session_id);
  w.write_buffer(std::string_view(v.passwd));
  w.write_bool(v.read_only);
}

void decode(jute::reader& r, connect_response& v) {
  v.protocol_version = r.read_int();
  v.timeout = r.read_int();
  v.session_id = r.read_long();
  v.passwd = read_password(r);
  v.read_only = read_optional_read_only(r);
}

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
