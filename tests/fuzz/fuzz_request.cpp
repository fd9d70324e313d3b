// fuzz_request: decode_request(payload), the server side of every client frame after the handshake
// (RequestHeader + body chosen by its type), as the fault-injection proxy and fake servers use it. The input is
// the frame payload.
//
// Properties:
//  1. Errors: client_error::protocol_violation exactly when the 8-byte header is there and its type is one a
//     client never sends (request_body_index() is variant_npos); otherwise a documented complete-input error.
//     is_protocol_violation() holds for all of them.
//  2. The body is the alternative request_body_index(type) names.
//  3. Re-encoding the header and body gives a payload of the input's size that decodes to an equal request and
//     re-encodes to itself. Bytes: the input's for canonical bodies (is_canonical(), derived from the record's
//     description: the bodiless ping, closeSession and whoAmI today); for the others they differ only where a null
//     string or vector (-1) was read as empty. Multi requests are checked for size and round trip only (any header with
//     done set ends the op list, whatever its type and err).
//  4. encode_request_frame() accepts the decoded request exactly when validate_request() does (and it fits in
//     max_frame_size), and then writes that re-encoding behind a correct length prefix; otherwise it returns
//     invalid_argument (or request_too_large) and leaves the output as it was.
//  5. A multi that validate() accepts contains only ops allowed in its opcode (multi: writes, multiRead: reads)
//     with create modes that fit the create opcode.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>
#include <variant>

#include "described_records.hpp"
#include "fuzz_check.hpp"
#include "zkwire/proto/message.hpp"

namespace {

namespace proto = zkwire::proto;

std::string encode_payload(const proto::request& req) {
  std::string out;
  zkwire::jute::writer w(out);
  proto::encode(w, req.header);
  std::visit([&w](const auto& body) { encode(w, body); }, req.body);
  ZKWIRE_FUZZ_CHECK(w.ok());
  return out;
}

void check_multi(proto::op_code op, const proto::multi_request& multi) {
  if (proto::validate(op, multi)) return;
  for (const auto& o : multi.ops) {
    if (op == proto::op_code::multi) {
      ZKWIRE_FUZZ_CHECK(proto::is_multi_write_op(o.type));
    } else {
      ZKWIRE_FUZZ_CHECK(op == proto::op_code::multi_read);
      ZKWIRE_FUZZ_CHECK(proto::is_multi_read_op(o.type));
    }
    if (const auto* create = std::get_if<proto::create_request>(&o.body)) {
      ZKWIRE_FUZZ_CHECK(proto::is_valid_create(o.type, create->flags));
    }
    if (const auto* ttl = std::get_if<proto::create_ttl_request>(&o.body)) {
      ZKWIRE_FUZZ_CHECK(proto::is_valid_create(o.type, ttl->flags, ttl->ttl));
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* bytes, std::size_t size) {
  const std::string_view payload = zkwire::fuzz::as_bytes(bytes, size);

  proto::request req;
  const std::error_code ec = proto::decode_request(payload, req);
  if (ec) {
    // Property 1.
    ZKWIRE_FUZZ_CHECK(proto::is_protocol_violation(ec));
    const bool unknown_type = payload.size() >= proto::request_header_size &&
                              proto::request_body_index(static_cast<proto::op_code>(
                                  static_cast<std::int32_t>(zkwire::fuzz::load_be32(payload, 4)))) == std::variant_npos;
    if (ec == proto::client_error::protocol_violation) {
      ZKWIRE_FUZZ_CHECK(unknown_type);
    } else {
      ZKWIRE_FUZZ_CHECK(!unknown_type);
      ZKWIRE_FUZZ_CHECK(zkwire::fuzz::is_complete_input_error(ec));
    }
    return 0;
  }

  // Property 2.
  const std::size_t index = proto::request_body_index(req.header.type);
  ZKWIRE_FUZZ_CHECK(index != std::variant_npos);
  ZKWIRE_FUZZ_CHECK(req.body.index() == index);

  // Property 3.
  const std::string encoded = encode_payload(req);
  ZKWIRE_FUZZ_CHECK(encoded.size() == payload.size());
  std::visit(
      [&](const auto& body) {
        using body_type = std::decay_t<decltype(body)>;
        if constexpr (std::is_same_v<body_type, proto::multi_request>) {
          check_multi(req.header.type, body);  // property 5
        } else if constexpr (proto::test::is_canonical<body_type>()) {
          ZKWIRE_FUZZ_CHECK(encoded == payload);
        } else {
          ZKWIRE_FUZZ_CHECK(zkwire::fuzz::differs_only_by_nulls(payload, encoded));
        }
      },
      req.body);
  proto::request again;
  ZKWIRE_FUZZ_CHECK(!proto::decode_request(encoded, again));
  ZKWIRE_FUZZ_CHECK(again == req);
  ZKWIRE_FUZZ_CHECK(encode_payload(again) == encoded);

  // Property 4.
  const std::error_code valid =
      std::visit([&](const auto& body) { return proto::validate_request(req.header.type, body); }, req.body);
  std::string frame = "pre";
  const std::error_code frame_ec = proto::encode_request_frame(frame, req);
  if (valid) {
    ZKWIRE_FUZZ_CHECK(valid == proto::client_error::invalid_argument);
    ZKWIRE_FUZZ_CHECK(frame_ec == proto::client_error::invalid_argument);
    ZKWIRE_FUZZ_CHECK(frame == "pre");
  } else if (encoded.size() > proto::default_max_request_size) {
    ZKWIRE_FUZZ_CHECK(frame_ec == proto::client_error::request_too_large);
    ZKWIRE_FUZZ_CHECK(frame == "pre");
  } else {
    ZKWIRE_FUZZ_CHECK(!frame_ec);
    ZKWIRE_FUZZ_CHECK(frame == "pre" + zkwire::fuzz::be32(static_cast<std::uint32_t>(encoded.size())) + encoded);
  }
  // The same request cannot be squeezed into a frame limit below its size.
  if (!valid && !encoded.empty()) {
    std::string small = "pre";
    ZKWIRE_FUZZ_CHECK(proto::encode_request_frame(small, req, encoded.size() - 1) ==
                      proto::client_error::request_too_large);
    ZKWIRE_FUZZ_CHECK(small == "pre");
  }
  return 0;
}
