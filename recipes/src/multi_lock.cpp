// zkwire::recipes::multi_lock: member locks taken in canonical order, all or none, and their states folded into
// one. Everything runs on the client's executor.

#include "zkwire/recipes/multi_lock.hpp"

#include <algorithm>
#include <asio/bind_cancellation_slot.hpp>
#include <asio/co_spawn.hpp>
#include <asio/detached.hpp>
#include <asio/experimental/as_tuple.hpp>
#include <asio/post.hpp>
#include <asio/use_awaitable.hpp>
#include <utility>

#include "hold_monitor.hpp"
#include "waiter_map.hpp"

namespace zkwire::recipes::detail {

class multi_lock_impl : public std::enable_shared_from_this<multi_lock_impl> {
 public:
  multi_lock_impl(client& c, std::vector<std::string> directories, const lock_options& options)
      : executor_(c.get_executor()), clock_(c.clock()), directories_(std::move(directories)) {
    std::sort(directories_.begin(), directories_.end());
    directories_.erase(std::unique(directories_.begin(), directories_.end()), directories_.end());
    members_.reserve(directories_.size());
    for (const auto& d : directories_) members_.emplace_back(c, d, options);
  }

  // Member listeners refer to this object weakly (the members may outlive a listener call in flight).
  void observe_members() {
    for (auto& m : members_) {
      m.set_listener([weak = multi_lock_weak_ptr(shared_from_this())](const lock_event& e) {
        if (auto self = weak.lock()) self->on_member_change(e.reason);
      });
    }
  }

  [[nodiscard]] const asio::any_io_executor& executor() const noexcept { return executor_; }
  [[nodiscard]] lock_state state() const noexcept { return state_; }
  [[nodiscard]] const std::vector<std::string>& directories() const noexcept { return directories_; }
  lock* member(std::string_view directory) noexcept {
    const auto it = std::lower_bound(directories_.begin(), directories_.end(), directory);
    if (it == directories_.end() || *it != directory) return nullptr;
    return &members_[static_cast<std::size_t>(it - directories_.begin())];
  }
  void set_listener(lock_listener listener) { listener_ = std::move(listener); }
  asio::cancellation_slot lost_slot() noexcept { return lost_signal_.slot(); }

  std::uint64_t start_acquire(std::chrono::milliseconds timeout, completion_ptr<> done) {
    const std::uint64_t id = next_id_++;
    std::error_code refuse = acquire_refusal(state_, current_ != nullptr);
    if (!refuse && members_.empty()) refuse = lock_errc::no_directories;
    if (refuse) {
      complete(std::move(done), refuse);
      return id;
    }
    auto a = std::make_shared<multi_attempt>();
    a->id = id;
    a->done = std::move(done);
    a->timeout = timeout;
    a->deadline = clock_->now() + timeout;
    current_ = a;
    set_state(lock_state::acquiring, {});
    asio::co_spawn(executor_, acquire_task(shared_from_this(), a), asio::detached);
    return id;
  }

  void cancel_acquire(std::uint64_t id) {
    if (!current_ || current_->id != id) return;
    current_->cancelled = true;
    current_->stop.emit(asio::cancellation_type::terminal);
  }

  std::uint64_t start_release(completion_ptr<> done) {
    const std::uint64_t id = next_id_++;
    if (state_ == lock_state::lost) {
      set_state(lock_state::released, {});  // the members were released when the hold was lost
      complete(std::move(done), lock_errc::lock_lost);
      return id;
    }
    if (state_ != lock_state::held && state_ != lock_state::uncertain) {
      complete(std::move(done), lock_errc::not_held);
      return id;
    }
    set_state(lock_state::released, {});
    lost_waiters_.finish_all(lock_errc::not_held);
    releases_.add(id, std::move(done));
    // Every member is released now (a new acquire may follow at once); we answer when all deletes are done.
    auto remaining = std::make_shared<std::size_t>(members_.size());
    for (auto& m : members_) {
      m.async_release([weak = multi_lock_weak_ptr(shared_from_this()), remaining, id](std::error_code) {
        if (--*remaining > 0) return;
        if (auto self = weak.lock()) self->releases_.finish(id, {});
      });
    }
    return id;
  }

