// Parsing /zookeeper/config and the rebalancing choice of ensemble_config.hpp.

#include "zkwire/client/ensemble_config.hpp"

#include <algorithm>
#include <charconv>
#include <utility>

#include "text_fields.hpp"
#include "zkwire/client/errors.hpp"

namespace zkwire {
namespace {

// The configuration's lines may end in "\r\n".
std::string_view trim_line(std::string_view s) { return detail::trim(s, " \t\r"); }

bool parse_port(std::string_view text, std::uint16_t& port) {
  const auto parsed = detail::parse_port(text);
  if (parsed) port = *parsed;
  return parsed.has_value();
}

// Splits "host:rest" where host may be "[v6]"; returns false on an unterminated bracket or a missing ':'.
bool split_host(std::string_view text, std::string_view& host, std::string_view& rest) {
  if (text.starts_with('[')) {
    const auto close = text.find(']');
    if (close == std::string_view::npos || close + 1 >= text.size() || text[close + 1] != ':') return false;
    host = text.substr(1, close - 1);
    rest = text.substr(close + 2);
  } else {
    const auto colon = text.find(':');
    if (colon == std::string_view::npos) return false;
    host = text.substr(0, colon);
    rest = text.substr(colon + 1);
  }
  return !host.empty();
}

bool is_wildcard(std::string_view host) {
  return host.empty() || host == "0.0.0.0" || host == "::" || host == "0:0:0:0:0:0:0:0";
}

// "server.N" value: host:quorum:election[:role][;[client host:]client port]. Empty result: fine.
std::string parse_member(std::string_view value, ensemble_member& m) {
  std::string_view server = value;
  std::optional<std::string_view> client;
  if (const auto semi = value.find(';'); semi != std::string_view::npos) {
    server = trim_line(value.substr(0, semi));
    client = trim_line(value.substr(semi + 1));
  }
  std::string_view host;
  std::string_view rest;
  if (!split_host(server, host, rest)) return "expected host:quorumPort:electionPort";
  const auto colon = rest.find(':');
  if (colon == std::string_view::npos) return "expected host:quorumPort:electionPort";
  if (!parse_port(rest.substr(0, colon), m.quorum.port)) return "bad quorum port";
  m.quorum.host = std::string(host);
  rest = rest.substr(colon + 1);
  const auto role_colon = rest.find(':');
  if (!parse_port(rest.substr(0, role_colon), m.election_port)) return "bad election port";
  if (role_colon != std::string_view::npos) {
    const std::string_view role = rest.substr(role_colon + 1);
    if (role != "participant" && role != "observer") return "unknown role (expected participant or observer)";
    m.role = std::string(role);
  }
  if (client && !client->empty()) {
    host_port c;
    std::string_view client_host;
    std::string_view port = *client;
    if (client->find(':') != std::string_view::npos || client->starts_with('[')) {
      if (!split_host(*client, client_host, port)) return "bad client address";
    }
    if (!parse_port(port, c.port)) return "bad client port";
    c.host = is_wildcard(client_host) ? m.quorum.host : std::string(client_host);
    m.client = std::move(c);
  }
  return {};
}

bool parse_id(std::string_view text, std::int64_t& id) {
  const auto* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, id);
  return !text.empty() && ec == std::errc{} && ptr == end && id >= 0;
}

}  // namespace

std::vector<host_port> ensemble_config::client_hosts() const {
  std::vector<host_port> hosts;
  for (const auto& m : members) {
    if (m.client) hosts.push_back(*m.client);
  }
  return hosts;
}

std::error_code parse_ensemble_config(std::string_view text, ensemble_config& out, std::string* reason) {
  ensemble_config config;
  std::size_t line_number = 0;
  const auto fail = [&](std::string_view line, const std::string& why) {
    if (reason != nullptr)
      *reason = "line " + std::to_string(line_number) + ": " + why + " in '" + std::string(line) + "'";
    return make_error_code(client_errc::invalid_ensemble_config);
  };
  while (!text.empty()) {
    ++line_number;
    const auto newline = text.find('\n');
    const std::string_view line = trim_line(text.substr(0, newline));
    text = newline == std::string_view::npos ? std::string_view{} : text.substr(newline + 1);
    if (line.empty()) continue;
    const auto eq = line.find('=');
    if (eq == std::string_view::npos) return fail(line, "expected key=value");
    const std::string_view key = trim_line(line.substr(0, eq));
    const std::string_view value = trim_line(line.substr(eq + 1));
    if (key == "version") {
      std::int64_t version = 0;
      const auto* end = value.data() + value.size();
      const auto [ptr, ec] = std::from_chars(value.data(), end, version, 16);
      if (value.empty() || ec != std::errc{} || ptr != end) return fail(line, "bad hexadecimal version");
      config.version = version;
    } else if (key.starts_with("server.")) {
      ensemble_member m;
      if (!parse_id(key.substr(7), m.id)) return fail(line, "bad server id");
      if (const std::string why = parse_member(value, m); !why.empty()) return fail(line, why);
      const bool duplicate =
          std::any_of(config.members.begin(), config.members.end(), [&](const auto& o) { return o.id == m.id; });
      if (duplicate) return fail(line, "duplicate server id");
      config.members.push_back(std::move(m));
    }
  }
  out = std::move(config);
  return {};
}

rebalance_choice choose_host_after_reconfig(const std::vector<host_port>& old_hosts,
                                            const std::vector<host_port>& new_hosts,
                                            const std::optional<host_port>& current, std::mt19937_64& rng) {
  rebalance_choice choice;
  if (new_hosts.empty()) return choice;
  if (current) {
    const auto it = std::find(new_hosts.begin(), new_hosts.end(), *current);
    if (it != new_hosts.end()) choice.current = static_cast<std::size_t>(it - new_hosts.begin());
  } else {
    return choice;  // not connected: the next attempt picks from the new list anyway
  }
  std::vector<std::size_t> kept;
  std::vector<std::size_t> added;
  for (std::size_t i = 0; i < new_hosts.size(); ++i) {
    const bool was_there = std::find(old_hosts.begin(), old_hosts.end(), new_hosts[i]) != old_hosts.end();
    (was_there ? kept : added).push_back(i);
  }
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  const auto pick = [&](const std::vector<std::size_t>& group) {
    std::uniform_int_distribution<std::size_t> index(0, group.size() - 1);
    return group[index(rng)];
  };
  const auto n_old = static_cast<double>(old_hosts.size());
  const auto n_new = static_cast<double>(new_hosts.size());
  if (new_hosts.size() > old_hosts.size()) {
    // More hosts means some were added (unless the list repeats a host): they must get their share of clients.
    if (!choice.current) {
      choice.move_to = pick(added.empty() ? kept : added);
    } else if (!added.empty() && unit(rng) < 1.0 - n_old / n_new) {
      choice.move_to = pick(added);
    }
    return choice;
  }
  if (choice.current) return choice;  // fewer or as many: the current member takes more load, stay
  const auto n_kept = static_cast<double>(kept.size());
  double p_kept = 1.0;
  if (old_hosts.size() > kept.size()) p_kept = n_kept * (n_old - n_new) / (n_new * (n_old - n_kept));
  if (kept.empty()) p_kept = 0.0;
  if (added.empty()) p_kept = 1.0;
  choice.move_to = pick(unit(rng) < p_kept ? kept : added);
  return choice;
}

}  // namespace zkwire
