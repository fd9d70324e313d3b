#pragma once
// zkwire::recipes::lock_keeper: a lock that, once acquired, is acquired again after it is lost (an opt-in wrapper
// around zkwire::recipes::lock). For a service that must hold a lock for as long as it runs (a leader, a singleton
// worker) and would otherwise write the same "lost -> new session -> acquire" loop itself.
//
//   zkwire::recipes::lock_keeper k(c, "/locks/leader");
//   k.set_listener([&](const zkwire::recipes::lock_event& e) {
//     if (e.to == zkwire::recipes::lock_state::lost) stop_leading();                    // stop acting on it at once
//     if (e.to == zkwire::recipes::lock_state::held) start_leading(k.fencing_token());  // a new, larger token
//   });
//   co_await k.async_acquire(asio::use_awaitable);
//
// What the application sees
//   The listener gets the lock's events (lock.hpp "States") with one difference: after `held`/`uncertain` ->
//   `lost`, the keeper's own work (resetting the lost lock, a new session, the new acquire, failed attempts) is not
//   reported; the next event is `lost` -> `held` once the lock is held again, with a new node and so a strictly
//   larger fencing_token(). The keeper never reports `held` between the loss and that new grant: while it
//   re-acquires, state() is `lost`, owns_lock() is false and fencing_token() is 0.
//
// Re-acquiring
//   After a loss the keeper, on the client's executor: resets the lost lock; if the client's session has ended
//   (expired or auth_failed) starts a new one with client::async_new_session (a client shared with other code
//   therefore gets a new session: that is what keeping a lock across expiry means); deletes the old node if it may
//   still exist (a loss by the safety margin or a session change leaves the old session's node behind, and it
//   would otherwise stand in the queue ahead of the new one until that session expires); then acquires again
//   without a time limit (keeper_options::acquire_timeout), queueing behind whoever queued while it was lost
//   (fair: no contender is overtaken). An acquire that fails because the session ended starts over with a new
//   session; any other failure (for example no_auth on the directory) is retried after keeper_options::retry_delay
//   up to keeper_options::max_failures times in a row, then the keeper gives up: it stays `lost`, last_error() says
//   why, and async_release resets it. A closed client (async_close, destruction) ends the re-acquiring the same way.
//
// Thread safety and lifetime: as the lock (use it only on the client's executor; the client must outlive it).
//   Destroying the keeper stops re-acquiring and gives the lock up as lock's destructor does.
// Cancellation: async_acquire as lock::async_acquire (cancelling the first acquire does not arm the keeper).
//   async_release stops the re-acquiring first; cancelling it stops the waiting only.

#include <asio/any_io_executor.hpp>
#include <asio/async_result.hpp>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include "zkwire/client/client.hpp"
#include "zkwire/recipes/detail/named_option.hpp"
#include "zkwire/recipes/lock.hpp"

namespace zkwire::recipes {

// Not an aggregate (client/types.hpp, create_options, says why): set the fields by name on a variable, or take a
// named one inline (`keeper_options::with_acquire_timeout(5s)`).
struct keeper_options {
  keeper_options();

  // Named options: the defaults with the named fields set.
  static keeper_options with_acquire_timeout(std::chrono::milliseconds timeout) {
    return detail::with_field(&keeper_options::acquire_timeout, timeout);
  }
  static keeper_options with_retries(std::chrono::milliseconds delay, std::uint32_t failures) {
    keeper_options options;
    options.retry_delay = delay;
    options.max_failures = failures;
    return options;
  }

