#include "loop_bridge.hpp"

#include <stdexcept>
#include <utility>

namespace zkwire::recipes::detail {

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
        "zkwire::recipes: a blocking lock or election was called from the client's loop thread (a listener or watch "
        "callback); use zkwire::recipes::lock or election there");
  }
}

void loop_bridge::release(lock& l) const noexcept {
  try {
    // Unconfirmed after the session timeout: the recipe keeps deleting in the background (see blocking_lock.hpp).
    (void)wait([&l](auto handler) { l.async_release(std::move(handler)); }, client_->session_timeout());
  } catch (...) {  // NOLINT(bugprone-empty-catch): unlock cannot report; the lock's own cleanup goes on
  }
}

void throw_lock_error(std::error_code ec, const char* operation, const std::string& directory) {
  throw std::system_error(ec, std::string(operation) + " " + directory);
}

}  // namespace zkwire::recipes::detail
