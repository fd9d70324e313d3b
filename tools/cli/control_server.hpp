#pragma once
// The HTTP server of `zkwire proxy --control`: plain HTTP/1.1 (cpp-httplib, no TLS) in front of a
// proxy_controller, on threads of its own.
//
// Threads: start() runs the accept loop on a thread the server owns, and requests are answered by a pool of two
// worker threads; they call only proxy_controller::handle(), which is thread-safe with respect to the proxies'
// io_context (see proxy_control.hpp). stop() ends both and joins them; call it before the controller or the
// proxies go away (the destructor does).
// Errors: bind() returns false when the address cannot be bound (in use, not local, unresolvable); requests the
// server cannot parse get an HTTP error status with a {"error":...} body.

#include <cstdint>
#include <memory>
#include <string>

#include "proxy_control.hpp"

namespace zkwire::cli {

class control_server {
 public:
  explicit control_server(const proxy_controller& controller);
  ~control_server();
  control_server(const control_server&) = delete;
  control_server& operator=(const control_server&) = delete;
  control_server(control_server&&) = delete;
  control_server& operator=(control_server&&) = delete;

  // Binds host:port (port 0: a free one, see port()). Call once, before start().
  bool bind(const std::string& host, std::uint16_t port);
  [[nodiscard]] std::uint16_t port() const noexcept;
  // Serves until stop(); returns once the server accepts connections.
  void start();
  // Stops serving and joins the threads. Idempotent.
  void stop();

 private:
  struct impl;
  std::unique_ptr<impl> impl_;
};

}  // namespace zkwire::cli
