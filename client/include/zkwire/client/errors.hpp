#pragma once
// Errors of the Asio client layer: client_errc (category "zkwire.client", client_errc_category()), the few
// conditions only this layer knows about. Operation results use proto's two categories (zkwire/proto/error.hpp):
// "zookeeper" for server codes with their wire values (server_error) and "zkwire.proto" for what zkwire detects on
// the client side (client_error: connection loss, cancelled, closed, expired, invalid path, ...).
//
// To decide on an error, compare it with a condition rather than listing codes of each category:
//   if (ec == zkwire::condition::connection_loss) ...   // outcome unknown: read back or retry
//   if (ec == zkwire::condition::session_ended) ...     // create a new session
// The table of conditions is in zkwire/proto/error.hpp; client_errc::connect_timeout (and host_not_found and
// closed_before_handshake, which name its cause) is a condition::timeout and client_errc::invalid_connect_string a
// condition::invalid_argument.
//
// Thread safety: the category is an immutable singleton; use it from any thread.

#include <system_error>

#include "zkwire/proto/error.hpp"

namespace zkwire {

enum class client_errc : int {
  connect_timeout = 1,      // async_connect: no session was established within client_options::connect_timeout
  invalid_connect_string,   // the connect string could not be parsed (the exception's what() says where)
  already_waiting,          // watch::async_wait while another wait on the same watch is pending
  no_watch,                 // watch::async_wait on a watch that was never armed (default-constructed, or the
                            // operation that would have armed it failed)
  invalid_ensemble_config,  // /zookeeper/config text that parse_ensemble_config rejects (ensemble_config.hpp)
  // Reasons of a state change to suspended (state_event::reason) when the client itself left a working
  // connection for another server; requests in flight then complete with client_error::connection_loss.
  read_write_server_found,  // connected read-only, the probe found a read-write server (docs/protocol.md#read-only)
  ensemble_changed,         // client_options::follow_config or client::set_hosts moved this client (rebalancing)
  host_switched,            // client::switch_host: the application asked for another server
  host_not_found,           // async_connect: no session within the connect timeout, and a host of the connect string
                            // could not be resolved to an address (the cause to fix, rather than connect_timeout)
  // async_connect: every host accepted the TCP connection and closed it before sending anything, round after round
  // (docs/protocol.md#closed-before-handshake). A server at its maxClientCnxns limit (connections from one client
  // address) does this; so does an ensemble member that is not serving (no quorum). Reported instead of
  // connect_timeout, and by a client that never had a session already after closed_before_handshake_rounds such
  // rounds (client.hpp, async_connect); the client keeps trying in the background.
  closed_before_handshake,
};

// Whole rounds of the host list in which every host closed the connection before sending anything, after which
// async_connect of a client that never had a session fails with client_errc::closed_before_handshake rather than
// waiting out its connect timeout (docs/protocol.md#closed-before-handshake).
inline constexpr int closed_before_handshake_rounds = 3;

const std::error_category& client_errc_category() noexcept;  // name "zkwire.client"

inline std::error_code make_error_code(client_errc e) noexcept { return {static_cast<int>(e), client_errc_category()}; }

// Re-exported names of the protocol layer, for callers that only include the client headers.
using proto::client_error;
using proto::condition;
using proto::is_connection_loss;
using proto::is_session_fatal;
using proto::server_error;

}  // namespace zkwire

template <>
struct std::is_error_code_enum<zkwire::client_errc> : std::true_type {};
