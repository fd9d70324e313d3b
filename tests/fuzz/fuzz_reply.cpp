// fuzz_reply: decode_reply(payload, op), the decoder of every server frame after the handshake.
//
// Input: byte 0 chooses the opcode of the request the reply answers (0xff: the next 4 bytes are a raw int32, so
// unknown opcodes are covered too; otherwise one of the known opcodes), the rest is the reply payload
// (ReplyHeader + body, without the length prefix).
//
// Properties:
//  1. An opcode without a reply (response_body_index() is variant_npos) gives client_error::invalid_argument and
//     nothing else; any other failure is a documented complete-input error (truncated_frame or a decoding
//     jute::error) for which is_protocol_violation() holds.
//  2. The header agrees with decode_reply_header(), which succeeds exactly when 16 bytes are there.
//  3. err != 0: the body is no_body whatever follows the header (trailing bytes are ignored), and re-encoding gives
//     the 16 header bytes.
//  4. err == 0: the body is the alternative response_body_index(op) names. Re-encoding (encode_reply_frame) gives
//     a frame with a correct length prefix and a payload of the input's size that decodes to an equal reply and
//     re-encodes to itself. For canonical bodies (is_canonical(), derived from the record's description: no string
//     or vector at any depth) the bytes are the input's; otherwise they
//     differ only where a null string or vector (-1) was read as empty (written as 0). Multi replies are checked
//     for size and round trip only: the terminator header and an error result's header err are not kept.
//  5. The statically typed decode_reply(payload, header, body) agrees with the dynamic one: same error, same value.

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>

#include "described_records.hpp"
#include "fuzz_check.hpp"
#include "zkwire/proto/message.hpp"

namespace {

namespace proto = zkwire::proto;
using proto::op_code;

// A value of alternative `index` of Variant, default-constructed.
template <class Variant>
Variant make_alternative(std::size_t index) {
  Variant v;
  [&]<std::size_t... I>(std::index_sequence<I...>) {
    ((index == I ? static_cast<void>(v.template emplace<I>()) : static_cast<void>(0)), ...);
  }
  (std::make_index_sequence<std::variant_size_v<Variant>>{});
  return v;
}

std::string encode_reply(const proto::reply& rep) {
  std::string frame = "ab";  // encoders append: what was there stays
  ZKWIRE_FUZZ_CHECK(!proto::encode_reply_frame(frame, rep));
  ZKWIRE_FUZZ_CHECK(frame.size() >= 6 && frame.compare(0, 2, "ab") == 0);
  ZKWIRE_FUZZ_CHECK(zkwire::fuzz::load_be32(frame, 2) == frame.size() - 6);
  return frame.substr(6);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* bytes, std::size_t size) {
  zkwire::fuzz::byte_source in(zkwire::fuzz::as_bytes(bytes, size));
  const std::uint8_t selector = in.take_u8();
  const op_code op = selector == 0xff ? static_cast<op_code>(static_cast<std::int32_t>(in.take_u32()))
                                      : proto::all_op_codes[selector % proto::all_op_codes.size()];
  const std::string_view payload = in.rest();

  proto::reply rep;
  const std::error_code ec = proto::decode_reply(payload, op, rep);
  const std::size_t index = proto::response_body_index(op);

  // Property 1.
  if (index == std::variant_npos) {
    ZKWIRE_FUZZ_CHECK(ec == proto::client_error::invalid_argument);
    return 0;
  }
  if (ec) {
    ZKWIRE_FUZZ_CHECK(zkwire::fuzz::is_complete_input_error(ec));
    ZKWIRE_FUZZ_CHECK(proto::is_protocol_violation(ec));
  }

  // Property 2.
  proto::reply_header header;
  const std::error_code header_ec = proto::decode_reply_header(payload, header);
  ZKWIRE_FUZZ_CHECK(!header_ec == (payload.size() >= proto::reply_header_size));
  if (header_ec) {
    ZKWIRE_FUZZ_CHECK(header_ec == proto::client_error::truncated_frame);
    ZKWIRE_FUZZ_CHECK(ec == header_ec);
  }

  // Property 5: the typed decoder of the same body.
  auto typed = make_alternative<proto::response_body>(index);
  std::visit(
      [&](auto& body) {
        proto::reply_header typed_header;
        const std::error_code typed_ec = proto::decode_reply(payload, typed_header, body);
        ZKWIRE_FUZZ_CHECK(typed_ec == ec);
        if (!ec) {
          ZKWIRE_FUZZ_CHECK(typed_header == rep.header);
          if (rep.header.err == 0) ZKWIRE_FUZZ_CHECK(typed == rep.body);
        }
      },
      typed);

  if (ec) return 0;
  ZKWIRE_FUZZ_CHECK(rep.header == header);

  // Property 3.
  if (rep.header.err != 0) {
    ZKWIRE_FUZZ_CHECK(std::holds_alternative<proto::no_body>(rep.body));
    ZKWIRE_FUZZ_CHECK(encode_reply(rep) == payload.substr(0, proto::reply_header_size));
    return 0;
  }

  // Property 4.
  ZKWIRE_FUZZ_CHECK(rep.body.index() == index);
  const std::string encoded = encode_reply(rep);
  ZKWIRE_FUZZ_CHECK(encoded.size() == payload.size());
  std::visit(
      [&](const auto& body) {
        using body_type = std::decay_t<decltype(body)>;
        if constexpr (proto::test::is_canonical<body_type>()) {
          ZKWIRE_FUZZ_CHECK(encoded == payload);
        } else if constexpr (!std::is_same_v<body_type, proto::multi_response>) {
          ZKWIRE_FUZZ_CHECK(zkwire::fuzz::differs_only_by_nulls(payload, encoded));
        }
      },
      rep.body);
  proto::reply again;
  ZKWIRE_FUZZ_CHECK(!proto::decode_reply(encoded, op, again));
  ZKWIRE_FUZZ_CHECK(again == rep);
  ZKWIRE_FUZZ_CHECK(encode_reply(again) == encoded);
  return 0;
}
