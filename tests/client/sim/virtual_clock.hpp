#pragma once
// Virtual time for driving zkwire::client in tests: now() moves only when the driver advances it, and wakeups fire
// (posted to their client's executor) as it passes their expiry. One clock can drive any number of clients on one
// io_context; nothing sleeps. Single-threaded: the clock and the io_context are used from the test's thread.
//
//   virtual_clock clock;                       // shared by the clients: options.clock = clock.shared()
//   clock.advance(io, 5s);                     // runs every handler due in the next 5 virtual seconds, in time order

#include <algorithm>
#include <asio/io_context.hpp>
#include <asio/post.hpp>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <stdexcept>
#include <utility>
#include <vector>

#include "zkwire/client/clock.hpp"

namespace zkwire::test {

class virtual_clock final : public clock, public std::enable_shared_from_this<virtual_clock> {
 public:
  static std::shared_ptr<virtual_clock> make() { return std::shared_ptr<virtual_clock>(new virtual_clock()); }

  [[nodiscard]] proto::time_point now() const override { return now_; }

  std::unique_ptr<wakeup> make_wakeup(const asio::any_io_executor& executor, std::function<void()> fire) override {
    auto s = std::make_shared<timer_state>(timer_state{executor, std::move(fire)});
    timers_.push_back(s);
    return std::make_unique<virtual_wakeup>(shared_from_this(), std::move(s));
  }

  // Runs every ready handler of `io` without advancing time. Work that keeps making more work without time
  // passing (a timer re-armed in the past over and over) is a bug of the code under test: it throws instead of
  // hanging the test.
  static void settle(asio::io_context& io, std::size_t max_handlers = 1'000'000) {
    io.restart();
    for (std::size_t n = 0; io.poll_one() > 0;) {
      if (++n > max_handlers) throw std::runtime_error("virtual_clock: the io_context never settles");
    }
  }

  // Moves time forward by `d`, stopping at each wakeup on the way (in expiry order) to run what it fires and
  // everything that follows from it before looking at the next one.
  void advance(asio::io_context& io, std::chrono::nanoseconds d) {
    const proto::time_point target = now_ + d;
    settle(io);
    while (fire_next(target)) settle(io);
    now_ = target;
    settle(io);
  }

  // The earliest armed expiry, or time_point::max().
  [[nodiscard]] proto::time_point next_expiry() const {
    proto::time_point next = proto::time_point::max();
    for (const auto& weak : timers_) {
      if (auto s = weak.lock(); s && s->armed) next = std::min(next, s->expiry);
    }
    return next;
  }

 private:
  struct timer_state {
    asio::any_io_executor executor;
    std::function<void()> fire;
    proto::time_point expiry{};
    bool armed = false;
    std::uint64_t generation = 0;
  };

  class virtual_wakeup final : public wakeup {
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
      if (when <= clock_->now()) clock_->post_fire(state_);
    }
    void cancel() noexcept override {
      ++state_->generation;
      state_->armed = false;
    }

   private:
    std::shared_ptr<virtual_clock> clock_;
    std::shared_ptr<timer_state> state_;
  };

  virtual_clock() = default;

  // Posts the fire function of a due timer; a later cancel or re-arm (a new generation) voids it.
  static void post_fire(const std::shared_ptr<timer_state>& s) {
    s->armed = false;
    asio::post(s->executor, [s, generation = s->generation] {
      if (generation == s->generation) s->fire();
    });
  }

  bool fire_next(proto::time_point limit) {
    std::erase_if(timers_, [](const std::weak_ptr<timer_state>& w) { return w.expired(); });
    std::shared_ptr<timer_state> next;
    for (const auto& weak : timers_) {
      auto s = weak.lock();
      if (s && s->armed && s->expiry <= limit && (!next || s->expiry < next->expiry)) next = std::move(s);
    }
    if (!next) return false;
    now_ = std::max(now_, next->expiry);
    post_fire(next);
    return true;
  }

  proto::time_point now_ = proto::time_point{} + std::chrono::hours(1000);
  std::vector<std::weak_ptr<timer_state>> timers_;
};

}  // namespace zkwire::test
