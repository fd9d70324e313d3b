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
  if (ec == client_errc::connect_timeout || ec == client_errc::host_not_found ||
      ec == client_errc::closed_before_handshake) {
    return exit_no_session;
  }
  // The remaining server codes are refusals (NODEEXISTS, BADVERSION, NOTEMPTY, NOAUTH, ...).
  if (is_server(ec)) return exit_refused;
  // A request the client will not send (larger than the server's jute.maxbuffer) is refused before the server.
  if (ec == client_error::request_too_large) return exit_refused;
  // A reply larger than --max-frame-size: the command cannot succeed as asked, and the session was fine.
  if (ec == client_error::frame_too_large) return exit_refused;
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
      case client_error::frame_too_large:  // the reply could not be read (taken), like a request that could not be sent
        return "MARSHALLINGERROR";
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
      case client_errc::host_not_found:
      case client_errc::closed_before_handshake:
        return "CONNECTIONLOSS";
      case client_errc::invalid_connect_string:
        return "BADARGUMENTS";
      case client_errc::already_waiting:
      case client_errc::no_watch:
        return "APIERROR";
      case client_errc::read_write_server_found:
      case client_errc::ensemble_changed:
      case client_errc::host_switched:
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

// The library's own summary of `ec` (proto::error_summary): one owner per message. Only what is the command line's
// own is said here.
std::string describe(const std::error_code& ec, std::string_view command) {
  if (ec == server_error::no_node && command == "create") return "parent does not exist";
  // A record the client could not decode (a jute error) is the server's protocol error, like a malformed frame.
  if (proto::is_protocol_violation(ec) && !is_engine(ec) && !is_server(ec) && !is_driver(ec)) {
    return proto::error_summary(client_error::protocol_violation);
  }
  return proto::error_summary(ec);
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
