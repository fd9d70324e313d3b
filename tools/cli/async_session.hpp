#pragma once
// The session of the commands built on the lock recipes (lock, locks, revoke). The recipes need the asynchronous
// zkwire::client, so this owns an asio::io_context run on the calling thread (no thread of its own, unlike the
// blocking session of the data commands) and a client on it, configured from the global options like session.

#include <asio/io_context.hpp>
#include <chrono>
#include <optional>
#include <string>
#include <system_error>
#include <utility>

#include "errors.hpp"
#include "global_options.hpp"
#include "zkwire/client/client.hpp"
#include "zkwire/proto/error.hpp"

namespace zkwire::cli {

class async_session {
 public:
  // Creates the client (usage_error for a bad connect string); does not connect.
  explicit async_session(const global_options& global);
  ~async_session();
  async_session(const async_session&) = delete;
  async_session& operator=(const async_session&) = delete;
  async_session(async_session&&) = delete;
  async_session& operator=(async_session&&) = delete;

  [[nodiscard]] asio::io_context& io() noexcept { return io_; }
  [[nodiscard]] zkwire::client& client() noexcept { return *client_; }
  [[nodiscard]] const std::string& servers() const noexcept { return servers_; }
  [[nodiscard]] std::chrono::milliseconds connect_timeout() const noexcept { return connect_timeout_; }

  // Runs the loop until the session is connected; operation_error{code, servers} if it is not within the connect
  // timeout (or the credentials are refused).
  void connect();

  // Starts an operation with `start(handler)`, where handler is void(std::error_code, Result), and runs the loop
  // until it completes. Returns the error and the result.
  template <class Result, class Start>
  std::pair<std::error_code, Result> wait(Start&& start) {
    std::optional<std::pair<std::error_code, Result>> out;
    std::forward<Start>(start)([&out](std::error_code ec, Result r) { out.emplace(ec, std::move(r)); });
    run_until([&] { return out.has_value(); });
    if (!out) return {proto::client_error::closed, Result{}};  // the loop ran out of work: nothing will complete
    return std::move(*out);
  }

  // A read: wait(), retried after a connection loss once the session is connected again, until the connect timeout
  // has passed since the first loss (a read has no side effect). Throws operation_error{code, subject}.
  template <class Result, class Start>
  Result read(const std::string& subject, Start&& start) {
    std::optional<std::chrono::steady_clock::time_point> deadline;
    while (true) {
      auto [ec, result] = wait<Result>(start);
      if (!ec) return std::move(result);
      if (!proto::is_connection_loss(ec)) throw operation_error(ec, subject);
      const auto now = std::chrono::steady_clock::now();
      if (!deadline) deadline = now + connect_timeout_;
      if (now >= *deadline || !try_connect()) throw operation_error(ec, subject);
    }
  }

  // Closes the session (the server deletes our ephemeral nodes), waiting at most `limit`; errors are ignored
  // (an unclosed session ends when it times out on the server).
  void close(std::chrono::milliseconds limit);

  // Runs the loop on this thread until `done()` is true (or nothing is left to run).
  template <class Done>
  void run_until(Done done) {
    io_.restart();
    while (!done() && io_.run_one() > 0) {
    }
  }

 private:
  bool try_connect();

  std::chrono::milliseconds connect_timeout_;
  std::string servers_;
  asio::io_context io_;
  std::optional<zkwire::client> client_;
  bool closed_ = false;
};

}  // namespace zkwire::cli
