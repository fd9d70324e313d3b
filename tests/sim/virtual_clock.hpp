#pragma once
// Virtual time for the simulation: a zkwire::clock whose now() moves only when the driver says so, and whose
// wakeups are fired in expiry order by fire_next(). Clients, the network and the simulated server all take their
// time from one virtual_clock, so a run is a pure function of its seed. Nothing sleeps.
//
//   auto clock = virtual_clock::make();            // options.clock = clock
//   clock->advance(io, 5s);                        // one io_context: runs everything due in the next 5 s
//   world.cpp drives several io_contexts (one per simulated process) with fire_next() instead.
//
// Single-threaded: the clock and every io_context it posts to are used from one thread.

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

namespace zkwire::sim {

class virtual_clock final : public clock, public std::enable_shared_from_this<virtual_clock> {
 public:
  static std::shared_ptr<virtual_clock> make() { return std::shared_ptr<virtual_clock>(new virtual_clock()); }

  [[nodiscard]] proto::time_point now() const override { return now_; }
  // Virtual time since the clock was made.
  [[nodiscard]] std::chrono::milliseconds elapsed() const {
    return std::chrono::duration_cast<std::chrono::milliseconds>(now_ - start_);
  }

  std::unique_ptr<wakeup> make_wakeup(const asio::any_io_executor& executor, std::function<void()> fire) override;

  // Runs every ready handler of `io` without advancing time. Work that keeps making more work without time
  // passing (a timer re-armed in the past over and over) is a bug of the code under test: it throws instead of
  // hanging the test.
  static void settle(asio::io_context& io, std::size_t max_handlers = 1'000'000) {
    io.restart();
    for (std::size_t n = 0; io.poll_one() > 0;) {
      if (++n > max_handlers) throw std::runtime_error("virtual_clock: the io_context never settles");
    }
  }

  // Moves time forward by `d` on a single io_context, stopping at each wakeup on the way (in expiry order) to run
  // what it fires and everything that follows from it before looking at the next one.
  void advance(asio::io_context& io, std::chrono::nanoseconds d) {
    const proto::time_point target = now_ + d;
    settle(io);
    while (fire_next(target)) settle(io);
    now_ = target;
    settle(io);
  }

  // Fires the earliest armed wakeup due at or before `limit` (posting its function to its executor), moving now()
  // to its expiry; false if there is none. Ties fire in the order they were armed.
  bool fire_next(proto::time_point limit);
  // Moves now() forward to `t` (never back).
  void advance_to(proto::time_point t) { now_ = std::max(now_, t); }

  // The earliest armed expiry, or time_point::max().
  [[nodiscard]] proto::time_point next_expiry() const;

 private:
  struct timer_state {
    asio::any_io_executor executor;
    std::function<void()> fire;
    proto::time_point expiry{};
    bool armed = false;
    std::uint64_t generation = 0;
    std::uint64_t order = 0;  // when it was armed: ties fire first-armed first, so runs are deterministic
  };
  class virtual_wakeup;

  virtual_clock() = default;
  static void post_fire(const std::shared_ptr<timer_state>& s);

  proto::time_point start_ = proto::time_point{} + std::chrono::hours(1000);
  proto::time_point now_ = start_;
  std::uint64_t armed_count_ = 0;
  std::vector<std::weak_ptr<timer_state>> timers_;
};

}  // namespace zkwire::sim
