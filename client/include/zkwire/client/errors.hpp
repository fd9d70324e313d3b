#pragma once
// Errors of the client layer (category "zkwire.client"). Operation results use proto's two categories
// (zkwire/proto/error.hpp): "zookeeper" for server codes with their wire values and "zkwire" for conditions the
// session engine detects (connection loss, cancelled, closed, expired, invalid path, ...). The codes here are the
// few conditions only the Asio driver knows about.
//
// Thread safety: the category is an immutable singleton; use it from any thread.

#include <system_error>

#include "zkwire/proto/error.hpp"

namespace zkwire {

enum class client_errc : int {
  connect_timeout = 1,     // async_connect: no session was established within client_options::connect_timeout
  invalid_connect_string,  // the connect string could not be parsed (the exception's what() says where)
  already_waiting,         // watch::async_wait while another wait on the same watch is pending
  no_watch,                // watch::async_wait on a watch that was never armed (default-constructed, or the
                           // operation that would have armed it failed)
};

const std::error_category& client_category() noexcept;  // name "zkwire.client"

inline std::error_code make_error_code(client_errc e) noexcept { return {static_cast<int>(e), client_category()}; }

// Re-exported helpers of the protocol layer, for callers that only include the client headers.
using proto::client_error;
using proto::is_connection_loss;
using proto::is_session_fatal;
using proto::server_error;

}  // namespace zkwire

template <>
struct std::is_error_code_enum<zkwire::client_errc> : std::true_type {};
