#pragma once
// The operations that wait for the session rather than for a reply: async_connect and async_new_session (until a
// session is established, it ends, or their connect timeout passes) and async_close (until the session ended).

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <system_error>

#include "zkwire/client/clock.hpp"
#include "zkwire/client/detail/core.hpp"
#include "zkwire/proto/session/session.hpp"

namespace zkwire::detail {

class waiters {
 public:
  // Adds a waiter; its id is unique per client.
  std::uint64_t add(wait_kind kind, std::unique_ptr<pending_op> op);
  // Gives the waiter a timeout; the wakeup is cancelled when the waiter completes.
  void set_timeout(std::uint64_t id, std::unique_ptr<wakeup> timeout);
  // Removes the waiter and returns its operation; null if it already completed.
  std::unique_ptr<pending_op> take(std::uint64_t id);
  // Completes, with `post` false, every waiter the session's state `state` decides: connect and new_session on
  // connected (success), expired, auth_failed or closed (`ended`, the engine's session_error()); close once the
  // session ended.
  void resolve(proto::session_state state, std::error_code ended);
  // Completes every connect and new_session waiter with `ec`, with `post` false; close waiters stay. Returns how
  // many it completed.
  std::size_t fail_connects(std::error_code ec);
  // Completes every waiter with `ec`, posted (the client is going away).
  void fail_all(std::error_code ec);

 private:
  struct entry {
    wait_kind kind = wait_kind::connect;
    std::unique_ptr<pending_op> op;
    std::unique_ptr<wakeup> timeout;
  };
  std::map<std::uint64_t, entry> entries_;
  std::uint64_t next_id_ = 1;
};

}  // namespace zkwire::detail
