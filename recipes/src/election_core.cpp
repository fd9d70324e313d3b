// election_core (election_core.hpp): the phases of a participation, and the lock's events as leadership events.

#include "election_core.hpp"

#include <algorithm>
#include <utility>

namespace zkwire::recipes::detail {
namespace {

lock_options lock_options_of(election_options& options) {
  lock_options l;
  l.data = std::move(options.id);
  l.safety_margin = options.safety_margin;
  l.acl = std::move(options.acl);
  l.metrics = std::move(options.metrics);
  l.guids = std::move(options.guids);
  return l;
}

}  // namespace

election_core::election_core(client& c, std::string path, election_options options)
    : client_(&c), naming_(options.name_format), rejoin_(options.rejoin) {
  const keeper_options keep = options.keep;
  impl_ = std::make_shared<lock_impl>(c, std::move(path), lock_kind::exclusive, lock_options_of(options),
                                      &election_rule(naming_));
  keeper_ = make_keeper(impl_, keep);
}

void election_core::attach() {
  set_keeper_listener(*keeper_, [weak = weak_from_this()](const lock_event& e) {
    if (auto self = weak.lock()) self->on_lock_event(e);
  });
  set_keeper_give_up_handler(*keeper_, [weak = weak_from_this()](std::error_code ec) {
    if (auto self = weak.lock()) self->on_keeper_gave_up(ec);
  });
  impl_->set_enqueued_handler([weak = weak_from_this()] {
    if (auto self = weak.lock()) self->on_enqueued();
  });
}

election_state election_core::state() const noexcept {
  if (leading_) return election_state::leader;
  return phase_ == phase::idle ? election_state::idle : election_state::candidate;
}

void election_core::tell(const leadership_event& e) const {
  if (listener_) {
    const auto listener = *listener_;  // it may replace itself
    listener(e);
  }
}

// --- joining ---

std::uint64_t election_core::start_join(completion_ptr<> done) {
  const std::uint64_t id = next_id_++;
  if (phase_ == phase::joining && owner_kind_ == owner_kind::await) {
    // That call's time limit decides whether the participant stays; a join cannot lift it.
    complete(std::move(done), lock_errc::acquire_in_progress);
  } else if (phase_ == phase::joined || (phase_ == phase::joining && enqueued_)) {
    complete(std::move(done), {});
  } else {
    if (phase_ == phase::idle) begin(id, owner_kind::join, std::chrono::milliseconds(-1));
    joins_.push_back(waiter{id, std::move(done), nullptr});
  }
  return id;
}

void election_core::cancel_join(std::uint64_t id) {
  if (phase_ == phase::joining && owner_ == id) {
    cancel_acquire(impl_, acquire_id_);  // ends the participation: on_acquired answers every waiter
  } else {
    finish_waiter(joins_, id, lock_errc::cancelled);
  }
}

std::uint64_t election_core::start_await(std::chrono::milliseconds timeout, completion_ptr<> done) {
  const std::uint64_t id = next_id_++;
  if (leading_) {
    complete(std::move(done), {});
    return id;
  }
  if (phase_ == phase::idle) {
    begin(id, owner_kind::await, timeout);
    awaits_.push_back(waiter{id, std::move(done), nullptr});
    return id;
  }
  // In the election already: a wait of our own, which leaves the participation as it is.
  if (timeout.count() == 0) {
    complete(std::move(done), lock_errc::timeout);
    return id;
  }
  waiter w{id, std::move(done), nullptr};
  if (timeout.count() > 0) {
    w.timer = impl_->clock().make_wakeup(executor(), [weak = weak_from_this(), id] {
      if (auto self = weak.lock()) self->finish_waiter(self->awaits_, id, lock_errc::timeout);
    });
    w.timer->expires_at(impl_->clock().now() + timeout);
  }
  awaits_.push_back(std::move(w));
  return id;
}

void election_core::cancel_await(std::uint64_t id) {
  if (phase_ == phase::joining && owner_ == id) {
    cancel_acquire(impl_, acquire_id_);
  } else {
    finish_waiter(awaits_, id, lock_errc::cancelled);
  }
}

void election_core::begin(std::uint64_t owner, owner_kind kind, std::chrono::milliseconds timeout) {
  phase_ = phase::joining;
  owner_ = owner;
  owner_kind_ = kind;
  last_error_ = {};
  start_acquire(timeout);
}

void election_core::start_acquire(std::chrono::milliseconds timeout) {
  enqueued_ = false;
  const std::uint64_t attempt = ++attempt_;
  auto done = make_completion<>(
      [weak = weak_from_this(), attempt](std::error_code ec) {
        if (auto self = weak.lock()) self->on_acquired(attempt, ec);
      },
      executor());
  // Through the keeper, which then joins again after a loss; without it a loss ends the participation.
  acquire_id_ = rejoin_ ? start_keeper_acquire(keeper_, timeout, std::move(done))
                        : detail::start_acquire(impl_, timeout, std::move(done));
}

void election_core::queue_again() {
  if (rejoin_) {
    start_keeper_rejoin(keeper_);  // a new session first if the old one ended; reports `lost -> held`
  } else {
    start_acquire(std::chrono::milliseconds(-1));
  }
}

void election_core::on_enqueued() {
  if (phase_ != phase::joining || enqueued_) return;
  enqueued_ = true;
  if (owner_kind_ == owner_kind::join) {
    phase_ = phase::joined;  // the join is answered: the participant stands
    owner_ = 0;
  }
  finish_waiters(joins_, {});
}

void election_core::on_acquired(std::uint64_t attempt, std::error_code ec) {
  if (attempt != attempt_) return;
  acquire_id_ = 0;
  if (phase_ == phase::idle) return;  // left meanwhile: the leave answered everyone
  if (!ec) return;                    // leading: on_lock_event saw the grant first
  if (phase_ == phase::joined && rejoin_ && (is_session_fatal(ec) || ec == lock_errc::session_changed)) {
    // A standing candidate whose session ended with its node: queue again in a new session, like after a loss.
    queue_again();
    return;
  }
  last_error_ = phase_ == phase::joined ? ec : std::error_code{};
  end(ec);
}

// --- leadership ---

void election_core::on_lock_event(const lock_event& e) {
  const bool holds = e.to == lock_state::held || e.to == lock_state::uncertain;
  if (holds && !leading_) {
    leading_ = true;
    acquire_id_ = 0;  // granted: nothing left to cancel (its answer may still be on its way)
    token_ = fencing_token_of(*impl_);
    if (phase_ == phase::joining) {
      phase_ = phase::joined;
      owner_ = 0;
    }
    finish_waiters(joins_, {});
    finish_waiters(awaits_, {});
    tell({leadership_change::gained, token_, {}});
    return;
  }
  if (!leading_ || holds) return;  // not ours to report: the acquire's end (on_acquired), the keeper's resets
  leading_ = false;
  const bool released = e.to == lock_state::released;
  const std::int64_t token = std::exchange(token_, 0);
  lost_waiters_.finish_all(released ? lock_errc::not_held : lock_errc::lock_lost);
  tell({leadership_change::lost, token, released ? make_error_code(lock_errc::relinquished) : e.reason});
  if (released) return;
  lost_signal_.emit(asio::cancellation_type::terminal);
  if (!rejoin_ && phase_ != phase::idle) {
    // Nobody joins again: leave, and reset the lost lock (its node's deletion has started) once the lock is done
    // telling about the loss.
    last_error_ = e.reason;
    end(e.reason);
    start_release(impl_, make_completion<>([](std::error_code) {}, executor()));
  }
}

void election_core::on_keeper_gave_up(std::error_code ec) {
  // Joining again failed for good: out of the election, and the keeper reset so that a later join starts afresh.
  last_error_ = ec;
  end(ec);
  start_keeper_release(keeper_, make_completion<>([](std::error_code) {}, executor()));
}

// --- giving up ---

std::uint64_t election_core::start_relinquish(completion_ptr<> done) {
  const std::uint64_t id = next_id_++;
  if (!leading_) {
    complete(std::move(done), lock_errc::not_held);
    return id;
  }
  releases_.add(id, std::move(done));
  const std::uint64_t attempt = ++attempt_;  // a relinquish or leave started meanwhile makes this one stale
  // The keeper's release reports `held -> released` at once: the listener hears `lost` (relinquished) before the
  // node is even deleted. Queueing again waits for the delete: a new node before it would queue behind our own.
  start_keeper_release(keeper_, make_completion<>(
                                    [weak = weak_from_this(), id, attempt](std::error_code) {
                                      auto self = weak.lock();
                                      if (!self) return;
                                      if (attempt == self->attempt_ && self->phase_ != phase::idle) {
                                        self->queue_again();
                                      }
                                      self->releases_.finish(id, {});
                                    },
                                    executor()));
  return id;
}

std::uint64_t election_core::start_leave(completion_ptr<> done) {
  const std::uint64_t id = next_id_++;
  if (phase_ == phase::idle) {
    complete(std::move(done), lock_errc::not_held);
    return id;
  }
  releases_.add(id, std::move(done));
  end(lock_errc::cancelled);
  give_up_lock(make_completion<>(
      [weak = weak_from_this(), id](std::error_code) {
        if (auto self = weak.lock()) self->releases_.finish(id, {});
      },
      executor()));
  return id;
}

void election_core::give_up_lock(completion_ptr<> done) {
  ++attempt_;  // whatever is in flight is stale now
  // A pending acquire gives up its node in the background (the lock's cleanup guarantee); then the keeper is
  // disarmed (a re-join in progress is stopped) and a held lock released, which tells `lost` (relinquished).
  if (acquire_id_ != 0) cancel_acquire(impl_, std::exchange(acquire_id_, 0));
  start_keeper_release(keeper_, std::move(done));
}

void election_core::end(std::error_code ec) {
  phase_ = phase::idle;
  owner_ = 0;
  finish_waiters(joins_, ec);
  finish_waiters(awaits_, ec);
}

void election_core::close() noexcept {
  try {
    if (phase_ != phase::idle) start_leave(make_completion<>([](std::error_code) {}, executor()));
  } catch (...) {  // NOLINT(bugprone-empty-catch): out of memory; the session's end deletes the node
  }
}

void election_core::abandon() noexcept {
  listener_ = nullptr;
  close();
  stop_keeper(*keeper_);
  try {
    lost_waiters_.finish_all(lock_errc::cancelled);
    releases_.finish_all(lock_errc::cancelled);
  } catch (...) {  // NOLINT(bugprone-empty-catch): a destructor cannot report
  }
}

// --- the rest ---

std::uint64_t election_core::start_wait_lost(completion_ptr<> done) {
  const std::uint64_t id = next_id_++;
  lost_waiters_.add_lost_waiter(leading_ ? lock_state::held : lock_state::released, id, std::move(done));
  return id;
}

void election_core::start_guarded_multi(std::vector<multi_op> ops, completion_ptr<std::vector<op_result>> done) {
  if (!leading_) {
    complete(std::move(done), lock_errc::not_held, {});
    return;
  }
  detail::start_guarded_multi(impl_, std::move(ops), std::move(done));
}

void election_core::finish_waiters(std::vector<waiter>& waiters, std::error_code ec) {
  auto all = std::move(waiters);
  waiters.clear();
  for (auto& w : all) {
    if (w.timer) w.timer->cancel();
    complete(std::move(w.done), ec);
  }
}

void election_core::finish_waiter(std::vector<waiter>& waiters, std::uint64_t id, std::error_code ec) {
  const auto it = std::find_if(waiters.begin(), waiters.end(), [id](const waiter& w) { return w.id == id; });
  if (it == waiters.end()) return;
  waiter w = std::move(*it);
  waiters.erase(it);
  if (w.timer) w.timer->cancel();
  complete(std::move(w.done), ec);
}

}  // namespace zkwire::recipes::detail