  void cancel_release(std::uint64_t id) { releases_.finish(id, client_error::cancelled); }

  std::uint64_t start_wait_lost(completion_ptr<> done) {
    const std::uint64_t id = next_id_++;
    lost_waiters_.add_lost_waiter(state_, id, std::move(done));
    return id;
  }

  void cancel_wait_lost(std::uint64_t id) { lost_waiters_.finish(id, client_error::cancelled); }

  void abandon() noexcept {
    try {
      listener_ = nullptr;  // the owner is going away: what its listener refers to may be gone already
      if (current_) cancel_acquire(current_->id);
      if (state_ == lock_state::held || state_ == lock_state::uncertain) {
        start_release(make_completion<>([](std::error_code) {}, executor_));
      }
    } catch (...) {  // NOLINT(bugprone-empty-catch): a destructor cannot report; the session's end cleans up
    }
  }

 private:
  struct multi_attempt {
    std::uint64_t id = 0;
    completion_ptr<> done;
    std::chrono::milliseconds timeout{};
    proto::time_point deadline;
    bool cancelled = false;
    asio::cancellation_signal stop;  // cancels the member acquire in flight
  };

  // Takes members_[0..] in order; on any failure releases those taken before answering.
  static asio::awaitable<void> acquire_task(std::shared_ptr<multi_lock_impl> self, std::shared_ptr<multi_attempt> a) {
    std::error_code ec;
    std::size_t taken = 0;
    for (; taken < self->members_.size(); ++taken) {
      if (a->cancelled) {
        ec = lock_errc::cancelled;
        break;
      }
      auto wait = a->timeout;
      if (wait.count() > 0) {
        // What is left of the overall timeout; at or past the deadline, one try (a member may be free).
        wait = std::max(std::chrono::duration_cast<std::chrono::milliseconds>(a->deadline - self->clock_->now()),
                        std::chrono::milliseconds(0));
      }
      auto token = asio::bind_cancellation_slot(a->stop.slot(), asio::experimental::as_tuple(asio::use_awaitable));
      auto acquire = self->members_[taken].async_acquire(wait, token);
      auto [member_ec] = co_await std::move(acquire);
      if (member_ec) {
        ec = member_ec;
        break;
      }
    }
    if (a->cancelled && !ec) ec = lock_errc::cancelled;  // cancelled after the last member was granted
    // A member taken earlier may have been lost while we waited for a later one: then we do not hold them all.
    for (std::size_t i = 0; i < taken && !ec; ++i) {
      const auto s = self->members_[i].state();
      if (s != lock_state::held && s != lock_state::uncertain) ec = lock_errc::lock_lost;
    }
    if (ec) {
      // All or none: give back what we took (the deletes run in the background, retried across reconnects).
      for (std::size_t i = 0; i < taken; ++i) self->release_member_in_background(i);
    }
    if (self->current_ == a) self->current_.reset();
    if (ec) {
      self->set_state(lock_state::released, ec);
    } else {
      self->set_state(lock_state::held, {});
      self->on_member_change({});  // a member may have become uncertain or lost while we took the others
    }
    complete(std::move(a->done), ec);
  }

  void release_member_in_background(std::size_t index) {
    members_[index].async_release([](std::error_code) {});
  }

