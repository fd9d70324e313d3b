#pragma once
// The ensemble's dynamic configuration, as stored in /zookeeper/config and returned by client::async_get_config
// and async_reconfig (docs/protocol.md#dynamic-reconfiguration), and the choice a client following it makes when
// the member list changes (client_options::follow_config).
//
//   server.1=10.0.0.1:2888:3888:participant;10.0.0.1:2181
//   server.4=[::1]:2888:3888:observer;2181
//   version=100000000
//
// Each server line is `server.<id>=<host>:<quorum port>:<election port>[:<role>][;[<client host>:]<client port>]`.
// A member without the `;client` part serves no clients. A wildcard client address (0.0.0.0, ::, or none) means
// "every interface": the client then uses the member's quorum host. Blank lines and other keys (group.*,
// weight.*) are ignored.
//
// Thread safety: plain values and pure functions.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "zkwire/client/connect_string.hpp"

namespace zkwire {

struct ensemble_member {
  std::int64_t id = 0;  // the N of server.N (the member's myid)
  host_port quorum;     // host and quorum (peer) port
  std::uint16_t election_port = 0;
  std::string role = "participant";  // "participant" or "observer"
  std::optional<host_port> client;   // where clients connect; nullopt: no client port

  bool operator==(const ensemble_member&) const = default;
};

struct ensemble_config {
  std::vector<ensemble_member> members;  // in the order of the text
  std::optional<std::int64_t> version;   // `version=<hex>`: the zxid that made this configuration

  // The client addresses of the members that serve clients, in member order.
  [[nodiscard]] std::vector<host_port> client_hosts() const;

  bool operator==(const ensemble_config&) const = default;
};

// Parses the text. On failure returns client_errc::invalid_ensemble_config, leaves `out` unchanged and, when
// `reason` is given, says which line and why ("line 2: bad quorum port in 'server.2=h:x:3888'").
std::error_code parse_ensemble_config(std::string_view text, ensemble_config& out, std::string* reason = nullptr);

// What a client does when its host list changes from `old_hosts` to `new_hosts` while connected to `current`
// (nullopt: not connected), balancing the load over the new members the way ZooKeeper's own clients do:
//  - more members than before: stay if `current` remains, but move with probability 1 - old/new to one of the
//    added members (so they get their share); move to an added member if `current` is gone;
//  - as many or fewer: stay if `current` remains; if it is gone, move to a kept member with probability
//    kept * (old - new) / (new * (old - kept)), else to an added member.
// The target is drawn uniformly from the chosen group. `rng` makes the choice repeatable.
struct rebalance_choice {
  std::optional<std::size_t> current;  // index of `current` in new_hosts, if it is still there
  std::optional<std::size_t> move_to;  // index in new_hosts to move to; nullopt: stay
};
rebalance_choice choose_host_after_reconfig(const std::vector<host_port>& old_hosts,
                                            const std::vector<host_port>& new_hosts,
                                            const std::optional<host_port>& current, std::mt19937_64& rng);

}  // namespace zkwire
