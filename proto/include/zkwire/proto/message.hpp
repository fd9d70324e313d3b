#pragma once
// Whole messages: a frame is [int32 len][payload]; a request payload is RequestHeader + body, a reply payload is
// ReplyHeader + body (docs/protocol.md#framing, docs/protocol.md#headers-and-xids). The connect handshake is in
// connect.hpp, stream splitting in frame_reader.hpp.
//
// Decoder entry points (one per family; fuzz targets and golden tests start here):
//   decode_connect_response()  connect.hpp       first server frame
//   decode_reply()             here              any later server frame, body chosen by the request's opcode
//   decode_notification()      here              a watch notification frame (xid -1)
//   decode_multi_response()    multi.hpp         a multi/multiRead reply body
//   frame_reader               frame_reader.hpp  the byte stream
// All take complete payloads: running out of bytes is client_error::truncated_frame, other malformed input a
// jute::error; is_protocol_violation() is true for all of them. They never throw except std::bad_alloc, and never
// allocate more than the input's size justifies.
//
// Thread safety: free functions over caller-owned values; no shared state.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <system_error>
#include <variant>

#include "zkwire/jute/limits.hpp"
#include "zkwire/jute/reader.hpp"
#include "zkwire/jute/writer.hpp"
#include "zkwire/proto/codec.hpp"
#include "zkwire/proto/detail/variant.hpp"
#include "zkwire/proto/error.hpp"
#include "zkwire/proto/headers.hpp"
#include "zkwire/proto/multi.hpp"
#include "zkwire/proto/opcodes.hpp"
#include "zkwire/proto/requests.hpp"
#include "zkwire/proto/responses.hpp"
#include "zkwire/proto/watches.hpp"

namespace zkwire::proto {

// Every request body. One type can serve several opcodes (create_request: create, create2, createContainer;
// multi_request: multi, multiRead; no_body: ping, closeSession, whoAmI), so the opcode travels separately.
using request_body =
    std::variant<no_body, create_request, create_ttl_request, delete_request, exists_request, get_data_request,
                 set_data_request, get_acl_request, set_acl_request, get_children_request, get_children2_request,
                 sync_request, check_version_request, multi_request, reconfig_request, check_watches_request,
                 remove_watches_request, auth_packet, set_watches, set_watches2, add_watch_request,
                 get_ephemerals_request, get_all_children_number_request, get_sasl_request>;

struct request {
  request_header header;
  request_body body;

  bool operator==(const request&) const = default;
};

// Every successful reply body; no_body for replies without one and for every reply whose err is not 0.
using response_body =
    std::variant<no_body, create_response, create2_response, exists_response, get_data_response, set_data_response,
                 get_acl_response, set_acl_response, get_children_response, get_children2_response, sync_response,
                 multi_response, get_ephemerals_response, get_all_children_number_response, who_am_i_response,
                 set_sasl_response, error_response, watcher_event>;

struct reply {
  reply_header header;
  response_body body;

