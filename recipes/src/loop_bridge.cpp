#include "loop_bridge.hpp"

#include <algorithm>
#include <asio/bind_cancellation_slot.hpp>
#include <asio/cancellation_signal.hpp>
#include <stdexcept>
#include <utility>

namespace zkwire::recipes::detail {

namespace {

// The completion of one acquire or release, shared with the handler: the handler may run after the waiting
// thread stopped waiting for it (release's bounded wait).
using result_promise = std::shared_ptr<std::promise<std::error_code>>;

}  // namespace

loop_bridge::loop_bridge(blocking_client& c) : client_(&c.async_client()), executor_(client_->get_executor()) {
  // state() throws std::logic_error on the loop thread, where the waits below would deadlock.
  (void)c.state();
  std::promise<std::thread::id> id;
  auto future = id.get_future();
  asio::post(executor_, [&id] { id.set_value(std::this_thread::get_id()); });
  loop_thread_ = future.get();
}

void loop_bridge::check_thread() const {
  if (on_loop_thread()) {
    throw std::logic_error(
        "zkwire::recipes: a blocking lock was called from the client's loop thread (a listener or watch callback); "
        "use zkwire::recipes::lock there");
  }
}

std::error_code loop_bridge::acquire(lock& l, steady_deadline deadline) const noexcept {
  try {
    const result_promise done = std::make_shared<std::promise<std::error_code>>();
    auto future = done->get_future();
    // Shared with the handler bound to its slot: alive until the acquire completed and the signal was emitted.
    auto stop = std::make_shared<asio::cancellation_signal>();
    std::optional<std::chrono::milliseconds> try_once_bound;
    run([&] {
      // The remaining time is taken on the loop thread, just before the acquire starts.
      std::chrono::milliseconds timeout(-1);
      if (deadline) {
        const auto left = std::chrono::ceil<std::chrono::milliseconds>(*deadline - std::chrono::steady_clock::now());
        timeout = std::max(left, std::chrono::milliseconds(0));
      }
      // A try-once acquire waits for its round trip, and without a server (or a request_timeout) would wait for
      // one for good: it gets what the client gives a connection by default, the session timeout.
      if (timeout.count() == 0) try_once_bound = client_->session_timeout();
      l.async_acquire(timeout, asio::bind_cancellation_slot(stop->slot(),
                                                            [done, stop](std::error_code ec) { done->set_value(ec); }));
    });
    if (try_once_bound && future.wait_for(*try_once_bound) == std::future_status::timeout) {
      // No answer in time: give up like any try that ran out of time. A grant racing the cancellation wins.
      post([stop] { stop->emit(asio::cancellation_type::terminal); });
      const std::error_code ec = future.get();
      return ec == lock_errc::cancelled ? make_error_code(lock_errc::timeout) : ec;
    }
    return future.get();
  } catch (...) {  // the loop is gone (a broken promise) or out of memory: no acquire is running
    return make_error_code(client_error::closed);
  }
}

void loop_bridge::release(lock& l) const noexcept {
  try {
    const result_promise done = std::make_shared<std::promise<std::error_code>>();
    auto future = done->get_future();
    const auto bound = run([&] {
      l.async_release([done](std::error_code ec) { done->set_value(ec); });
      return client_->session_timeout();
    });
    // Unconfirmed after the session timeout: the recipe keeps deleting in the background (see blocking_lock.hpp).
    (void)future.wait_for(bound);
  } catch (...) {  // NOLINT(bugprone-empty-catch): unlock cannot report; the lock's own cleanup goes on
  }
}

void throw_lock_error(std::error_code ec, const char* operation, const std::string& directory) {
  throw std::system_error(ec, std::string(operation) + " " + directory);
}

}  // namespace zkwire::recipes::detail
