// zkwire::recipes::lock_keeper: the lock it wraps, the filter between the lock's events and the application's, and
// the re-acquire task started by a loss (lock_keeper.hpp).

#include "zkwire/recipes/lock_keeper.hpp"

#include <asio/bind_cancellation_slot.hpp>
#include <asio/cancellation_signal.hpp>
#include <asio/co_spawn.hpp>
#include <asio/detached.hpp>
#include <asio/experimental/as_tuple.hpp>
#include <asio/use_awaitable.hpp>
#include <functional>
#include <utility>

#include "keeper_core.hpp"
#include "lock_impl.hpp"

namespace zkwire::recipes {

keeper_options::keeper_options() = default;  // out of line: not an aggregate (lock_keeper.hpp)

}  // namespace zkwire::recipes

namespace zkwire::recipes::detail {

class keeper_core : public std::enable_shared_from_this<keeper_core> {
 public:
  keeper_core(lock_ptr impl, keeper_options keep) : lock_(std::move(impl)), keep_(keep), wake_(lock_.get_executor()) {}

  // The lock reports to the keeper, which reports to the application.
  void attach() {
    lock_.set_listener([weak = weak_from_this()](const lock_event& e) {
      if (auto self = weak.lock()) self->on_lock_event(e);
    });
  }

  std::uint64_t start_acquire(std::chrono::milliseconds timeout, completion_ptr<> done) {
    if (reacquiring_ || gave_up_) {
      complete(std::move(done), lock_errc::lock_lost);
      return 0;  // the lock's ids start at 1: a cancellation of this one matches nothing
    }
    armed_ = true;
    releasing_ = false;
    return detail::start_acquire(lock_.impl_, timeout, std::move(done));
  }

  void start_release(completion_ptr<> done) {
    armed_ = false;
    if (!reacquiring_ && !gave_up_) {
      detail::start_release(lock_.impl_, std::move(done));
      return;
    }
    // Whatever state the lock is in meanwhile (lost, released, acquiring, or held by a grant whose completion is
    // still on its way to the task) is the keeper's business: the application was told `lost` and now `released`.
    releasing_ = true;  // before the cancellation: the lock's events it causes are not the application's
    stop_reacquiring();
    tell({lock_state::lost, lock_state::released, make_error_code(lock_errc::lock_lost)});
    lock_.async_release([self = shared_from_this(), done = std::move(done)](std::error_code) mutable {
      self->releasing_ = false;
      complete(std::move(done), lock_errc::lock_lost);
    });
  }

  // Queues again as after a loss, without one (the election's relinquish, or a participant whose queued node went
  // with its session): the application already knows the lock is not held, and hears `lost -> held` once it is.
  void rejoin() {
    if (reacquiring_) return;
    gave_up_ = false;
    armed_ = true;
    releasing_ = false;
    start_reacquiring({});
  }

  void stop() noexcept {
    armed_ = false;
    listener_ = nullptr;
    try {
      stop_reacquiring();
    } catch (...) {  // NOLINT(bugprone-empty-catch): a destructor cannot report; the lock gives itself up regardless
    }
  }

  [[nodiscard]] lock_state state() const noexcept {
    return reacquiring_ || gave_up_ ? lock_state::lost : lock_.state();
  }

  [[nodiscard]] const lock_ptr& impl() const noexcept { return lock_.impl_; }

  lock lock_;
  lock_listener listener_;
  // Told when the keeper gives up (keeper_core.hpp).
  std::function<void(std::error_code)> on_give_up_;
  std::uint64_t reacquisitions_ = 0;
  std::error_code last_error_;

 private:
  void tell(const lock_event& e) const {
    if (listener_) {
      const auto listener = listener_;  // it may replace itself
      listener(e);
    }
  }

  void on_lock_event(const lock_event& e) {
    if (reacquiring_ || releasing_) return;  // the keeper's own work
    tell(e);
    if (armed_ && e.to == lock_state::lost) start_reacquiring(e.reason);
  }

  void stop_reacquiring() {
    reacquiring_ = false;
    gave_up_ = false;
    last_error_ = {};
    stop_.emit(asio::cancellation_type::terminal);
    wake_.set();
  }

  void start_reacquiring(std::error_code reason) {
    reacquiring_ = true;
    // The node of a session that may live on (lost by the safety margin or a session change) still queues ahead of
    // everyone: the task deletes it before queueing again. A deleted node (node_deleted) is gone already.
    std::string old_node = reason == lock_errc::node_deleted ? std::string() : lock_.node_path();
    asio::co_spawn(lock_.get_executor(), reacquire(shared_from_this(), std::move(old_node)), asio::detached);
  }

  void give_up(std::error_code ec) {
    reacquiring_ = false;
    gave_up_ = true;
    last_error_ = ec;
    if (on_give_up_) {
      const auto handler = on_give_up_;  // it may replace itself
      handler(ec);
    }
  }

