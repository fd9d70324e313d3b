#pragma once
// Pending completions of one recipe object by operation id — its async_release and async_wait_lost calls — shared by
// the lock, the semaphore and the multi-lock. Each completes exactly once: by id (the release finished, or the
// caller cancelled) or all together (the hold was lost or released). Used on the object's executor only.

#include <algorithm>
#include <cstdint>
#include <system_error>
#include <utility>
#include <vector>

#include "zkwire/recipes/lock.hpp"

namespace zkwire::recipes::detail {

class waiter_map {
 public:
  void add(std::uint64_t id, completion_ptr<> done) { waiters_.emplace_back(id, std::move(done)); }

  // Completes waiter `id` with `ec` if it is still waiting.
  void finish(std::uint64_t id, std::error_code ec) {
    const auto it = std::find_if(waiters_.begin(), waiters_.end(), [id](const auto& w) { return w.first == id; });
    if (it != waiters_.end()) {
      auto done = std::move(it->second);
      waiters_.erase(it);
      complete(std::move(done), ec);
    }
  }

  // Completes every waiter with `ec`. A handler that adds a waiter adds it for the next round (handlers are
  // posted, so none runs in here anyway).
  void finish_all(std::error_code ec) {
    auto all = std::move(waiters_);
    waiters_.clear();
    for (auto& [id, done] : all) complete(std::move(done), ec);
  }

  // async_wait_lost on a hold in `state`: lock_lost at once if it was lost, not_held at once if nothing is held,
  // else waits for finish_all (lock_lost on loss, not_held on release).
  void add_lost_waiter(lock_state state, std::uint64_t id, completion_ptr<> done) {
    if (state == lock_state::lost) {
      complete(std::move(done), lock_errc::lock_lost);
    } else if (state != lock_state::held && state != lock_state::uncertain) {
      complete(std::move(done), lock_errc::not_held);
    } else {
      add(id, std::move(done));
    }
  }

 private:
  // A vector, not a map: there are rarely more than one or two, and every lock object (a waiter among thousands)
  // keeps two of these.
  std::vector<std::pair<std::uint64_t, completion_ptr<>>> waiters_;
};

}  // namespace zkwire::recipes::detail
