#pragma once
// What the lock and the semaphore share while they hold nodes: the lock_state with its listener, the session
// observer (suspended -> uncertain, reconnect -> check our nodes are still ours, session end -> lost), the check
// after a reconnect, and the safety-margin wakeup on the client's clock (lost before the server can expire the
// session). The owner says what it holds (held_nodes), what losing means for it (on_lost) and what to do once its
// nodes are seen to be ours again (on_verified). Everything runs on the client's executor.

#include <asio/any_io_executor.hpp>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "client_ops.hpp"
#include "zkwire/proto/path.hpp"
#include "zkwire/recipes/lock.hpp"

namespace zkwire::recipes::detail {

// Moves `state` to `to` and tells `listener` (which may replace itself: it is called through a copy).
// `listener` may be null.
void change_state(lock_state& state, const lock_listener* listener, lock_state to, std::error_code reason);

// Why a new acquire is refused in `state`: held or uncertain (already_held), lost until released (lock_lost), or
// while another acquire is in progress (acquire_in_progress); empty when it may start. The lock, the semaphore and
// the multi-lock check their own conditions after these (a reentrant lock counts a hold again instead).
std::error_code acquire_refusal(lock_state state, bool acquiring) noexcept;

class hold_monitor {
 public:
  hold_monitor(client& c, std::optional<std::chrono::milliseconds> safety_margin);
  // Removes the session observer (if the client is still there).
  virtual ~hold_monitor();
  hold_monitor(const hold_monitor&) = delete;
  hold_monitor& operator=(const hold_monitor&) = delete;
  hold_monitor(hold_monitor&&) = delete;
  hold_monitor& operator=(hold_monitor&&) = delete;

  [[nodiscard]] const link_ptr& link() const noexcept { return link_; }
  [[nodiscard]] const asio::any_io_executor& executor() const noexcept { return link_->executor; }
  [[nodiscard]] zkwire::clock& clock() const noexcept { return *link_->clock; }
  [[nodiscard]] lock_state state() const noexcept { return state_; }
  // Whether a hold granted now could be trusted: the client is connected, and its newest answer is for a request
  // sent recently enough that the session surely lives past the safety margin. Not so when the replies that would
  // grant it are read long after they were sent (a process paused with them waiting): the session may have expired
  // meanwhile, and another contender may hold. An acquire then asks again instead of granting a hold already lost.
  [[nodiscard]] bool may_grant_now() const;
  void set_listener(lock_listener listener) {
    listener_ = listener ? std::make_unique<lock_listener>(std::move(listener)) : nullptr;
  }

 protected:
  // The owner, for callbacks that must not keep it alive.
  virtual std::shared_ptr<hold_monitor> monitor_self() = 0;
  // The nodes of the current hold (empty when none).
  [[nodiscard]] virtual std::vector<const owned_node*> held_nodes() const = 0;
  // The hold ended without a release (the session ended, a node is gone, the margin passed, ...).
  virtual void on_lost(std::error_code reason) = 0;
  // After a reconnect, every held node was seen to still be ours: back to held, watch again.
  virtual void on_verified(std::uint64_t generation) = 0;

  // Moves to `to` and tells the listener (which may replace itself).
  void set_state(lock_state to, std::error_code reason);
  // Gives up the acquire attempt `a` with `ec`: its caller is answered once (and `metrics` count the end), its
  // task is told to stop (abandoned, its deadline cancelled, woken, then `stop` for whatever else it waits on), and
  // if it is the `current` attempt the object is released again.
  template <class Attempt, class Metrics, class Stop>
  void give_up_attempt(std::shared_ptr<Attempt>& current, const std::shared_ptr<Attempt>& a, Metrics& metrics,
                       std::error_code ec, Stop&& stop) {
    if (a->done) {
      metrics.acquire_ended(ec);
      auto done = std::move(a->done);
      complete(std::move(done), ec);
    }
    a->abandoned = true;
    if (a->deadline) a->deadline->cancel();
    a->wake.set();
    stop();
    if (current == a) {
      current.reset();
      set_state(lock_state::released, ec);
    }
  }
  void on_session(const state_event& e);
  // Right after a grant: the session may have changed state since the listing that granted us (the task resumes
  // in a posted handler, and on_session ignored the change while acquiring). Catch up, or we would report `held`
  // on a broken connection, or on a session that ended, and never check again after the reconnect. The first
  // grant registers the session observer: an object that never held (a waiter among thousands) has none, as
  // nothing but a hold follows the session (an acquire learns of its end from its own requests and watch).
  void catch_up_with_session();
  // Arms the safety-margin wakeup for the hold `generation` (lost at once if the deadline has passed). A wakeup
  // still pending from an earlier hold, due no later than this deadline, is kept: when it fires it re-arms for
  // the deadline of the hold then current. So a lock taken and released over and over touches its timer about once
  // per session timeout, not twice per hold.
  void arm_margin_timer(std::uint64_t generation);
  // Stops the wakeup (a lost hold). A released hold may leave it pending: it finds no hold when it fires, or the
  // next hold reuses it.
  void cancel_margin_timer();

  link_ptr link_;  // with the client's executor and clock (shared by all its recipe objects)
  // Bumped whenever a hold starts or ends, so callbacks of an earlier hold recognise they are stale.
  std::uint64_t generation_ = 0;
  std::unique_ptr<lock_listener> listener_;  // a pointer: most objects have none
  lock_state state_ = lock_state::released;  // last, beside the private flag below (one word for both)

 private:
  void observe_session();
  void verify_after_reconnect(std::uint64_t generation);
  [[nodiscard]] std::chrono::milliseconds safety_margin() const;
  // When a hold must be given up, judged from the client's newest answer (now, before any answer).
  [[nodiscard]] proto::time_point margin_deadline(const client& c, proto::time_point now) const;

  bool margin_pending_ = false;  // margin_timer_ is armed for margin_expiry_
  std::optional<std::chrono::milliseconds> safety_margin_;
  std::uint64_t observer_ = 0;
  std::size_t verified_ = 0;  // held nodes seen to be ours since the last reconnect
  // The safety margin's wakeup (made when first armed); the hold it was armed for.
  std::unique_ptr<wakeup> margin_timer_;
  std::uint64_t margin_generation_ = 0;
  proto::time_point margin_expiry_{};
};

}  // namespace zkwire::recipes::detail
