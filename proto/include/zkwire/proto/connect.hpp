#pragma once
// The connect handshake (docs/protocol.md#handshake): the first frame each way on a new connection, with no
// Request/Reply header. Plain values.
//
// Version quirk: in 3.8 the trailing readOnly boolean is not part of the Jute records; both sides append it by
// hand and tolerate its absence. The encoders here always append it (45-byte request, 37-byte response payload
// with a 16-byte password); the decoders accept a payload that stops right before it (44 / 36 bytes) and then
// read read_only as false.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <system_error>

#include "zkwire/jute/reader.hpp"
#include "zkwire/jute/writer.hpp"

namespace zkwire::proto {

// ConnectRequest.protocolVersion; 3.8 servers send it back unchanged.
inline constexpr std::int32_t wire_protocol_version = 0;
// Session passwords are always 16 bytes; a new session sends 16 zero bytes.
inline constexpr std::size_t password_length = 16;

struct connect_request {
  std::int32_t protocol_version = wire_protocol_version;
  std::int64_t last_zxid_seen = 0;  // a server that has not seen this zxid closes the socket without reply
  std::int32_t timeout = 0;         // requested session timeout, ms
  std::int64_t session_id = 0;      // 0 for a new session, else the session to resume
  std::string passwd = std::string(password_length, '\0');
  bool read_only = false;  // "I accept a read-only server"

  bool operator==(const connect_request&) const = default;
};

struct connect_response {
  std::int32_t protocol_version = wire_protocol_version;
  // Negotiated session timeout, ms. 0 means the session is expired or unknown (or the password was wrong): the
  // server sends session_id 0 and a zero password, then closes the socket.
  std::int32_t timeout = 0;
  std::int64_t session_id = 0;
  std::string passwd;      // a null buffer decodes as empty
  bool read_only = false;  // the server is in read-only mode

  bool operator==(const connect_response&) const = default;
};

// Payload sizes with a 16-byte password, with and without the trailing readOnly byte.
inline constexpr std::size_t connect_request_size = 45;
inline constexpr std::size_t connect_request_size_without_read_only = 44;
inline constexpr std::size_t connect_response_size = 37;
inline constexpr std::size_t connect_response_size_without_read_only = 36;

// encode() always writes read_only. decode() treats an input that ends before read_only as "absent", so it must
// be given a reader that holds exactly this record (a whole connect frame payload always does).
void encode(jute::writer& w, const connect_request& v);
void decode(jute::reader& r, connect_request& v);
void encode(jute::writer& w, const connect_response& v);
void decode(jute::reader& r, connect_response& v);

// Appends the whole ConnectRequest frame [len][payload] to `out` (no RequestHeader). On error `out` is unchanged.
std::error_code encode_connect_frame(std::string& out, const connect_request& request);

// Decoder entry point for the first server frame: `payload` is the frame without its length prefix and must hold
// exactly one ConnectResponse (36 or 37 bytes with a 16-byte password).
std::error_code decode_connect_response(std::string_view payload, connect_response& out);

// The server side of the handshake, for proxies and fake servers in tests.
std::error_code decode_connect_request(std::string_view payload, connect_request& out);

// Whether the handshake reply means the session is gone and the handle must report Expired: the Java client's
// rule (timeout <= 0) and the C client's (a resumed session came back with another id).
bool is_session_expired(const connect_request& sent, const connect_response& received) noexcept;

}  // namespace zkwire::proto