  // Time limit of each re-acquire; negative: none (wait in the queue as long as it takes). A re-acquire that
  // times out counts as a failure (retry_delay, max_failures).
  std::chrono::milliseconds acquire_timeout{-1};
  // Wait between two failed attempts (not after a session end: a new session is started at once).
  std::chrono::milliseconds retry_delay{1000};
  // Failed attempts in a row (other than session ends) after which the keeper gives up; 0: never gives up.
  std::uint32_t max_failures = 10;
};

namespace detail {

class keeper_core;
using keeper_ptr = std::shared_ptr<keeper_core>;

keeper_ptr make_keeper(client& c, std::string directory, lock_kind kind, lock_options options, keeper_options keep);
lock& lock_of(keeper_core& k) noexcept;
const lock& lock_of(const keeper_core& k) noexcept;
const lock_ptr& lock_impl_of(const keeper_core& k) noexcept;
// Arms the keeper and starts the lock's acquire; lock_errc::lock_lost while re-acquiring or after giving up.
std::uint64_t start_keeper_acquire(const keeper_ptr& k, std::chrono::milliseconds timeout, completion_ptr<> done);
void start_keeper_release(const keeper_ptr& k, completion_ptr<> done);
void stop_keeper(keeper_core& k) noexcept;
lock_state keeper_state_of(const keeper_core& k) noexcept;
std::uint64_t reacquisitions_of(const keeper_core& k) noexcept;
std::error_code last_error_of(const keeper_core& k) noexcept;
void set_keeper_listener(keeper_core& k, lock_listener listener);

struct initiate_keeper_acquire {
  keeper_ptr keeper;
  template <class Handler>
  void operator()(Handler&& handler, std::chrono::milliseconds timeout) const {
    auto slot = asio::get_associated_cancellation_slot(handler);
    const lock_ptr& impl = lock_impl_of(*keeper);
    const auto id =
        start_keeper_acquire(keeper, timeout, make_completion<>(std::forward<Handler>(handler), executor_of(*impl)));
    on_cancel(slot, [weak = lock_weak_ptr(impl), id] { cancel_acquire(weak, id); });
  }
};

struct initiate_keeper_release {
  keeper_ptr keeper;
  template <class Handler>
  void operator()(Handler&& handler) const {
    start_keeper_release(keeper, make_completion<>(std::forward<Handler>(handler), lock_of(*keeper).get_executor()));
  }
};

}  // namespace detail

class lock_keeper {
 public:
  // An exclusive lock (or one side of a read/write lock) on `directory`, as lock's constructors. Does no I/O.
  lock_keeper(client& c, std::string directory, lock_options options = {}, keeper_options keep = {})
      : lock_keeper(c, std::move(directory), lock_kind::exclusive, std::move(options), keep) {}
  lock_keeper(client& c, std::string directory, lock_kind kind, lock_options options = {}, keeper_options keep = {})
      : core_(detail::make_keeper(c, std::move(directory), kind, std::move(options), keep)) {}
  // Stops re-acquiring; a held lock or a pending acquire is given up in the background (lock.hpp "Cleanup").
  ~lock_keeper() {
    if (core_) detail::stop_keeper(*core_);
  }
  lock_keeper(const lock_keeper&) = delete;
  lock_keeper& operator=(const lock_keeper&) = delete;
  lock_keeper(lock_keeper&&) noexcept = default;
  lock_keeper& operator=(lock_keeper&&) = delete;

  [[nodiscard]] asio::any_io_executor get_executor() const { return get_lock().get_executor(); }

  // lock::async_acquire, and from then on the keeper acquires again after every loss until async_release.
  // Also lock_errc::lock_lost while the keeper re-acquires or after it gave up (async_release first).
  template <class CompletionToken>
  auto async_acquire(std::chrono::milliseconds timeout, CompletionToken&& token) {
    return asio::async_initiate<CompletionToken, void(std::error_code)>(detail::initiate_keeper_acquire{core_}, token,
                                                                        timeout);
  }
  template <class CompletionToken>
  auto async_acquire(CompletionToken&& token) {
    return async_acquire(std::chrono::milliseconds(-1), std::forward<CompletionToken>(token));
  }

  // Stops keeping, then as lock::async_release. While re-acquiring (or after giving up) it completes with
  // lock_errc::lock_lost, tells the listener `lost` -> `released`, and leaves nothing behind (a pending re-acquire
  // is cancelled, a node it got meanwhile deleted). Signature void(std::error_code).
  template <class CompletionToken>
  auto async_release(CompletionToken&& token) {
    return asio::async_initiate<CompletionToken, void(std::error_code)>(detail::initiate_keeper_release{core_}, token);
  }

  // As lock::async_guarded_multi (lock_errc::not_held while re-acquiring).
  template <class CompletionToken>
  auto async_guarded_multi(std::vector<multi_op> ops, CompletionToken&& token) {
    return get_lock().async_guarded_multi(std::move(ops), std::forward<CompletionToken>(token));
  }

  // --- observers (on the client's executor) ---
  // The lock's state, but `lost` for as long as the keeper re-acquires or after it gave up.
  [[nodiscard]] lock_state state() const noexcept { return detail::keeper_state_of(*core_); }
  [[nodiscard]] bool owns_lock() const noexcept {
    return state() == lock_state::held || state() == lock_state::uncertain;
  }
  // The current grant's token (0 while re-acquiring).
  [[nodiscard]] std::int64_t fencing_token() const noexcept { return owns_lock() ? get_lock().fencing_token() : 0; }
  [[nodiscard]] std::string node_path() const { return owns_lock() ? get_lock().node_path() : std::string(); }
  [[nodiscard]] const std::string& directory() const noexcept { return get_lock().directory(); }
  // Successful re-acquisitions after a loss so far.
  [[nodiscard]] std::uint64_t reacquisitions() const noexcept { return detail::reacquisitions_of(*core_); }
  // Why the keeper gave up (empty while keeping or re-acquiring).
  [[nodiscard]] std::error_code last_error() const noexcept { return detail::last_error_of(*core_); }
  // The underlying lock, for its other observers (metrics(), wakeups(), ...). Acquiring or releasing it directly
  // bypasses the keeper.
  [[nodiscard]] const lock& get_lock() const noexcept { return detail::lock_of(*core_); }

  // Called on every state change the keeper reports (see "What the application sees"). Replaces the previous one.
  void set_listener(lock_listener listener) { detail::set_keeper_listener(*core_, std::move(listener)); }

 private:
  detail::keeper_ptr core_;
};

}  // namespace zkwire::recipes
