// fuzz_notification: decode_notification(payload), a watch event frame (ReplyHeader xid -1 + WatcherEvent).
// The input is the frame payload.
//
// Properties:
//  1. Errors: client_error::protocol_violation (a well-formed reply that is not a notification: xid != -1 or
//     err != 0) or a documented complete-input error; is_protocol_violation() holds for all of them.
//  2. Agreement with decode_reply(payload, op_code::notification): decode_notification succeeds exactly when that
//     succeeds with xid -1 and err 0, and then gives the same event. protocol_violation is returned exactly when
//     decode_reply succeeds (so the input was well-formed) but the header is not a notification's.
//  3. Re-encoding ReplyHeader + event gives the input, except that a null path (-1, read as empty) is written as an
//     empty one; event type and state are kept as sent, known enumerators or not. Decoding the re-encoding gives
//     the same event.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <variant>

#include "fuzz_check.hpp"
#include "zkwire/proto/message.hpp"

namespace proto = zkwire::proto;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* bytes, std::size_t size) {
  const std::string_view payload = zkwire::fuzz::as_bytes(bytes, size);

  proto::watcher_event event;
  const std::error_code ec = proto::decode_notification(payload, event);

  proto::reply rep;
  const std::error_code reply_ec = proto::decode_reply(payload, proto::op_code::notification, rep);
  const bool is_notification = !reply_ec && rep.header.xid == proto::special_xid::notification && rep.header.err == 0;

  // Properties 1 and 2.
  if (ec) {
    ZKWIRE_FUZZ_CHECK(proto::is_protocol_violation(ec));
    ZKWIRE_FUZZ_CHECK(!is_notification);
    if (ec == proto::client_error::protocol_violation) {
      ZKWIRE_FUZZ_CHECK(!reply_ec);
    } else {
      ZKWIRE_FUZZ_CHECK(zkwire::fuzz::is_complete_input_error(ec));
      ZKWIRE_FUZZ_CHECK(reply_ec == ec);
    }
    return 0;
  }
  ZKWIRE_FUZZ_CHECK(is_notification);
  ZKWIRE_FUZZ_CHECK(std::get<proto::watcher_event>(rep.body) == event);

  // Property 3.
  std::string frame;
  ZKWIRE_FUZZ_CHECK(!proto::encode_reply_frame(frame, rep.header, event));
  ZKWIRE_FUZZ_CHECK(frame.size() == payload.size() + 4);
  ZKWIRE_FUZZ_CHECK(zkwire::fuzz::load_be32(frame, 0) == payload.size());
  const std::string_view encoded = std::string_view(frame).substr(4);
  ZKWIRE_FUZZ_CHECK(zkwire::fuzz::differs_only_by_nulls(payload, encoded));
  proto::watcher_event again;
  ZKWIRE_FUZZ_CHECK(!proto::decode_notification(encoded, again));
  ZKWIRE_FUZZ_CHECK(again == event);
  return 0;
}
