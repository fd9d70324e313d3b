#pragma once
// The handle's client lock: the client (and the handle's state beside it) is only touched under it. The I/O thread
// runs every handler of the client under it (locked_executor, the client's executor); an application thread takes
// it to start its operation itself (run_locked), and with client_options::start_requests_inline the client writes
// that thread's request at once, so a call does not have to wake the I/O thread (docs/libzookeeper.md#threads).
//
// The lock is recursive: a handler that runs under it may start another operation on the same thread.

#include <asio/execution.hpp>
#include <asio/io_context.hpp>
#include <asio/post.hpp>
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <utility>

namespace zkwire::capi {

// Holds a client lock for its scope. Wakes asked for under it (wake_after_unlock) happen when the thread releases
// the last client lock it holds: a caller woken while the I/O thread still held the lock would block on it at once.
class client_lock_guard {
 public:
  explicit client_lock_guard(std::recursive_mutex& lock);
  ~client_lock_guard();
  client_lock_guard(const client_lock_guard&) = delete;
  client_lock_guard& operator=(const client_lock_guard&) = delete;
  client_lock_guard(client_lock_guard&&) = delete;
  client_lock_guard& operator=(client_lock_guard&&) = delete;

 private:
  std::recursive_mutex& lock_;
};

// Sleeps while `word` holds `expected` (or until a wake-up, which may be spurious).
void futex_wait(std::atomic<std::uint32_t>& word, std::uint32_t expected) noexcept;
// Wakes a thread sleeping on `word`: at once, or, on a thread holding a client lock, once it holds none. `word`
// stays alive until then.
void wake_after_unlock(std::shared_ptr<std::atomic<std::uint32_t>> word);

// The handle's io_context, with every handler run under the client lock.
class locked_executor {
 public:
  locked_executor(asio::io_context& io, std::recursive_mutex& lock) noexcept : io_(&io), lock_(&lock) {}

  [[nodiscard]] asio::execution_context& query(asio::execution::context_t /*property*/) const noexcept { return *io_; }
  [[nodiscard]] asio::execution::blocking_t query(asio::execution::blocking_t /*property*/) const noexcept {
    return never_ ? asio::execution::blocking_t(asio::execution::blocking.never)
                  : asio::execution::blocking_t(asio::execution::blocking.possibly);
  }
  [[nodiscard]] locked_executor require(asio::execution::blocking_t::never_t /*property*/) const noexcept {
    locked_executor copy = *this;
    copy.never_ = true;
    return copy;
  }
  [[nodiscard]] locked_executor require(asio::execution::blocking_t::possibly_t /*property*/) const noexcept {
    locked_executor copy = *this;
    copy.never_ = false;
    return copy;
  }

  // Runs `f` under the lock: at once when it may block and the I/O thread asks, else later on the I/O thread.
  template <class F>
  void execute(F&& f) const {
    if (!never_ && io_->get_executor().running_in_this_thread()) {
      const client_lock_guard guard(*lock_);
      std::forward<F>(f)();
      return;
    }
    asio::post(*io_, [lock = lock_, f = std::forward<F>(f)]() mutable {
      const client_lock_guard guard(*lock);
      std::move(f)();
    });
  }

  friend bool operator==(const locked_executor& a, const locked_executor& b) noexcept {
    return a.io_ == b.io_ && a.lock_ == b.lock_ && a.never_ == b.never_;
  }

 private:
  asio::io_context* io_;
  std::recursive_mutex* lock_;
  bool never_ = false;
};

}  // namespace zkwire::capi
