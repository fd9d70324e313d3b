// The default clock: std::chrono::steady_clock, and asio::steady_timer for wakeups. A wakeup's Asio handler keeps
// its shared state (the timer and the fire function) alive, so the wakeup may be destroyed while a wait is
// outstanding or while `fire` runs; an arming generation filters waits that were cancelled or replaced.

#include <asio/steady_timer.hpp>
#include <cstdint>
#include <memory>
#include <utility>

#include "zkwire/client/clock.hpp"

namespace zkwire {
namespace {

class steady_wakeup final : public wakeup {
 public:
  steady_wakeup(const asio::any_io_executor& executor, std::function<void()> fire)
      : state_(std::make_shared<state>(executor, std::move(fire))) {}
  steady_wakeup(const steady_wakeup&) = delete;
  steady_wakeup& operator=(const steady_wakeup&) = delete;
  steady_wakeup(steady_wakeup&&) = delete;
  steady_wakeup& operator=(steady_wakeup&&) = delete;
  // NOLINTNEXTLINE(bugprone-exception-escape): cancel() is noexcept; a throw there ends the program, as it must
  ~steady_wakeup() override { cancel(); }

  void expires_at(proto::time_point when) override {
    const auto generation = ++state_->generation;
    state_->timer.expires_at(when);
    state_->timer.async_wait([self = state_, generation](const std::error_code& /*error*/) {
      // A cancelled or replaced wait is filtered by the generation; anything else means "time is up".
      if (generation == self->generation) {
        ++self->generation;
        self->fire();
      }
    });
  }

  // NOLINTNEXTLINE(bugprone-exception-escape): steady_timer::cancel throws only on a failed timerfd call
  void cancel() noexcept override {
    ++state_->generation;
    state_->timer.cancel();
  }

 private:
  struct state {
    state(const asio::any_io_executor& executor, std::function<void()> f) : timer(executor), fire(std::move(f)) {}
    asio::steady_timer timer;
    std::function<void()> fire;
    std::uint64_t generation = 0;
  };
  std::shared_ptr<state> state_;
};

class steady_source final : public clock {
 public:
  [[nodiscard]] proto::time_point now() const override { return proto::session_clock::now(); }
  std::unique_ptr<wakeup> make_wakeup(const asio::any_io_executor& executor, std::function<void()> fire) override {
    return std::make_unique<steady_wakeup>(executor, std::move(fire));
  }
};

}  // namespace

std::shared_ptr<clock> steady_clock_source() {
  static const std::shared_ptr<clock> instance = std::make_shared<steady_source>();
  return instance;
}

}  // namespace zkwire
