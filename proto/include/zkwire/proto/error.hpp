#pragma once
// Errors as std::error_code, in two categories (docs/design.md#errors):
//  - "zookeeper": codes the server sends in ReplyHeader.err or multi results, with their wire values
//    (KeeperException.Code, docs/protocol.md#error-codes). A value missing from server_error still converts; its
//    message is "unknown ZooKeeper error N".
//  - "zkwire": conditions the client detects itself (connection loss, timeouts, malformed frames, bad arguments).
// Decoders may also return zkwire::jute errors (category "zkwire.jute") for malformed records; all of those mean
// the peer broke the protocol, see is_protocol_violation().
//
// Thread safety: the categories are immutable singletons; everything here may be used from any thread.

#include <cstdint>
#include <string_view>
#include <system_error>

namespace zkwire::proto {

enum class server_error : std::int32_t {
  system_error = -1,  // range marker; codes between -1 and -100 are system errors
  runtime_inconsistency = -2,
  data_inconsistency = -3,
  connection_loss = -4,
  marshalling_error = -5,
  unimplemented = -6,
  operation_timeout = -7,
  bad_arguments = -8,
  unknown_session = -12,
  new_config_no_quorum = -13,
  reconfig_in_progress = -14,
  api_error = -100,  // range marker; codes at or below -100 are API results
  no_node = -101,
  no_auth = -102,
  bad_version = -103,
  no_children_for_ephemerals = -108,
  node_exists = -110,
  not_empty = -111,
  session_expired = -112,
  invalid_callback = -113,
  invalid_acl = -114,
  auth_failed = -115,
  session_moved = -118,
  not_read_only = -119,
  ephemeral_on_local_session = -120,
  no_watcher = -121,
  request_timeout = -122,  // Java client-side; listed so a relay of it still gets a name
  reconfig_disabled = -123,
  session_closed_require_sasl_auth = -124,
  quota_exceeded = -125,
  throttled_op = -127,  // there is no -126
};

enum class client_error : int {
  connection_loss = 1,  // the connection dropped with the request in flight or queued: outcome unknown
  session_expired,      // the server refused to resume the session (timeOut 0 or another session id)
  closed,               // the client or session was closed locally
  operation_timeout,    // no reply in time: outcome unknown
  cancelled,            // the caller cancelled; the server may still apply a request already sent
  frame_too_large,      // an incoming frame longer than the configured maximum
  request_too_large,    // an outgoing request longer than the server accepts (jute.maxbuffer)
  protocol_violation,   // malformed or unexpected frame: xid mismatch, unexpected xid, bad length, unknown type
  truncated_frame,      // a complete frame ended in the middle of a record
  invalid_path,         // a path that ZooKeeper's path rules reject (see path.hpp)
  invalid_argument,     // an argument the protocol cannot carry (bad create mode, mixed multi, wrong body)
};

const std::error_category& server_category() noexcept;  // name "zookeeper"
const std::error_category& client_category() noexcept;  // name "zkwire"

inline std::error_code make_error_code(server_error e) noexcept { return {static_cast<int>(e), server_category()}; }
inline std::error_code make_error_code(client_error e) noexcept { return {static_cast<int>(e), client_category()}; }

// A wire err (ReplyHeader.err, a multi result's err) as an error_code: 0 is no error, anything else is in the
// "zookeeper" category with its wire value, known or not.
inline std::error_code error_from_wire(std::int32_t err) noexcept {
  if (err == 0) return {};
  return {static_cast<int>(err), server_category()};
}

// KeeperException.Code's name for a wire code ("NONODE", "OK" for 0), as the ZooKeeper CLI prints it in
// parentheses; "UNKNOWN" for a value not in the table.
std::string_view server_error_name(std::int32_t err) noexcept;

// The session is unusable; create a new one: server SESSIONEXPIRED, AUTHFAILED, SESSIONCLOSEDREQUIRESASLAUTH,
// client session_expired and closed.
bool is_session_fatal(const std::error_code& ec) noexcept;

// The request's outcome is unknown (it may or may not have been applied); read back or retry: server
// CONNECTIONLOSS and OPERATIONTIMEOUT, client connection_loss and operation_timeout.
bool is_connection_loss(const std::error_code& ec) noexcept;

// The peer sent bytes that break the protocol and the connection must be dropped: client protocol_violation,
// truncated_frame and frame_too_large, and every decoding error of the jute category.
bool is_protocol_violation(const std::error_code& ec) noexcept;

}  // namespace zkwire::proto

template <>
struct std::is_error_code_enum<zkwire::proto::server_error> : std::true_type {};
template <>
struct std::is_error_code_enum<zkwire::proto::client_error> : std::true_type {};
