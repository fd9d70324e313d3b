#include "zkwire/client/connect_string.hpp"

#include <string>

#include "text_fields.hpp"
#include "zkwire/client/errors.hpp"
#include "zkwire/proto/path.hpp"

namespace zkwire {
namespace {

using detail::trim;

std::error_code fail(std::string* reason, std::string text) {
  if (reason != nullptr) *reason = std::move(text);
  return client_errc::invalid_connect_string;
}

bool valid_host_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '.' || c == '_';
}

// Parses one "host[:port]" entry; `where` names it in messages.
std::error_code parse_host(std::string_view entry, host_port& out, const std::string& where, std::string* reason) {
  std::string_view port_text;
  bool has_port = false;
  if (entry.empty()) return fail(reason, where + ": empty host");
  if (entry.front() == '[') {
    const auto close = entry.find(']');
    if (close == std::string_view::npos) return fail(reason, where + ": '[' without ']'");
    out.host = std::string(entry.substr(1, close - 1));
    if (out.host.empty()) return fail(reason, where + ": empty IPv6 address");
    const auto percent = out.host.find('%');  // a zone index ("%eth0") may follow the address
    for (std::size_t i = 0; i < out.host.size(); ++i) {
      const char c = out.host[i];
      const bool hex = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
      const bool ok = i < percent ? (hex || c == ':' || c == '.') : (i == percent || valid_host_char(c));
      if (!ok) return fail(reason, where + ": invalid IPv6 address");
    }
    const auto rest = entry.substr(close + 1);
    if (!rest.empty()) {
      if (rest.front() != ':') return fail(reason, where + ": expected ':port' after ']'");
      port_text = rest.substr(1);
      has_port = true;
    }
  } else {
    const auto colon = entry.find(':');
    if (colon != std::string_view::npos && entry.find(':', colon + 1) != std::string_view::npos) {
      return fail(reason, where + ": an IPv6 address needs brackets, e.g. [::1]:2181");
    }
    out.host = std::string(entry.substr(0, colon));
    if (out.host.empty()) return fail(reason, where + ": empty host");
    for (const char c : out.host) {
      if (!valid_host_char(c)) return fail(reason, where + ": invalid character in host name");
    }
    if (colon != std::string_view::npos) {
      port_text = entry.substr(colon + 1);
      has_port = true;
    }
  }
  out.port = default_port;
  if (has_port) {
    const auto port = detail::parse_port(port_text);
    if (!port) return fail(reason, where + ": port must be 1..65535");
    out.port = *port;
  }
  return {};
}

}  // namespace

std::error_code parse_connect_string(std::string_view text, connect_string& out, std::string* reason) {
  out = {};
  const auto slash = text.find('/');
  std::string_view hosts = text.substr(0, slash);
  if (slash != std::string_view::npos) {
    const std::string_view chroot = trim(text.substr(slash));
    if (chroot != "/") {
      std::string why;
      if (auto ec = proto::validate_path(chroot, false, &why)) {
        if (reason != nullptr) *reason = "chroot '" + std::string(chroot) + "': " + why;
        return ec;
      }
      out.chroot = std::string(chroot);
    }
  }
  if (trim(hosts).empty()) return fail(reason, "no host (expected host:port[,host:port...][/chroot])");
  std::size_t index = 0;
  while (true) {
    const auto comma = hosts.find(',');
    const std::string_view raw = hosts.substr(0, comma);
    const std::string_view entry = trim(raw);
    ++index;
    const std::string where = "host " + std::to_string(index) + " ('" + std::string(entry) + "')";
    host_port hp;
    if (auto ec = parse_host(entry, hp, where, reason)) return ec;
    out.hosts.push_back(std::move(hp));
    if (comma == std::string_view::npos) break;
    hosts.remove_prefix(comma + 1);
  }
  return {};
}

std::string to_string(const host_port& host) {
  if (host.host.find(':') != std::string::npos) return "[" + host.host + "]:" + std::to_string(host.port);
  return host.host + ":" + std::to_string(host.port);
}

}  // namespace zkwire