  bool operator==(const reply&) const = default;
};

// The request_body alternative `op` is sent with, or std::variant_npos for an opcode a client never sends
// (notification, error, createSession, deleteContainer, unknown values).
std::size_t request_body_index(op_code op) noexcept;
// The response_body alternative a successful reply to `op` carries (op_code::notification: watcher_event), or
// std::variant_npos. Examples: exists -> exists_response, reconfig -> get_data_response, addWatch -> error_response
// (a 4-byte body), delete/check/ping/auth/setWatches/closeSession -> no_body.
std::size_t response_body_index(op_code op) noexcept;

// The server drops, without a reply, any frame whose length exceeds its jute.maxbuffer (default 0xfffff).
inline constexpr std::size_t default_max_request_size = jute::server_max_buffer;

// Checks beyond the encoding that catch requests the server would reject or misinterpret: create ops must pass
// is_valid_create() (so create2 with create_mode::container, which silently makes a plain node, is refused), and
// multi requests must pass validate(). Everything else is accepted.
std::error_code validate_request(op_code op, const create_request& body) noexcept;
std::error_code validate_request(op_code op, const create_ttl_request& body) noexcept;
std::error_code validate_request(op_code op, const multi_request& body) noexcept;
template <class Body>
std::error_code validate_request(op_code /*op*/, const Body& /*body*/) noexcept {
  return {};
}

// Appends the request frame [len][RequestHeader{xid, op}][body] to `out`, reusing its capacity (clear the string
// between batches and no allocation happens once it has grown). Errors, with `out` left as it was:
//   client_error::invalid_argument   `body` is not the body of `op` (request_body_index), or validate_request fails
//   client_error::request_too_large  the payload would exceed max_frame_size (the length prefix is not counted)
// Ping: encode_request_frame(out, special_xid::ping, op_code::ping, no_body{}) is the 12-byte frame.
template <class Body>
std::error_code encode_request_frame(std::string& out, std::int32_t xid, op_code op, const Body& body,
                                     std::size_t max_frame_size = default_max_request_size) {
  if (request_body_index(op) != detail::index_of_v<Body, request_body>) return client_error::invalid_argument;
  if (auto ec = validate_request(op, body)) return ec;
  const std::size_t start = out.size();
  jute::writer w(out, max_frame_size > jute::max_wire_length ? jute::max_wire_length + 4 : max_frame_size + 4);
  const std::size_t prefix = w.begin_length_prefix();
  encode(w, request_header{xid, op});
  encode(w, body);
  w.end_length_prefix(prefix);
  if (w.ok()) return {};
  out.resize(start);
  return w.error() == jute::error::value_too_large ? client_error::request_too_large : client_error::invalid_argument;
}

// The same for a request held in the variant.
std::error_code encode_request_frame(std::string& out, const request& req,
                                     std::size_t max_frame_size = default_max_request_size);

// Appends [len][record] for any record, without a header: the ConnectResponse of a fake server, or a hand-built
// frame in tests. `max_frame_size` bounds the payload; on error `out` is unchanged and the writer's error returned.
template <class T>
std::error_code encode_frame(std::string& out, const T& record, std::size_t max_frame_size = jute::max_wire_length) {
  const std::size_t start = out.size();
  jute::writer w(out, max_frame_size > jute::max_wire_length ? jute::max_wire_length + 4 : max_frame_size + 4);
  const std::size_t prefix = w.begin_length_prefix();
  encode(w, record);
  w.end_length_prefix(prefix);
  if (!w.ok()) out.resize(start);
  return w.error();
}

// Appends a reply frame [len][ReplyHeader][body], for fake servers and tests. Pass no_body{} with err != 0.
template <class Body>
std::error_code encode_reply_frame(std::string& out, const reply_header& header, const Body& body) {
  const std::size_t start = out.size();
  jute::writer w(out);
  const std::size_t prefix = w.begin_length_prefix();
  encode(w, header);
  encode(w, body);
  w.end_length_prefix(prefix);
  if (!w.ok()) out.resize(start);
  return w.error();
}
std::error_code encode_reply_frame(std::string& out, const reply& rep);

// Reads just the ReplyHeader at the start of a reply payload, ignoring what follows: enough to route the frame
// (xid -1 notification, -2 ping, -4 auth, else the head of the FIFO of sent requests; see special_xid_op()).
std::error_code decode_reply_header(std::string_view payload, reply_header& out);

// Decodes a whole reply payload, choosing the body by `op`, the opcode of the request it answers (for xid -1 pass
// op_code::notification). When header.err is 0 the body must use every remaining byte; when it is not, the body is
// no_body and any trailing bytes are ignored (the server may attach some). The returned error is about decoding
// only: a server error is reported in out.header.err (see error_from_wire()), with a success return.
// client_error::invalid_argument if `op` has no reply (response_body_index() is variant_npos).
std::error_code decode_reply(std::string_view payload, op_code op, reply& out);

// The same with the body type known statically: `body` is written only when header.err is 0.
template <class Body>
std::error_code decode_reply(std::string_view payload, reply_header& header, Body& body) {
  jute::reader r(payload, payload.size());
  decode(r, header);
  if (!r.ok()) return complete_input_error(r.error());
  if (header.err != 0) return {};
  decode(r, body);
  return complete_input_error(r.finish());
}

// Decodes a notification payload (ReplyHeader + WatcherEvent). client_error::protocol_violation unless the header
// has xid -1 and err 0.
std::error_code decode_notification(std::string_view payload, watcher_event& out);

// The server side: decodes a request payload (RequestHeader + body chosen by its type), for proxies and fake
// servers. client_error::protocol_violation for a type a client never sends.
std::error_code decode_request(std::string_view payload, request& out);

}  // namespace zkwire::proto
