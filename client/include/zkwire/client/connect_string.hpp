#pragma once
// Connect strings: "host:port,host:port/chroot" (docs/protocol.md#chroot).
//
//  - hosts are separated by ',' (spaces around an entry are ignored); at least one is required
//  - a host is a name ("zk1.example"), an IPv4 address ("10.0.0.1") or an IPv6 address in brackets
//    ("[::1]"); an unbracketed IPv6 address is rejected because its colons are ambiguous
//  - ":port" is optional (default_port, 2181) and must be 1..65535
//  - the chroot starts at the first '/' and must be a valid ZooKeeper path (proto::validate_path); "/" alone
//    means no chroot, and a trailing '/' is an error
//
// Pure functions, no shared state: usable from any thread.

#include <cstdint>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

namespace zkwire {

inline constexpr std::uint16_t default_port = 2181;

struct host_port {
  std::string host;  // without brackets for IPv6
  std::uint16_t port = default_port;

  bool operator==(const host_port&) const = default;
};

struct connect_string {
  std::vector<host_port> hosts;
  std::string chroot;  // "" when there is none; otherwise a validated path without a trailing '/'

  bool operator==(const connect_string&) const = default;
};

// Parses `text` into `out`. On failure returns client_errc::invalid_connect_string (or proto's
// client_error::invalid_path for a bad chroot), leaves `out` unspecified and, if `reason` is not null, stores a
// one-line explanation such as "host 2 ('a:99999'): port must be 1..65535".
std::error_code parse_connect_string(std::string_view text, connect_string& out, std::string* reason = nullptr);

// "host:port", with brackets around IPv6 addresses: "[::1]:2181".
std::string to_string(const host_port& host);

}  // namespace zkwire
