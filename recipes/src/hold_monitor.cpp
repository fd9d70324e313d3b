#include "hold_monitor.hpp"

#include <utility>

namespace zkwire::recipes::detail {

hold_monitor::hold_monitor(client& c, std::optional<std::chrono::milliseconds> safety_margin)
    : link_(shared_link(c)), safety_margin_(safety_margin) {}

hold_monitor::~hold_monitor() {
  if (client* c = link_->get(); c != nullptr && observer_ != 0) c->remove_state_observer(observer_);
}

void hold_monitor::observe_session() {
  client* c = link_->get();
  if (c == nullptr || observer_ != 0) return;
  observer_ = c->add_state_observer([weak = std::weak_ptr<hold_monitor>(monitor_self())](const state_event& e) {
    if (auto self = weak.lock()) self->on_session(e);
  });
}

std::error_code acquire_refusal(lock_state state, bool acquiring) noexcept {
  switch (state) {
    case lock_state::held:
    case lock_state::uncertain:
      return lock_errc::already_held;
    case lock_state::lost:
      return lock_errc::lock_lost;
    default:
      return acquiring ? std::error_code(lock_errc::acquire_in_progress) : std::error_code{};
  }
}

void change_state(lock_state& state, const lock_listener* listener, lock_state to, std::error_code reason) {
  const auto from = state;
  if (from == to) return;
  state = to;
  if (listener != nullptr && *listener) {
    const auto call = *listener;  // it may replace itself
    call(lock_event{from, to, reason});
  }
}

void hold_monitor::set_state(lock_state to, std::error_code reason) {
  change_state(state_, listener_.get(), to, reason);
}

void hold_monitor::on_session(const state_event& e) {
  switch (e.to) {
    case session_state::suspended:
      if (state_ == lock_state::held) set_state(lock_state::uncertain, e.reason);
      break;
    case session_state::connected:
    case session_state::connected_read_only:
      if (state_ == lock_state::uncertain) verify_after_reconnect(generation_);
      break;
    case session_state::lost:
    case session_state::expired:
    case session_state::auth_failed:
    case session_state::closed:
      on_lost(e.reason ? e.reason : make_error_code(client_error::session_expired));
      // A wakeup left pending by an earlier hold would keep the event loop running until it fires, long after the
      // application closed its client: with the session gone there is nothing left for it to watch.
      cancel_margin_timer();
      break;
    default:
      break;
  }
}

void hold_monitor::catch_up_with_session() {
  observe_session();
  if (client* c = link_->get(); c == nullptr) {
    on_lost(client_error::closed);
  } else if (const auto now = c->state();
             now != session_state::connected && now != session_state::connected_read_only) {
    on_session(state_event{
        now, now,
        now == session_state::suspended ? make_error_code(client_error::connection_loss) : std::error_code()});
  }
}

void hold_monitor::verify_after_reconnect(std::uint64_t generation) {
  client* c = link_->get();
  const auto nodes = held_nodes();
  if (c == nullptr || nodes.empty()) return;
  if (c->session_id() != nodes.front()->session) {
    on_lost(lock_errc::session_changed);
    return;
  }
  verified_ = 0;
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    c->async_exists(nodes[i]->path, [weak = std::weak_ptr<hold_monitor>(monitor_self()), generation, i](
                                        std::error_code ec, const std::optional<zkwire::stat>& st) {
      auto self = weak.lock();
      if (!self || self->generation_ != generation || self->state_ != lock_state::uncertain) return;
      if (ec) {
        if (!is_connection_loss(ec)) self->on_lost(ec);
        return;  // connection loss: the next reconnect verifies again
      }
      const auto held = self->held_nodes();
      if (!st) {
        self->on_lost(lock_errc::node_deleted);
      } else if (i >= held.size() || st->ephemeral_owner != held[i]->session) {
        self->on_lost(lock_errc::session_changed);
      } else if (++self->verified_ == held.size()) {
        self->set_state(lock_state::held, {});
        self->on_verified(generation);
      }
    });
  }
}

std::chrono::milliseconds hold_monitor::safety_margin() const {
  if (safety_margin_) return *safety_margin_;
  client* c = link_->get();
  return c == nullptr ? std::chrono::milliseconds(0) : c->session_timeout() / 4;
}

proto::time_point hold_monitor::margin_deadline(const client& c, proto::time_point now) const {
  return c.last_answered_send_time().value_or(now) + c.session_timeout() - safety_margin();
}

bool hold_monitor::may_grant_now() const {
  const client* c = link_->get();
  if (c == nullptr) return false;
  if (const auto s = c->state(); s != session_state::connected && s != session_state::connected_read_only) return false;
  const auto now = clock().now();
  return now < margin_deadline(*c, now);
}

void hold_monitor::arm_margin_timer(std::uint64_t generation) {
  client* c = link_->get();
  if (c == nullptr) return;
  const auto now = clock().now();
  const auto deadline = margin_deadline(*c, now);
  if (now >= deadline) {
    on_lost(lock_errc::safety_margin_passed);
    return;
  }
  if (!margin_timer_) {
    margin_timer_ = clock().make_wakeup(executor(), [weak = std::weak_ptr<hold_monitor>(monitor_self())] {
      auto self = weak.lock();
      if (!self) return;
      self->margin_pending_ = false;
      if (self->generation_ != self->margin_generation_) return;
      if (self->state_ != lock_state::held && self->state_ != lock_state::uncertain) return;
      self->arm_margin_timer(self->margin_generation_);  // a later answer moved the deadline, or it has passed
    });
  }
  margin_generation_ = generation;
  if (margin_pending_ && margin_expiry_ <= deadline) return;  // it fires first, and re-arms then
  margin_pending_ = true;
  margin_expiry_ = deadline;
  margin_timer_->expires_at(deadline);
}

void hold_monitor::cancel_margin_timer() {
  margin_pending_ = false;
  if (margin_timer_) margin_timer_->cancel();
}

}  // namespace zkwire::recipes::detail
