#pragma once
// Errors as std::error_code, in two categories (docs/design.md#errors):
//  - "zookeeper" (server_category()): codes the server sends in ReplyHeader.err or multi results, with their wire
//    values (docs/protocol.md#error-codes). A value missing from server_error still converts; its
//    message is "unknown ZooKeeper error N".
//  - "zkwire.proto" (client_error_category()): client_error, what zkwire itself detects on the client side
//    (connection loss, timeouts, malformed frames, bad arguments), whatever layer reports it.
// Decoders may also return zkwire::jute errors (category "zkwire.jute") for malformed records; all of those mean
// the peer broke the protocol, see is_protocol_violation(). The Asio client adds a few of its own
// (zkwire::client_errc, category "zkwire.client", zkwire/client/errors.hpp).
//
// Conditions: callers decide on *what happened*, not on which category said it. Compare any error_code with a
// `condition` (`if (ec == condition::connection_loss)`): each one gathers the equivalent codes of every
// category, the table being:
//   connection_loss     the request's outcome is unknown (read back or retry): server CONNECTIONLOSS and
//                       OPERATIONTIMEOUT, client_error::connection_loss and operation_timeout
//   timeout             nothing came back in time: server OPERATIONTIMEOUT and REQUESTTIMEOUT,
//                       client_error::operation_timeout, client_errc::connect_timeout and host_not_found
//   session_ended       the session is unusable, create a new one: server SESSIONEXPIRED, AUTHFAILED,
//                       SESSIONCLOSEDREQUIRESASLAUTH, client_error::session_expired, closed, sasl_failed and
//                       sasl_exchange_failed
//   session_expired     server SESSIONEXPIRED, client_error::session_expired
//   cancelled           client_error::cancelled, recipes::lock_errc::cancelled, and std::errc::operation_canceled
//                       (Asio's operation_aborted)
//   protocol_violation  the peer broke the protocol, the connection is dropped: client_error::protocol_violation,
//                       truncated_frame and every decoding error of the jute category (not frame_too_large: a
//                       reply over the client's limit fails its own request only)
//   invalid_argument    the request was refused as given: server BADARGUMENTS, client_error::invalid_path and
//                       invalid_argument, client_errc::invalid_connect_string, recipes::lock_errc's
//                       invalid_lease_count, no_leases and no_directories
// Other server codes (NONODE, NODEEXISTS, BADVERSION, ...) are compared directly: `ec == server_error::no_node`.
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
  frame_too_large,      // a reply longer than the configured maximum: fails its request (or, for a frame that answers
                        // no request, the connection)
  request_too_large,    // an outgoing request longer than the server accepts (jute.maxbuffer)
  protocol_violation,   // malformed or unexpected frame: xid mismatch, unexpected xid, bad length, unknown type
  truncated_frame,      // a complete frame ended in the middle of a record
  invalid_path,         // a path that ZooKeeper's path rules reject (see path.hpp)
  invalid_argument,     // an argument the protocol cannot carry (bad create mode, mixed multi, wrong body)
  // SASL (docs/protocol.md#sasl); both end the session (state auth_failed).
  sasl_failed,           // the server rejected the SASL user name or password (AUTHFAILED to a sasl request)
  sasl_exchange_failed,  // the server's DIGEST-MD5 tokens were malformed or unsupported, or its rspauth was wrong
};

// What callers decide on; see the table above.
enum class condition : int {
  connection_loss = 1,
  timeout,
  session_ended,
  session_expired,
  cancelled,
  protocol_violation,
  invalid_argument,
};

const std::error_category& server_category() noexcept;        // name "zookeeper", server_error
const std::error_category& client_error_category() noexcept;  // name "zkwire.proto", client_error
const std::error_category& condition_category() noexcept;     // name "zkwire.condition", condition

inline std::error_code make_error_code(server_error e) noexcept { return {static_cast<int>(e), server_category()}; }
inline std::error_code make_error_code(client_error e) noexcept {
  return {static_cast<int>(e), client_error_category()};
}
inline std::error_condition make_error_condition(condition c) noexcept {
  return {static_cast<int>(c), condition_category()};
}

// A wire err (ReplyHeader.err, a multi result's err) as an error_code: 0 is no error, anything else is in the
// "zookeeper" category with its wire value, known or not.
inline std::error_code error_from_wire(std::int32_t err) noexcept {
  if (err == 0) return {};
  return {static_cast<int>(err), server_category()};
}

// Messages: those of zkwire's categories ("zookeeper", "zkwire.proto", "zkwire.client", "zkwire.recipes") say what
// happened, then what to do: "<summary>: <advice>", the server's with the code's name after the summary
// ("node does not exist (NONODE): create it or its parent first, or check the path"). error_summary() is the
// summary alone, for a one-line report that names the code itself (the CLI's error lines); for other categories it
// is the whole message.
std::string error_summary(const std::error_code& ec);

// ZooKeeper's name for a wire code ("NONODE", "OK" for 0, docs/protocol.md#error-codes), as the ZooKeeper CLI prints
// it in parentheses; "UNKNOWN" for a value not in the table.
std::string_view server_error_name(std::int32_t err) noexcept;

// Shorthands for the conditions, kept for existing callers:
// ec == condition::session_ended.
bool is_session_fatal(const std::error_code& ec) noexcept;
// ec == condition::connection_loss.
bool is_connection_loss(const std::error_code& ec) noexcept;
// ec == condition::protocol_violation.
bool is_protocol_violation(const std::error_code& ec) noexcept;

}  // namespace zkwire::proto

template <>
struct std::is_error_code_enum<zkwire::proto::server_error> : std::true_type {};
template <>
struct std::is_error_code_enum<zkwire::proto::client_error> : std::true_type {};
template <>
struct std::is_error_condition_enum<zkwire::proto::condition> : std::true_type {};
