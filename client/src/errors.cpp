#include "zkwire/client/errors.hpp"

#include <string>

#include "zkwire/client/options.hpp"

namespace zkwire {
namespace {

class client_errc_category_impl final : public std::error_category {
 public:
  [[nodiscard]] const char* name() const noexcept override { return "zkwire.client"; }
  [[nodiscard]] std::string message(int value) const override {
    switch (static_cast<client_errc>(value)) {
      case client_errc::connect_timeout:
        return "could not connect within the connect timeout: no ZooKeeper session could be established; check the "
               "connect string and that a server is up and reachable";
      case client_errc::invalid_connect_string:
        return "invalid connect string: expected host:port[,host:port...][/chroot]";
      case client_errc::already_waiting:
        return "already waiting: another async_wait on this watch is pending";
      case client_errc::no_watch:
        return "no watch: the watch was never armed (default-constructed, or the read that would arm it failed)";
      case client_errc::invalid_ensemble_config:
        return "invalid ensemble configuration: expected server.<id>=<host>:<port>:<port>[:<role>][;[<host>:]<port>] "
               "and version=<hex> lines";
      case client_errc::read_write_server_found:
        return "read-write server found: the session moves there from its read-only server";
      case client_errc::ensemble_changed:
        return "ensemble changed: the session moves to another server of the new configuration";
      case client_errc::host_switched:
        return "host switched: the session moves to the server the application asked for";
      case client_errc::host_not_found:
        return "host name not found: a host of the connect string could not be resolved to an address, and no "
               "session was established within the connect timeout; check the name";
      case client_errc::closed_before_handshake:
        return "every server closed the connection before the handshake (likely the server's maxClientCnxns limit on "
               "connections from one client address; also a member without a quorum, or a TLS-only port reached "
               "without TLS): check the server's log for \"Too many connections\"; the client keeps trying";
    }
    return "unknown zkwire.client error " + std::to_string(value);
  }

  // This layer's share of the conditions (proto's condition category cannot know these codes).
  [[nodiscard]] bool equivalent(int value, const std::error_condition& cond) const noexcept override {
    switch (static_cast<client_errc>(value)) {
      case client_errc::connect_timeout:
      case client_errc::host_not_found:  // what the connect timeout ran into
      case client_errc::closed_before_handshake:
        return cond == condition::timeout;
      case client_errc::invalid_connect_string:
        return cond == condition::invalid_argument;
      case client_errc::already_waiting:
      case client_errc::no_watch:
      case client_errc::read_write_server_found:
      case client_errc::ensemble_changed:
      case client_errc::host_switched:
        break;
      case client_errc::invalid_ensemble_config:
        return cond == condition::protocol_violation;
    }
    return std::error_category::equivalent(value, cond);
  }
};

}  // namespace

const std::error_category& client_errc_category() noexcept {
  static const client_errc_category_impl category;
  return category;
}

std::string_view log_level_name(log_level level) noexcept {
  switch (level) {
    case log_level::debug:
      return "debug";
    case log_level::info:
      return "info";
    case log_level::warning:
      return "warning";
    case log_level::error:
      return "error";
  }
  return "unknown";
}

}  // namespace zkwire
