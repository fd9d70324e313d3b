#include "errors.hpp"

#include "zkwire/client/errors.hpp"
#include "zkwire/client/tls_options.hpp"
#include "zkwire/proto/error.hpp"

namespace zkwire::cli {
namespace {

using proto::client_error;
using proto::server_error;

bool is_server(const std::error_code& ec) noexcept { return ec.category() == proto::server_category(); }
bool is_engine(const std::error_code& ec) noexcept { return ec.category() == proto::client_error_category(); }
bool is_driver(const std::error_code& ec) noexcept { return ec.category() == zkwire::client_errc_category(); }

}  // namespace

int exit_status_for(const std::error_code& ec) noexcept {
  if (!ec) return exit_ok;
  if (ec == server_error::no_node) return exit_false;
  if (ec == client_error::invalid_path || ec == client_error::invalid_argument ||
      ec == client_errc::invalid_connect_string) {
    return exit_usage;
  }
  if (proto::is_session_fatal(ec) || proto::is_connection_loss(ec) || proto::is_protocol_violation(ec)) {
    return exit_no_session;
  }
  if (ec == client_errc::connect_timeout) return exit_no_session;
  // The remaining server codes are refusals (NODEEXISTS, BADVERSION, NOTEMPTY, NOAUTH, ...).
  if (is_server(ec)) return exit_refused;
  // A request the client will not send (larger than the server's jute.maxbuffer) is refused before the server.
  if (ec == client_error::request_too_large) return exit_refused;
  return exit_no_session;
}

std::string error_name(const std::error_code& ec) {
  if (is_server(ec)) return std::string(proto::server_error_name(ec.value()));
  if (is_engine(ec)) {
    switch (static_cast<client_error>(ec.value())) {
      case client_error::connection_loss:
        return "CONNECTIONLOSS";
      case client_error::session_expired:
      case client_error::closed:  // the Java client reports requests on a closed handle as expired
        return "SESSIONEXPIRED";
      case client_error::operation_timeout:
      case client_error::cancelled:
        return "OPERATIONTIMEOUT";
      case client_error::frame_too_large:
      case client_error::protocol_violation:
      case client_error::truncated_frame:
        return "CONNECTIONLOSS";  // the connection is dropped; the Java client reports connection loss
      case client_error::request_too_large:
        return "MARSHALLINGERROR";
      case client_error::invalid_path:
      case client_error::invalid_argument:
        return "BADARGUMENTS";
      case client_error::sasl_failed:
      case client_error::sasl_exchange_failed:
        return "AUTHFAILED";  // the Java client's state and error for a failed SASL login
    }
    return "SYSTEMERROR";
  }
  if (is_driver(ec)) {
    switch (static_cast<client_errc>(ec.value())) {
      case client_errc::connect_timeout:
        return "CONNECTIONLOSS";
      case client_errc::invalid_connect_string:
        return "BADARGUMENTS";
      case client_errc::already_waiting:
      case client_errc::no_watch:
        return "APIERROR";
      case client_errc::read_write_server_found:
      case client_errc::ensemble_changed:
        return "CONNECTIONLOSS";  // only ever a state change's reason: the connection was left on purpose
      case client_errc::invalid_ensemble_config:
        return "MARSHALLINGERROR";  // the server's configuration text could not be read
    }
    return "SYSTEMERROR";
  }
  if (proto::is_protocol_violation(ec)) return "CONNECTIONLOSS";  // jute decoding errors
  if (ec.category() == tls_category()) return "CONNECTIONLOSS";   // no connection: the handshake failed
  return "SYSTEMERROR";
}

std::string describe(const std::error_code& ec, std::string_view command) {
  if (is_server(ec)) {
    switch (static_cast<server_error>(ec.value())) {
      case server_error::no_node:
        return command == "create" ? "parent does not exist" : "node does not exist";
      case server_error::node_exists:
        return "node already exists";
      case server_error::bad_version:
        return "version does not match";
      case server_error::not_empty:
        return "node has children";
      case server_error::no_auth:
        return "not authorized";
      case server_error::no_children_for_ephemerals:
        return "ephemeral nodes cannot have children";
      case server_error::invalid_acl:
        return "invalid ACL";
      case server_error::bad_arguments:
        return "the server rejected the arguments";
      case server_error::unimplemented:
        return "not supported by the server (TTL nodes need zookeeper.extendedTypesEnabled=true)";
      case server_error::session_expired:
        return "session expired";
      case server_error::auth_failed:
        return "authentication failed";
      case server_error::connection_loss:
        return "connection lost, outcome unknown";
      case server_error::operation_timeout:
        return "operation timed out, outcome unknown";
      case server_error::quota_exceeded:
        return "quota exceeded";
      case server_error::throttled_op:
        return "the server is throttling requests";
      case server_error::not_read_only:
        return "the server is read-only";
      default:
        break;
    }
    return "the server refused the operation";
  }
  if (ec == client_errc::connect_timeout) return "could not connect within the connect timeout";
  if (ec == client_error::connection_loss) return "connection lost and not re-established, outcome unknown";
  if (ec == client_error::session_expired) return "session expired";
  if (ec == client_error::closed) return "session closed";
  if (ec == client_error::operation_timeout) return "no reply in time, outcome unknown";
  if (ec == client_error::request_too_large) return "request larger than the server accepts (jute.maxbuffer)";
  if (ec == client_error::invalid_path) return "invalid path";
  if (ec == client_error::sasl_failed) return "SASL authentication failed: wrong user name or password";
  if (ec == client_error::sasl_exchange_failed) {
    return "SASL authentication failed: the server's DIGEST-MD5 exchange was malformed or did not prove it knows "
           "the password";
  }
  if (proto::is_protocol_violation(ec)) return "protocol error from the server, connection dropped";
  return ec.message();
}

std::string error_line(std::string_view command, std::string_view subject, const std::error_code& ec) {
  std::string line = "zkwire: ";
  line += command;
  line += ": ";
  if (!subject.empty()) {
    line += subject;
    line += ": ";
  }
  line += describe(ec, command);
  line += " (";
  line += error_name(ec);
  line += ")";
  return line;
}

}  // namespace zkwire::cli
