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
#include <memory>
#include <utility>

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

// The same level-triggered wakeup for a task that does not stay suspended while it waits: instead of waiting it
// parks how to start it again and ends its coroutines, so a waiter keeps no coroutine frames (nor a timer) alive.
// set() from any callback on the executor runs the parked resumption (which must only post or spawn: it runs inside
// the caller of set()), or is remembered for the next park(). The resumption is a function and the task it gets
// (kept alive while parked): no std::function, whose capture of a shared_ptr would be one more allocation per
// waiter.
class resume_event {
 public:
  using resume_function = void (*)(std::shared_ptr<void> task);

  void set() {
    if (task_) {
      auto task = std::move(task_);
      task_ = nullptr;
      resume_(std::move(task));
    } else {
      set_ = true;
    }
  }
  // True: parked, `resume(task)` runs on the next set(). False: it was set already (now cleared): go on at once.
  [[nodiscard]] bool park(resume_function resume, std::shared_ptr<void> task) {
    if (set_) {
      set_ = false;
      return false;
    }
    resume_ = resume;
    task_ = std::move(task);
    return true;
  }

 private:
  resume_function resume_ = nullptr;
  std::shared_ptr<void> task_;
  bool set_ = false;
};

}  // namespace zkwire::recipes::detail
