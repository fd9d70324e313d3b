#pragma once
// The executor of a handle's client: the handle's io_context, with every handler run under the handle's client lock.
// The I/O thread runs the client's handlers under it; an application thread that holds it may call the client
// directly (run_on_io), and with client_options::start_requests_inline the client writes that thread's request
// itself, so a call does not have to wake the I/O thread to send (docs/libzookeeper.md#threads).
//
// The lock is recursive: a handler that runs under it may start another operation (run_on_io) on the same thread.

#include <asio/execution.hpp>
#include <asio/io_context.hpp>
#include <asio/post.hpp>
#include <mutex>
#include <utility>

namespace zkwire::capi {

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
      const std::lock_guard guard(*lock_);
      std::forward<F>(f)();
      return;
    }
    asio::post(*io_, [lock = lock_, f = std::forward<F>(f)]() mutable {
      const std::lock_guard guard(*lock);
      std::move(f)();
    });
  }

  friend bool operator==(const locked_executor& a, const locked_executor& b) noexcept {
    return a.io_ == b.io_ && a.lock_ == b.lock_ && a.never_ == b.never_;
  }
  friend bool operator!=(const locked_executor& a, const locked_executor& b) noexcept { return !(a == b); }

 private:
  asio::io_context* io_;
  std::recursive_mutex* lock_;
  bool never_ = false;
};

}  // namespace zkwire::capi
