#pragma once
// A level-triggered wakeup for the recipes' coroutines: set() from any callback on the executor, co_await wait()
// returns once it is set and clears it. Lets one coroutine wait for "something changed" (a watch fired, the
// caller gave up, a pipelined pair of replies arrived) without cancellation plumbing.

#include <asio/any_io_executor.hpp>
#include <asio/awaitable.hpp>
#include <asio/experimental/as_tuple.hpp>
#include <asio/steady_timer.hpp>
#include <asio/use_awaitable.hpp>
#include <chrono>

namespace zkwire::recipes::detail {

class wake_event {
 public:
  explicit wake_event(const asio::any_io_executor& executor)
      : timer_(executor, std::chrono::steady_clock::time_point::max()) {}

  void set() {
    set_ = true;
    timer_.cancel();
  }
  [[nodiscard]] bool is_set() const noexcept { return set_; }

  asio::awaitable<void> wait() {
    while (!set_) co_await timer_.async_wait(asio::experimental::as_tuple(asio::use_awaitable));
    set_ = false;
  }

 private:
  asio::steady_timer timer_;
  bool set_ = false;
};

}  // namespace zkwire::recipes::detail
