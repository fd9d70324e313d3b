#pragma once
// Helpers for the zkwire::client integration tests: run a coroutine on a test-owned io_context until it
// finishes (with a deadline), run an io_context on a thread of its own, and small awaitable shorthands.

#include <gtest/gtest.h>

#include <asio/co_spawn.hpp>
#include <asio/executor_work_guard.hpp>
#include <asio/experimental/as_tuple.hpp>
#include <asio/io_context.hpp>
#include <asio/post.hpp>
#include <asio/steady_timer.hpp>
#include <asio/use_awaitable.hpp>
#include <asio/use_future.hpp>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <future>
#include <mutex>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <utility>

#include "support/eventually.hpp"
#include "zkwire/client/client.hpp"

namespace zkwire::test {

// Awaitable token that returns (error_code, result...) as a tuple instead of throwing.
inline constexpr auto tuple_awaitable = asio::experimental::as_tuple(asio::use_awaitable);

inline client_options client_options_for(std::string connect_string,
                                         std::chrono::milliseconds session_timeout = std::chrono::seconds(10)) {
  client_options options;
  options.connect_string = std::move(connect_string);
  options.session_timeout = session_timeout;
  options.seed = 42;  // deterministic host order and jitter
  if (std::getenv("ZKWIRE_TEST_LOG") != nullptr) {
    options.logger = [](log_level level, std::string_view message) {
      std::fprintf(stderr, "[zkwire %s] %.*s\n", std::string(log_level_name(level)).c_str(),
                   static_cast<int>(message.size()), message.data());
    };
  }
  return options;
}

// Runs `co` on `io` (on this thread) until it finishes; fails the test (throws) after `timeout`.
template <class T>
T run_co(asio::io_context& io, asio::awaitable<T> co, std::chrono::milliseconds timeout = std::chrono::seconds(60)) {
  auto future = asio::co_spawn(io, std::move(co), asio::use_future);
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (future.wait_for(std::chrono::seconds(0)) != std::future_status::ready) {
    if (std::chrono::steady_clock::now() > deadline) throw std::runtime_error("run_co: timed out");
    if (io.stopped()) io.restart();
    io.run_one_for(std::chrono::milliseconds(50));
  }
  return future.get();
}

// Runs `io` on this thread until `done()` is true (test::eventually, running the context between polls); the
// failure says what was awaited.
inline ::testing::AssertionResult run_until(asio::io_context& io, const std::function<bool()>& done,
                                            std::chrono::milliseconds timeout = std::chrono::seconds(60),
                                            std::string_view what = "the awaited completion") {
  return eventually(done, timeout, what, {}, [&io](std::chrono::milliseconds interval) {
    if (io.stopped()) io.restart();
    io.run_one_for(interval);
  });
}

// Runs `io` for `duration` (handlers keep running meanwhile).
inline void run_for(asio::io_context& io, std::chrono::milliseconds duration) {
  const auto deadline = std::chrono::steady_clock::now() + duration;
  while (std::chrono::steady_clock::now() < deadline) {
    if (io.stopped()) io.restart();
    io.run_one_until(deadline);
  }
}

inline asio::awaitable<void> sleep_for(std::chrono::milliseconds duration) {
  asio::steady_timer timer(co_await asio::this_coro::executor, duration);
  co_await timer.async_wait(asio::use_awaitable);
}

// An io_context run by a thread of its own, for tests that act on servers (kill, pause) while operations are in
// flight. Touch clients only through on_loop().
class loop_thread {
 public:
  loop_thread() : work_(io_.get_executor()), thread_([this] { io_.run(); }) {}
  loop_thread(const loop_thread&) = delete;
  loop_thread& operator=(const loop_thread&) = delete;
  loop_thread(loop_thread&&) = delete;
  loop_thread& operator=(loop_thread&&) = delete;
  ~loop_thread() {
    work_.reset();
    io_.stop();
    thread_.join();
  }

  asio::io_context& io() { return io_; }

  // Runs f() on the loop thread and returns its result.
  template <class F>
  auto on_loop(F&& f) {
    using R = decltype(f());
    std::packaged_task<R()> task(std::forward<F>(f));
    auto future = task.get_future();
    asio::post(io_, [&task] { task(); });
    return future.get();
  }

 private:
  asio::io_context io_;
  asio::executor_work_guard<asio::io_context::executor_type> work_;
  std::thread thread_;
};

}  // namespace zkwire::test

// ASSERT_* for coroutines (gtest's ASSERT_* use `return`): records a failure and leaves the coroutine.
#define ZKWIRE_CO_ASSERT(condition)                               \
  do {                                                            \
    if (!(condition)) {                                           \
      ADD_FAILURE() << "coroutine assertion failed: " #condition; \
      co_return;                                                  \
    }                                                             \
  } while (false)
