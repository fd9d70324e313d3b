#include "virtual_clock.hpp"

#include <algorithm>

namespace zkwire::sim {

class virtual_clock::virtual_wakeup final : public wakeup {
 public:
  virtual_wakeup(std::shared_ptr<virtual_clock> owner, std::shared_ptr<timer_state> s)
      : clock_(std::move(owner)), state_(std::move(s)) {}
  virtual_wakeup(const virtual_wakeup&) = delete;
  virtual_wakeup& operator=(const virtual_wakeup&) = delete;
  virtual_wakeup(virtual_wakeup&&) = delete;
  virtual_wakeup& operator=(virtual_wakeup&&) = delete;
  ~virtual_wakeup() override { cancel(); }

  void expires_at(proto::time_point when) override {
    ++state_->generation;
    state_->expiry = when;
    state_->armed = true;
    state_->order = ++clock_->armed_count_;
    // Already due: fires on the executor's next turn, never from inside this call.
    if (when <= clock_->now()) post_fire(state_);
  }
  void cancel() noexcept override {
    ++state_->generation;
    state_->armed = false;
  }

 private:
  std::shared_ptr<virtual_clock> clock_;
  std::shared_ptr<timer_state> state_;
};

std::unique_ptr<wakeup> virtual_clock::make_wakeup(const asio::any_io_executor& executor, std::function<void()> fire) {
  auto s = std::make_shared<timer_state>();
  s->executor = executor;
  s->fire = std::move(fire);
  timers_.push_back(s);
  return std::make_unique<virtual_wakeup>(shared_from_this(), std::move(s));
}

// A later cancel or re-arm (a new generation) voids a fire already posted.
void virtual_clock::post_fire(const std::shared_ptr<timer_state>& s) {
  s->armed = false;
  asio::post(s->executor, [s, generation = s->generation] {
    if (generation == s->generation) s->fire();
  });
}

bool virtual_clock::fire_next(proto::time_point limit) {
  std::erase_if(timers_, [](const std::weak_ptr<timer_state>& w) { return w.expired(); });
  std::shared_ptr<timer_state> next;
  for (const auto& weak : timers_) {
    auto s = weak.lock();
    if (!s || !s->armed || s->expiry > limit) continue;
    if (!next || s->expiry < next->expiry || (s->expiry == next->expiry && s->order < next->order)) {
      next = std::move(s);
    }
  }
  if (!next) return false;
  now_ = std::max(now_, next->expiry);
  post_fire(next);
  return true;
}

proto::time_point virtual_clock::next_expiry() const {
  proto::time_point next = proto::time_point::max();
  for (const auto& weak : timers_) {
    if (auto s = weak.lock(); s && s->armed) next = std::min(next, s->expiry);
  }
  return next;
}

}  // namespace zkwire::sim
