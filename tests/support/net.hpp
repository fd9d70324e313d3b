#pragma once
// Loopback networking helpers for tests: picking free ports and four-letter-word queries.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace zkwire::test {

// Returns `count` distinct TCP ports that are free on 127.0.0.1 right now. They are chosen at random below the
// kernel's ephemeral range, so outgoing connections never take them while a member is stopped; the bind check
// excludes listeners and lingering connections. Another process may still take one before it is used.
std::vector<std::uint16_t> pick_free_ports(std::size_t count);

// Sends a four-letter word (e.g. "srvr", "mntr", "wchp") to 127.0.0.1:port and returns the server's reply.
// Returns an empty string if the connection fails or the server does not finish replying within `timeout`
// (for example while it is paused with SIGSTOP).
std::string four_letter_word(std::uint16_t port, std::string_view word, std::chrono::milliseconds timeout);

// The value of the "Mode: " line of a srvr reply (standalone, leader, follower, observer), or "".
std::string parse_srvr_mode(std::string_view srvr_reply);

}  // namespace zkwire::test