  // One failed attempt: false when the keeper gave up or was stopped, else true after the retry delay.
  asio::awaitable<bool> retry_after_failure(std::error_code ec, std::uint32_t& failures) {
    if (keep_.max_failures != 0 && ++failures >= keep_.max_failures) {
      give_up(ec);
      co_return false;
    }
    client* c = lock_.impl_->link()->get();
    if (c == nullptr) {
      give_up(client_error::closed);
      co_return false;
    }
    auto timer = c->clock()->make_wakeup(lock_.get_executor(), [weak = weak_from_this()] {
      if (auto self = weak.lock()) self->wake_.set();
    });
    timer->expires_at(c->clock()->now() + keep_.retry_delay);
    co_await wake_.wait();
    co_return reacquiring_;
  }

  static asio::awaitable<void> reacquire(std::shared_ptr<keeper_core> self, std::string old_node) {
    const link_ptr link = self->lock_.impl_->link();
    // Back from `lost` to `released` (the lock deletes a node that may still exist in the background; so do we,
    // below, but before queueing again).
    auto reset = self->lock_.async_release(tuple_awaitable);
    co_await std::move(reset);
    std::uint32_t failures = 0;
    while (self->reacquiring_) {
      client* c = link->get();
      const auto session = c == nullptr ? session_state::closed : c->state();
      if (session == session_state::closed) {
        self->give_up(client_error::closed);
        co_return;
      }
      if (session == session_state::expired || session == session_state::auth_failed) {
        auto fresh = c->async_new_session(asio::bind_cancellation_slot(self->stop_.slot(), tuple_awaitable));
        auto [ec] = co_await std::move(fresh);
        self->stop_.slot().clear();
        if (!self->reacquiring_) co_return;
        if (ec) {
          auto retry = self->retry_after_failure(ec, failures);
          if (!co_await std::move(retry)) co_return;
          continue;
        }
      }
      if (!old_node.empty()) {
        auto cleanup = delete_until_gone(link, old_node);
        co_await std::move(cleanup);
        old_node.clear();
        if (!self->reacquiring_) co_return;
      }
      auto again = self->lock_.async_acquire(self->keep_.acquire_timeout,
                                             asio::bind_cancellation_slot(self->stop_.slot(), tuple_awaitable));
      auto [ec] = co_await std::move(again);
      self->stop_.slot().clear();
      // Stopped meanwhile: the keeper's release took care of the lock, whatever this attempt got.
      if (!self->reacquiring_) co_return;
      if (!ec && self->lock_.state() == lock_state::lost) {
        // Lost again between the grant and this answer: the application never heard of that grant (its events are
        // the keeper's while it re-acquires), so it is the keeper's to mend. The lock already deletes the node.
        auto reset_again = self->lock_.async_release(tuple_awaitable);
        co_await std::move(reset_again);
        continue;
      }
      if (!ec) {
        self->reacquiring_ = false;
        ++self->reacquisitions_;
        self->tell({lock_state::lost, self->lock_.state(), {}});
        co_return;
      }
      if (ec == client_error::closed) {
        self->give_up(ec);
        co_return;
      }
      if (is_session_fatal(ec)) continue;  // expired meanwhile: a new session next round
      auto retry = self->retry_after_failure(ec, failures);
      if (!co_await std::move(retry)) co_return;
    }
  }

  keeper_options keep_;
  bool armed_ = false;        // acquired through the keeper and not released since
  bool reacquiring_ = false;  // between a loss and the new grant (or giving up, or stopping)
  bool gave_up_ = false;
  bool releasing_ = false;  // the keeper's release of a lock it was re-acquiring
  asio::cancellation_signal stop_;
  wake_event wake_;
};

keeper_ptr make_keeper(client& c, std::string directory, lock_kind kind, lock_options options, keeper_options keep) {
  return make_keeper(make_lock_impl(c, std::move(directory), kind, std::move(options)), keep);
}
keeper_ptr make_keeper(lock_ptr lock, keeper_options keep) {
  auto k = std::make_shared<keeper_core>(std::move(lock), keep);
  k->attach();
  return k;
}
void start_keeper_rejoin(const keeper_ptr& k) { k->rejoin(); }
void set_keeper_give_up_handler(keeper_core& k, std::function<void(std::error_code)> handler) {
  k.on_give_up_ = std::move(handler);
}
lock& lock_of(keeper_core& k) noexcept { return k.lock_; }
const lock& lock_of(const keeper_core& k) noexcept { return k.lock_; }
const lock_ptr& lock_impl_of(const keeper_core& k) noexcept { return k.impl(); }
std::uint64_t start_keeper_acquire(const keeper_ptr& k, std::chrono::milliseconds timeout, completion_ptr<> done) {
  return k->start_acquire(timeout, std::move(done));
}
void start_keeper_release(const keeper_ptr& k, completion_ptr<> done) { k->start_release(std::move(done)); }
void stop_keeper(keeper_core& k) noexcept { k.stop(); }
lock_state keeper_state_of(const keeper_core& k) noexcept { return k.state(); }
std::uint64_t reacquisitions_of(const keeper_core& k) noexcept { return k.reacquisitions_; }
std::error_code last_error_of(const keeper_core& k) noexcept { return k.last_error_; }
void set_keeper_listener(keeper_core& k, lock_listener listener) { k.listener_ = std::move(listener); }

}  // namespace zkwire::recipes::detail