  // A member's state changed (`reason`: why, from its lock_event): fold the members' states into ours while we hold.
  void on_member_change(std::error_code reason) {
    if (state_ != lock_state::held && state_ != lock_state::uncertain) return;
    bool any_uncertain = false;
    for (const auto& m : members_) {
      const auto s = m.state();
      if (s == lock_state::uncertain) {
        any_uncertain = true;
      } else if (s != lock_state::held) {
        if (!reason) reason = s == lock_state::lost ? lock_errc::lock_lost : lock_errc::not_held;
        on_lost(reason);
        return;
      }
    }
    set_state(any_uncertain ? lock_state::uncertain : lock_state::held, any_uncertain ? reason : std::error_code());
  }

  void on_lost(std::error_code reason) {
    set_state(lock_state::lost, reason);
    lost_signal_.emit(asio::cancellation_type::terminal);
    lost_waiters_.finish_all(lock_errc::lock_lost);
    // The others are worthless now: give them back (and reset the lost one), after this listener call returns.
    asio::post(executor_, [weak = multi_lock_weak_ptr(shared_from_this())] {
      if (auto self = weak.lock()) {
        for (std::size_t i = 0; i < self->members_.size(); ++i) self->release_member_in_background(i);
      }
    });
  }

  void set_state(lock_state to, std::error_code reason) { change_state(state_, &listener_, to, reason); }

  asio::any_io_executor executor_;
  std::shared_ptr<zkwire::clock> clock_;
  std::vector<std::string> directories_;  // sorted, unique: the acquisition order
  std::vector<lock> members_;             // members_[i] locks directories_[i]
  lock_state state_ = lock_state::released;
  std::shared_ptr<multi_attempt> current_;
  waiter_map releases_;
  waiter_map lost_waiters_;
  asio::cancellation_signal lost_signal_;
  lock_listener listener_;
  std::uint64_t next_id_ = 1;
};

multi_lock_ptr make_multi_lock_impl(client& c, std::vector<std::string> directories, const lock_options& options) {
  auto impl = std::make_shared<multi_lock_impl>(c, std::move(directories), options);
  impl->observe_members();
  return impl;
}
asio::any_io_executor executor_of(const multi_lock_impl& impl) { return impl.executor(); }
void abandon(multi_lock_impl& impl) noexcept { impl.abandon(); }
std::uint64_t start_acquire(const multi_lock_ptr& impl, std::chrono::milliseconds timeout, completion_ptr<> done) {
  return impl->start_acquire(timeout, std::move(done));
}
void cancel_acquire(const multi_lock_weak_ptr& impl, std::uint64_t id) {
  if (auto p = impl.lock()) p->cancel_acquire(id);
}
std::uint64_t start_release(const multi_lock_ptr& impl, completion_ptr<> done) {
  return impl->start_release(std::move(done));
}
void cancel_release(const multi_lock_weak_ptr& impl, std::uint64_t id) {
  if (auto p = impl.lock()) p->cancel_release(id);
}
std::uint64_t start_wait_lost(const multi_lock_ptr& impl, completion_ptr<> done) {
  return impl->start_wait_lost(std::move(done));
}
void cancel_wait_lost(const multi_lock_weak_ptr& impl, std::uint64_t id) {
  if (auto p = impl.lock()) p->cancel_wait_lost(id);
}
lock_state state_of(const multi_lock_impl& impl) noexcept { return impl.state(); }
const std::vector<std::string>& directories_of(const multi_lock_impl& impl) noexcept { return impl.directories(); }
lock* member_of(multi_lock_impl& impl, std::string_view directory) noexcept { return impl.member(directory); }
void set_listener(multi_lock_impl& impl, lock_listener listener) { impl.set_listener(std::move(listener)); }
asio::cancellation_slot lost_slot_of(multi_lock_impl& impl) noexcept { return impl.lost_slot(); }

}  // namespace zkwire::recipes::detail

namespace zkwire::recipes {

multi_lock::multi_lock(client& c, std::vector<std::string> directories, const lock_options& options)
    : impl_(detail::make_multi_lock_impl(c, std::move(directories), options)) {}

multi_lock::~multi_lock() {
  if (impl_) detail::abandon(*impl_);
}

}  // namespace zkwire::recipes
