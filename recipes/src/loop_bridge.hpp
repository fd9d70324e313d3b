#pragma once
// Runs lock recipe operations on a blocking_client's loop thread and blocks the calling thread until they complete:
// the plumbing of blocking_lock and blocking_read_write_lock. The lock objects themselves live on the loop thread
// (they are not thread-safe); every touch goes through run().

#include <algorithm>
#include <asio/any_io_executor.hpp>
#include <asio/bind_cancellation_slot.hpp>
#include <asio/cancellation_signal.hpp>
#include <asio/post.hpp>
#include <chrono>
#include <future>
#include <memory>
#include <optional>
#include <string>
#include <system_error>
#include <thread>
#include <type_traits>

#include "zkwire/client/blocking_client.hpp"
#include "zkwire/client/client.hpp"
#include "zkwire/recipes/lock.hpp"

namespace zkwire::recipes::detail {

using steady_deadline = std::optional<std::chrono::steady_clock::time_point>;  // empty: no limit

class loop_bridge {
 public:
  explicit loop_bridge(blocking_client& c);

  [[nodiscard]] client& async_client() const noexcept { return *client_; }

  // Runs `f()` on the loop thread and returns its result (rethrows what it throws). Throws std::logic_error when
  // called on the loop thread itself (waiting there would deadlock).
  template <class F>
  auto run(F&& f) const -> std::invoke_result_t<F&> {
    check_thread();
    using R = std::invoke_result_t<F&>;
    auto done = std::make_shared<std::promise<R>>();  // shared: the loop thread may still hold it when we return
    auto future = done->get_future();
    asio::post(executor_, [&f, done] {
      try {
        if constexpr (std::is_void_v<R>) {
          f();
          done->set_value();
        } else {
          done->set_value(f());
        }
      } catch (...) {
        done->set_exception(std::current_exception());
      }
    });
    return future.get();
  }

  // Posts `f()` to the loop thread without waiting (destructors).
  template <class F>
  void post(F&& f) const {
    asio::post(executor_, std::forward<F>(f));
  }

  // Acquires `l` (on the loop thread), waiting at most until `deadline` (past or now: one try, given at most the
  // session timeout for its round trip). Empty error: held; lock_errc::timeout when not acquired in time;
  // client_error::closed when the loop is gone.
  std::error_code acquire(lock& l, steady_deadline deadline) const noexcept {
    return timed(deadline, [&l](std::chrono::milliseconds timeout, auto handler) {
      l.async_acquire(timeout, std::move(handler));
    });
  }
  // Releases `l` and waits until the delete is confirmed, at most the session timeout; the delete then goes on in
  // the background. Never throws (called from unlock()).
  void release(lock& l) const noexcept;

  // What acquire() does for any operation started by `start(timeout, handler)` on the loop thread that takes a
  // lock-style timeout (negative: none; 0: one try) and completes with void(std::error_code), cancellable through the
  // handler's slot. The timeout is what is left until `deadline`, taken on the loop thread.
  template <class Start>
  std::error_code timed(steady_deadline deadline, Start start) const noexcept;
  // Starts `start(handler)` on the loop thread (an operation completing with void(std::error_code)) and waits for
  // its result at most `bound`: nullopt when it did not come in time (the operation goes on). Throws what the loop
  // thread's part threw, client_error::closed when the loop is gone.
  template <class Start>
  std::optional<std::error_code> wait(Start start, std::optional<std::chrono::nanoseconds> bound = std::nullopt) const;

  [[nodiscard]] bool on_loop_thread() const noexcept { return std::this_thread::get_id() == loop_thread_; }
  // Throws std::logic_error on the loop thread (see run()).
  void check_thread() const;

 private:
  client* client_;
  asio::any_io_executor executor_;
  std::thread::id loop_thread_;
};

template <class Start>
std::error_code loop_bridge::timed(steady_deadline deadline, Start start) const noexcept {
  try {
    // Shared with the handler: the loop thread may still hold it when we return.
    const auto done = std::make_shared<std::promise<std::error_code>>();
    auto future = done->get_future();
    // Shared with the handler bound to its slot: alive until the operation completed and the signal was emitted.
    auto stop = std::make_shared<asio::cancellation_signal>();
    std::optional<std::chrono::milliseconds> try_once_bound;
    run([&] {
      // The remaining time is taken on the loop thread, just before the operation starts.
      std::chrono::milliseconds timeout(-1);
      if (deadline) {
        const auto left = std::chrono::ceil<std::chrono::milliseconds>(*deadline - std::chrono::steady_clock::now());
        timeout = std::max(left, std::chrono::milliseconds(0));
      }
      // A try waits for its round trip, and without a server (or a request_timeout) would wait for one for good:
      // it gets what the client gives a connection by default, the session timeout.
      if (timeout.count() == 0) try_once_bound = client_->session_timeout();
      start(timeout,
            asio::bind_cancellation_slot(stop->slot(), [done, stop](std::error_code ec) { done->set_value(ec); }));
    });
    if (try_once_bound && future.wait_for(*try_once_bound) == std::future_status::timeout) {
      // No answer in time: give up like any try that ran out of time. A success racing the cancellation wins.
      post([stop] { stop->emit(asio::cancellation_type::terminal); });
      const std::error_code ec = future.get();
      return ec == lock_errc::cancelled ? make_error_code(lock_errc::timeout) : ec;
    }
    return future.get();
  } catch (...) {  // the loop is gone (a broken promise) or out of memory: nothing is running
    return make_error_code(client_error::closed);
  }
}

template <class Start>
std::optional<std::error_code> loop_bridge::wait(Start start, std::optional<std::chrono::nanoseconds> bound) const {
  const auto done = std::make_shared<std::promise<std::error_code>>();
  auto future = done->get_future();
  run([&] { start([done](std::error_code ec) { done->set_value(ec); }); });
  if (bound && future.wait_for(*bound) == std::future_status::timeout) return std::nullopt;
  return future.get();
}

// The exception the blocking locks throw for `ec`: std::system_error naming the operation and the lock directory.
[[noreturn]] void throw_lock_error(std::error_code ec, const char* operation, const std::string& directory);

}  // namespace zkwire::recipes::detail
