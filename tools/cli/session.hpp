#pragma once
// The CLI's ZooKeeper session: client_options from the global options, connect, verbose logging, and error
// translation. Every failure of an operation throws operation_error{code, path}; reads are retried after a
// connection loss as long as the session comes back within the connect timeout (a read has no side effect, so its
// outcome is never "unknown"); writes are not retried.

#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>

#include "errors.hpp"
#include "global_options.hpp"
#include "zkwire/client/blocking_client.hpp"
#include "zkwire/client/errors.hpp"

namespace zkwire::cli {

// The client options for `global`: servers, session and connect timeouts, credentials (SCHEME:CREDENTIALS split
// at the first ':'). The logger is set by session when verbose.
// The client options of the global options (servers, timeouts, credentials, -v logging to stderr).
client_options make_client_options(const global_options& global);

class session {
 public:
  // Validates the connect string (usage_error), then connects; operation_error with the server list as the
  // subject if no session is established within the connect timeout (or the credentials are refused).
  explicit session(const global_options& global);
  // Closes the session (the server deletes our ephemeral nodes), ignoring errors.
  ~session();
  session(const session&) = delete;
  session& operator=(const session&) = delete;
  session(session&&) = delete;
  session& operator=(session&&) = delete;

  [[nodiscard]] blocking_client& client() noexcept { return *client_; }

  // Called (on the client's loop thread, after the verbose output) on every session state change.
  void on_state_change(state_listener listener);

  // Runs `op()` and returns its value; a failure throws operation_error{code, path}.
  template <class Op>
  auto write(const std::string& path, Op&& op) {
    try {
      return op();
    } catch (const std::system_error& e) {
      throw operation_error(e.code(), path);
    }
  }

  // Like write, but retries `op()` after a connection loss once the session is connected again, until the
  // connect timeout has passed since the first loss.
  template <class Op>
  auto read(const std::string& path, Op&& op) {
    std::optional<std::chrono::steady_clock::time_point> deadline;
    while (true) {
      try {
        return op();
      } catch (const std::system_error& e) {
        if (!proto::is_connection_loss(e.code())) throw operation_error(e.code(), path);
        const auto now = std::chrono::steady_clock::now();
        if (!deadline) deadline = now + connect_timeout_;
        if (now >= *deadline || !reconnect()) throw operation_error(e.code(), path);
      }
    }
  }

  [[nodiscard]] std::chrono::milliseconds connect_timeout() const noexcept { return connect_timeout_; }

 private:
  bool reconnect();

  std::chrono::milliseconds connect_timeout_;
  std::string servers_;
  std::unique_ptr<blocking_client> client_;
  bool connected_ = false;
  std::shared_ptr<std::mutex> listener_mutex_ = std::make_shared<std::mutex>();
  std::shared_ptr<state_listener> extra_listener_ = std::make_shared<state_listener>();
};

}  // namespace zkwire::cli
