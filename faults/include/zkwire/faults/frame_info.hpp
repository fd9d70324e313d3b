#pragma once
// What the proxy knows about one frame, and the per-connection tracker that works it out from the bytes
// (docs/protocol.md#handshake, docs/protocol.md#special-xids): the first frame each way is the handshake (no header);
// later requests carry xid + opcode (+ path for most ops), replies carry xid/zxid/err and get their opcode and path
// from the request with the same xid; xid -1 is a notification (path from its WatcherEvent), -2 a ping, -4 auth.
//
// Thread safety: none; one tracker per connection, used from the connection's strand.

#include <cstddef>
#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <string_view>

namespace zkwire::faults {

enum class rule_direction {
  any,      // requests and replies
  request,  // client to server
  reply,    // server to client
  accept,   // a new client connection (before anything is read from it)
};
std::string_view direction_name(rule_direction d) noexcept;

struct frame_info {
  rule_direction direction = rule_direction::request;  // request, reply or accept
  std::uint64_t connection = 0;                        // the proxy's connection id, from 1
  std::uint32_t member = 0;                            // proxy_options::member (0: a proxy outside an ensemble)
  bool handshake = false;                              // ConnectRequest / ConnectResponse
  // "connect" for the handshake, the opcode name for requests and for the replies matched to one ("getData",
  // "create2", "ping", "auth", "notification"), "unknown" for a reply whose xid matches no request, or for a
  // frame too short for its header.
  std::string op;
  std::optional<std::int32_t> xid;         // absent for the handshake and for frames too short
  std::optional<std::int64_t> zxid;        // replies
  std::optional<std::int32_t> err;         // replies
  std::string path;                        // the request's first path ("" if it has none); notifications: the event's
  std::optional<std::int64_t> session_id;  // handshake frames
  std::optional<std::int32_t> timeout;     // handshake frames: requested / negotiated session timeout
  std::size_t length = 0;                  // payload bytes, without the 4-byte length prefix
};

// Recognises the frames of one connection in order. Feed each direction's frames in the order they arrive.
class frame_tracker {
 public:
  explicit frame_tracker(std::uint64_t connection) : connection_(connection) {}

  // A whole request payload (without its length prefix). Remembers xid -> (op, path) for the reply.
  frame_info on_request(std::string_view payload);
  // A whole reply payload. Forgets the request it answers.
  frame_info on_reply(std::string_view payload);

  // Requests forwarded and not answered yet (bounded by what the client pipelines).
  [[nodiscard]] std::size_t outstanding() const noexcept { return sent_.size(); }

 private:
  struct sent_request {
    std::int32_t xid = 0;
    std::string op;
    std::string path;
  };

  std::uint64_t connection_;
  bool request_handshake_done_ = false;
  bool reply_handshake_done_ = false;
  std::deque<sent_request> sent_;  // in send order: replies normally answer the front one
};

// One JSON object (no newline) describing a frame and what was done to it, for the proxy's log:
// {"t_us":..,"conn":..,["member":2,]"dir":"reply","op":"create2","xid":5,"zxid":..,"err":0,"path":"/a","len":..,
//  "rule":1,"action":"drop-then-rst"}. `monotonic_us` is a steady-clock time; rule 0 means no rule fired;
// "member" only for a proxy in an ensemble (member != 0).
std::string frame_log_line(std::int64_t monotonic_us, const frame_info& frame, std::uint64_t rule,
                           std::string_view action);

// A JSON string literal with the quotes; bytes that are not printable ASCII are escaped as \u00XX.
std::string json_quote(std::string_view text);

}  // namespace zkwire::faults
