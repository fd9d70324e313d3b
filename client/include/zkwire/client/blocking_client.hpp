#pragma once
// zkwire::blocking_client: synchronous calls for programs without an event loop (the CLI, scripts, tests).
//
// It owns an asio::io_context and runs it on ONE THREAD OF ITS OWN, started by the constructor and joined by the
// destructor; a zkwire::client lives on that loop. Each method posts the operation to the loop thread and blocks
// the caller until it completes.
//
// Errors: every method returns its result and throws std::system_error on failure, with the error_code of the
// asynchronous client (see client.hpp) in code() and what() naming the operation and path, e.g.
// "create /a/b: no node". exists() reports a missing node as nullopt, not as an error. multi() throws
// multi_error, which also carries the per-op results. multi_read() throws only when the request as a whole failed;
// per-read errors are in op_result::error.
//
// Deadlines: every call waits as long as client_options::request_timeout allows (none by default). For a deadline
// of its own, call through with_timeout(), as zkwire::with_timeout does for the asynchronous client:
//   auto config = c.with_timeout(std::chrono::milliseconds(200)).get("/config");
// A call past its deadline throws std::system_error(client_error::operation_timeout), waiting for a connection
// included; the session is not affected (a write's outcome is then unknown, client.hpp "Deadlines"). The blocking
// locks (recipes/blocking_lock.hpp) take theirs from try_lock_for() and try_lock_until().
//
// Thread safety: the methods may be called from any number of threads (calls are serialized on the loop
// thread). Watch callbacks, the state listener and the logger run on the loop thread; calling a blocking method
// from one of them would deadlock, so it throws std::logic_error instead.
//
// Lifetime: the destructor drops the connection WITHOUT closing the session (its ephemeral nodes then live until
// the session times out on the server); call close() first for a clean end. After close(), session expiry or an
// authentication failure, every call throws (is_session_fatal(e.code())).

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <system_error>
#include <vector>

#include "zkwire/client/options.hpp"
#include "zkwire/client/types.hpp"

namespace zkwire {

class client;

// A multi that failed: code() is the error that made it fail, results() says which op it was.
class multi_error : public std::system_error {
 public:
  multi_error(std::error_code ec, std::vector<op_result> results)
      : std::system_error(ec, "multi"), results_(std::move(results)) {}
  [[nodiscard]] const std::vector<op_result>& results() const noexcept { return results_; }

 private:
  std::vector<op_result> results_;
};

class blocking_client {
 public:
  // Starts the loop thread; does not connect (connect() does, and so does the first operation). Throws like
  // zkwire::client's constructor for an invalid connect string.
  explicit blocking_client(client_options options);
  ~blocking_client();
  blocking_client(const blocking_client&) = delete;
  blocking_client& operator=(const blocking_client&) = delete;
  blocking_client(blocking_client&&) = delete;
  blocking_client& operator=(blocking_client&&) = delete;

  // A handle on this client whose requests each carry `timeout` as their deadline instead of
  // client_options::request_timeout (see "Deadlines"): zero or negative fails at once, nothing sent. It shares this
  // client, its loop thread and session, and may be kept for a series of calls (or made again for each). It
  // keeps the client alive: the last handle left joins the loop thread, so none may be destroyed on it. connect(),
  // new_session(), close() and add_auth() wait as without it (the connect timeout applies).
  [[nodiscard]] blocking_client with_timeout(std::chrono::nanoseconds timeout) const;

  // Blocks until the session is connected; throws client_errc::connect_timeout after options.connect_timeout, or
  // client_errc::closed_before_handshake when the servers close every connection unanswered (maxClientCnxns; for a
  // client that never had a session after a few rounds, not at the timeout: client::async_connect).
  void connect();
  // After expiry or auth failure starts a new session and blocks until it is connected (client::async_new_session).
  void new_session();
  // Closes the session (the server deletes its ephemeral nodes).
  void close();
  void add_auth(const std::string& scheme, const std::string& credentials);

  [[nodiscard]] session_state state() const;
  [[nodiscard]] std::int64_t session_id() const;
  [[nodiscard]] std::chrono::milliseconds session_timeout() const;
  // The server of the current connection, if connected (client::connected_host).
  [[nodiscard]] std::optional<host_port> connected_host() const;
  // The hosts and chroot the client uses (client::servers(); follow_config changes the hosts).
  [[nodiscard]] connect_string servers() const;
  // Runs on the loop thread; see the class comment.
  void set_state_listener(state_listener listener);

  create_result create(const std::string& path, const std::string& data, const create_options& options = {});
  create_result create(const std::string& path, const std::string& data, create_mode mode) {
    return create(path, data, create_options::with_mode(mode));
  }
  void remove(const std::string& path, std::int32_t version = any_version);
  std::optional<stat> exists(const std::string& path);
  std::optional<stat> exists(const std::string& path, watch_callback on_event);
  get_result get(const std::string& path);
  get_result get(const std::string& path, watch_callback on_event);
  stat set(const std::string& path, const std::string& data, std::int32_t version = any_version);
  children_result get_children(const std::string& path);
  children_result get_children(const std::string& path, watch_callback on_event);
  acl_result get_acl(const std::string& path);
  stat set_acl(const std::string& path, const std::vector<acl>& acl_list, std::int32_t version = any_version);
  void sync(const std::string& path);
  std::vector<op_result> multi(const std::vector<multi_op>& ops);
  std::vector<op_result> multi_read(const std::vector<multi_op>& ops);
  void add_watch(const std::string& path, add_watch_mode mode, watch_callback on_event);
  void remove_watches(const std::string& path, watcher_type type);
  // checkWatches: returns normally if the server has such a watch, throws NOWATCHER if not.
  void check_watches(const std::string& path, watcher_type type);
  // Dynamic configuration (client::async_get_config, async_reconfig).
  get_result get_config();
  get_result get_config(watch_callback on_event);
  get_result reconfig(const std::optional<std::string>& joining, const std::optional<std::string>& leaving,
                      const std::optional<std::string>& new_members, std::int64_t from_config = -1);
  std::vector<std::string> get_ephemerals(const std::string& prefix);
  std::int32_t get_all_children_number(const std::string& path);
  std::vector<client_info> whoami();

  // The asynchronous client its loop thread runs, for libraries layered on this facade (the recipes' blocking
  // locks). Use it only on its own executor (asio::post to async_client().get_executor()): that executor runs on
  // the loop thread until this object is destroyed.
  [[nodiscard]] client& async_client() noexcept;

 private:
  struct impl;
  blocking_client(std::shared_ptr<impl> shared, std::chrono::nanoseconds timeout);

  std::shared_ptr<impl> impl_;
  std::optional<std::chrono::nanoseconds> timeout_;  // with_timeout()'s deadline of each request
};

}  // namespace zkwire
