#pragma once
// The session engine's timers: the ratios that derive them from the negotiated session timeout, and the set of
// deadlines tick() acts on and next_wakeup() reports (docs/protocol.md#session-timers).

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>

#include "zkwire/proto/session/session.hpp"

namespace zkwire::proto::session_detail {

inline constexpr time_point never = time_point::max();
inline constexpr std::chrono::milliseconds min_connect_timeout{250};
// The server expires sessions in tickTime buckets, at most a second late here.
inline constexpr std::chrono::milliseconds expiry_slack{1000};

// How long one connection attempt (TCP connect and handshake) may take: the configured value, else the session
// timeout shared among the hosts but at most a third of it, at least min_connect_timeout. The third is for a server
// that accepts the connection and never answers the handshake (seen: a restarting ZooKeeper binds its port before
// it runs, fails the handshake and leaves the socket open): the session's last ping may be T/3 old when the
// connection drops, so a stuck attempt of T/3 still leaves another attempt before the server expires the session.
[[nodiscard]] inline std::chrono::milliseconds connect_timeout(std::chrono::milliseconds configured,
                                                               std::chrono::milliseconds session_timeout,
                                                               std::size_t host_count) {
  if (configured.count() > 0) return configured;
  const auto per_host = session_timeout / static_cast<std::int64_t>(std::max<std::size_t>(host_count, 1));
  return std::max(std::min(per_host, session_timeout / 3), min_connect_timeout);
}

// Nothing received for this long: the connection is taken for dead, in time to find another server before the
// session expires.
[[nodiscard]] inline std::chrono::milliseconds read_timeout(std::chrono::milliseconds session_timeout) {
  return session_timeout * 2 / 3;
}

// Nothing sent for this long: a ping keeps the session alive and proves the connection.
[[nodiscard]] inline std::chrono::milliseconds ping_interval(std::chrono::milliseconds session_timeout) {
  return session_timeout / 3;
}

// Every timer of the engine, `never` where it does not apply. tick() acts on the ones due and next_wakeup()
// reports the earliest, both from one computation, so the driver is never woken for nothing nor missed.
struct deadlines {
  time_point reconnect = never;     // paced: start the next connection attempt
  time_point attempt = never;       // connecting or handshaking: give up on this host
  time_point close = never;         // closing: stop waiting for closeSession's reply
  time_point read = never;          // established: nothing received for too long
  time_point ping = never;          // established and idle (not while closing): send a ping
  time_point session_lost = never;  // suspended: the server has expired the session by now, surely
  time_point request = never;       // a user request's deadline: complete it with operation_timeout

  [[nodiscard]] time_point earliest() const noexcept {
    return std::min({reconnect, attempt, close, read, ping, session_lost, request});
  }
};

}  // namespace zkwire::proto::session_detail
