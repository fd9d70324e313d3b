#pragma once
// Runs lock recipe operations on a blocking_client's loop thread and blocks the calling thread until they complete:
// the plumbing of blocking_lock and blocking_read_write_lock. The lock objects themselves live on the loop thread
// (they are not thread-safe); every touch goes through run().

#include <asio/any_io_executor.hpp>
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
  std::error_code acquire(lock& l, steady_deadline deadline) const noexcept;
  // Releases `l` and waits until the delete is confirmed, at most the session timeout; the delete then goes on in
  // the background. Never throws (called from unlock()).
  void release(lock& l) const noexcept;

  [[nodiscard]] bool on_loop_thread() const noexcept { return std::this_thread::get_id() == loop_thread_; }
  // Throws std::logic_error on the loop thread (see run()).
  void check_thread() const;

 private:
  client* client_;
  asio::any_io_executor executor_;
  std::thread::id loop_thread_;
};

// The exception the blocking locks throw for `ec`: std::system_error naming the operation and the lock directory.
[[noreturn]] void throw_lock_error(std::error_code ec, const char* operation, const std::string& directory);

}  // namespace zkwire::recipes::detail
