// fuzz_connect_response: the first server frame, decode_connect_response(); the same input also goes through
// decode_connect_request(), the server side of the handshake that the fault-injection proxy and fake servers use.
// The input is the frame payload (without the length prefix).
//
// Properties, for both records:
//  1. Errors are the documented ones for a complete payload: client_error::truncated_frame or a decoding
//     jute::error (never need_more_bytes or value_too_large), and is_protocol_violation() holds.
//  2. A success consumed exactly the input: the fixed fields, the password, and the readOnly byte or nothing
//     (the 3.8 readOnly byte is optional, docs/protocol.md#handshake).
//  3. Re-encoding gives the input in canonical form: a missing readOnly byte is appended as 0 (encode() always
//     writes it) and a null password (length -1, read as empty) is written as an empty one (length 0). Nothing
//     else may differ: booleans are canonical because only 0 and 1 are accepted.
//  4. Decoding the re-encoding gives an equal value; encode_frame()/encode_connect_frame() produce the same bytes
//     behind a correct length prefix.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz_check.hpp"
#include "zkwire/proto/codec.hpp"
#include "zkwire/proto/connect.hpp"
#include "zkwire/proto/message.hpp"

namespace {

using zkwire::fuzz::be32;
using zkwire::fuzz::load_be32;

// The canonical form of a payload that decoded, given the offset of its password length field.
std::string canonical_form(std::string_view payload, std::size_t passwd_offset, std::size_t passwd_size,
                           bool has_read_only) {
  std::string out(payload);
  if (load_be32(payload, passwd_offset) == 0xffffffffU) zkwire::fuzz::store_be32(out, passwd_offset, 0);
  if (!has_read_only) out.push_back('\0');
  ZKWIRE_FUZZ_CHECK(out.size() == passwd_offset + 4 + passwd_size + 1);
  return out;
}

template <class Record, class Decode>
void check_record(std::string_view payload, std::size_t passwd_offset, Decode&& decode_payload) {
  Record value;
  const std::error_code ec = decode_payload(payload, value);
  if (ec) {
    // Property 1.
    ZKWIRE_FUZZ_CHECK(zkwire::fuzz::is_complete_input_error(ec));
    ZKWIRE_FUZZ_CHECK(zkwire::proto::is_protocol_violation(ec));
    return;
  }
  // Property 2: fixed fields, a 4-byte password length, the password, an optional readOnly byte.
  ZKWIRE_FUZZ_CHECK(payload.size() >= passwd_offset + 4);
  const std::size_t passwd_size = value.passwd.size();
  const std::size_t without_read_only = passwd_offset + 4 + passwd_size;
  ZKWIRE_FUZZ_CHECK(payload.size() == without_read_only || payload.size() == without_read_only + 1);
  const bool has_read_only = payload.size() == without_read_only + 1;
  if (!has_read_only) ZKWIRE_FUZZ_CHECK(!value.read_only);
  if (has_read_only) ZKWIRE_FUZZ_CHECK(static_cast<unsigned char>(payload.back()) == (value.read_only ? 1U : 0U));
  ZKWIRE_FUZZ_CHECK(payload.substr(passwd_offset + 4, passwd_size) == value.passwd);

  // Property 3.
  std::string encoded;
  ZKWIRE_FUZZ_CHECK(!zkwire::proto::encode_append(encoded, value));
  ZKWIRE_FUZZ_CHECK(encoded == canonical_form(payload, passwd_offset, passwd_size, has_read_only));

  // Property 4.
  Record again;
  ZKWIRE_FUZZ_CHECK(!decode_payload(encoded, again));
  ZKWIRE_FUZZ_CHECK(again == value);
  std::string frame = "x";  // encoders append: what was there stays
  ZKWIRE_FUZZ_CHECK(!zkwire::proto::encode_frame(frame, value));
  ZKWIRE_FUZZ_CHECK(frame == "x" + be32(static_cast<std::uint32_t>(encoded.size())) + encoded);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* bytes, std::size_t size) {
  const std::string_view payload = zkwire::fuzz::as_bytes(bytes, size);

  // ConnectResponse: int protocolVersion, int timeOut, long sessionId, buffer passwd, [boolean readOnly].
  check_record<zkwire::proto::connect_response>(payload, 16,
                                                [](std::string_view p, zkwire::proto::connect_response& out) {
                                                  return zkwire::proto::decode_connect_response(p, out);
                                                });

  // ConnectRequest: int protocolVersion, long lastZxidSeen, int timeOut, long sessionId, buffer passwd,
  // [boolean readOnly].
  check_record<zkwire::proto::connect_request>(payload, 24,
                                               [](std::string_view p, zkwire::proto::connect_request& out) {
                                                 return zkwire::proto::decode_connect_request(p, out);
                                               });

  // The client's own frame encoder agrees with encode_frame() for any request that decoded.
  zkwire::proto::connect_request request;
  if (!zkwire::proto::decode_connect_request(payload, request)) {
    std::string a;
    std::string b;
    ZKWIRE_FUZZ_CHECK(!zkwire::proto::encode_connect_frame(a, request));
    ZKWIRE_FUZZ_CHECK(!zkwire::proto::encode_frame(b, request));
    ZKWIRE_FUZZ_CHECK(a == b);
  }
  return 0;
}
