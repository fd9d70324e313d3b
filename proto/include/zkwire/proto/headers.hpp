#pragma once
// RequestHeader, ReplyHeader and MultiHeader (docs/protocol.md#headers-and-xids, docs/protocol.md#multi).

#include <cstddef>
#include <cstdint>

#include "zkwire/jute/reader.hpp"
#include "zkwire/jute/writer.hpp"
#include "zkwire/proto/opcodes.hpp"

namespace zkwire::proto {

// Starts every client frame except the ConnectRequest.
struct request_header {
  std::int32_t xid = 0;  // > 0 for normal requests; see special_xid for the reserved ones
  op_code type = op_code::notification;

  bool operator==(const request_header&) const = default;
};
inline constexpr std::size_t request_header_size = 8;

// Starts every server frame except the ConnectResponse.
struct reply_header {
  std::int32_t xid = 0;
  // The server's last processed zxid when it replied (-1 on notifications, 0 on auth replies). Advance
  // lastZxidSeen only from normal replies with zxid > 0.
  std::int64_t zxid = 0;
  // 0 or a server error (error_from_wire). A body follows only when it is 0; a failed multi still has err 0.
  std::int32_t err = 0;

  bool operator==(const reply_header&) const = default;
};
inline constexpr std::size_t reply_header_size = 16;

// Precedes each op of a multi request and each result of a multi response; {-1, true, -1} ends the list.
struct multi_header {
  op_code type = op_code::error;
  bool done = false;
  std::int32_t err = -1;  // -1 in requests; the op's result code in responses

  bool operator==(const multi_header&) const = default;
};
inline constexpr std::size_t multi_header_size = 9;

void encode(jute::writer& w, const request_header& v);
void decode(jute::reader& r, request_header& v);
void encode(jute::writer& w, const reply_header& v);
void decode(jute::reader& r, reply_header& v);
void encode(jute::writer& w, const multi_header& v);
void decode(jute::reader& r, multi_header& v);

}  // namespace zkwire::proto
