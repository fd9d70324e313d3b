#pragma once
// The Asio driver of the session engine (the loop is described at the top of zkwire/proto/session/session.hpp):
// one connection at a time through a transport (one read into prepare_read, one write of take_output), one
// wakeup from the clock at next_wakeup, and the engine's deliveries turned into completion handler invocations.
// Everything runs on the client's executor.

#include <asio/any_io_executor.hpp>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <string>

#include "handler_memory.hpp"
#include "pending_ops.hpp"
#include "read_write_probe.hpp"
#include "waiters.hpp"
#include "watch_callbacks.hpp"
#include "zkwire/client/client.hpp"
#include "zkwire/client/clock.hpp"
#include "zkwire/client/transport.hpp"

namespace zkwire::detail {

// A session id or config version as ZooKeeper logs them: 0x and lower-case hex.
std::string hex_session(std::int64_t id);

// NOLINTNEXTLINE(cppcoreguidelines-virtual-class-destructor): final and owned by shared_ptr<client_impl> only
class client_impl final : public std::enable_shared_from_this<client_impl>, private transport_events {
 public:
  client_impl(asio::any_io_executor executor, client_options options, connect_string servers);
  client_impl(const client_impl&) = delete;
  client_impl& operator=(const client_impl&) = delete;
  client_impl(client_impl&&) = delete;
  client_impl& operator=(client_impl&&) = delete;
  ~client_impl();

  // --- called by the adapters (on the client's executor) ---
  proto::request_id start_request(proto::op_code op, proto::request_body body, std::optional<watch_registration> watch,
                                  std::unique_ptr<pending_op> op_state, std::optional<std::chrono::nanoseconds> timeout,
                                  bool server_path = false);
  proto::request_id start_add_auth(std::string scheme, std::string credentials, std::unique_ptr<pending_op> op_state);
  void cancel(proto::request_id id);
  std::uint64_t start_wait(wait_kind kind, std::unique_ptr<pending_op> op_state);
  void cancel_wait(std::uint64_t id);
  // The host list changes (set_hosts, follow_config): rebalance as choose_host_after_reconfig says; `what` starts
  // the log line, `reason` is the state change's when the client moves.
  void replace_hosts(std::vector<host_port> hosts, const std::string& what, std::error_code reason);
  // Reconnect now to hosts[index], keeping the session (switch_host).
  void switch_host(std::size_t index);
  // removeWatches, or with `key` checkWatches removing that watcher alone (start_remove_watches in core.hpp).
  proto::request_id start_remove_watches(std::string path, watcher_type type, std::optional<watcher_key> key,
                                         std::unique_ptr<pending_op> op_state,
                                         std::optional<std::chrono::nanoseconds> timeout);
  // client::remove_local_watches / remove_local_watcher: the engine removes them; their events go out with the
  // next pump.
  bool remove_local_watches(std::string_view path, watcher_type type, std::optional<watcher_key> key);
  [[nodiscard]] bool watching(std::string_view path, watcher_type type, watcher_key key) const;
  [[nodiscard]] std::vector<watcher_key> watcher_keys() const;
  // The client object is going away: fail everything, drop the connection.
  void shutdown() noexcept;

  // --- observers ---
  [[nodiscard]] const asio::any_io_executor& executor() const noexcept { return executor_; }
  [[nodiscard]] const proto::session& engine() const noexcept { return engine_; }
  // The user-side watchers (callbacks, zkwire::watch states): every engine registration has one, and so does a
  // watcher whose request is in flight.
  [[nodiscard]] std::size_t watch_count() const noexcept { return watchers_.size(); }
  [[nodiscard]] const connect_string& servers() const noexcept { return servers_; }
  [[nodiscard]] const std::shared_ptr<zkwire::clock>& time_source() const noexcept { return clock_; }
  void set_listener(state_listener listener) { listener_ = std::move(listener); }
  std::uint64_t add_observer(state_listener observer);
  void remove_observer(std::uint64_t id) noexcept { observers_.erase(id); }

 private:
  enum class lifecycle { idle, running, shut_down };  // before the first operation; until shutdown()
  enum class link { closed, connecting, open };       // the transport's connection; a read is outstanding when open
  enum class pumping { no, yes, again };              // inside pump(); `again`: something asked for another round

  template <class MakeMessage>
  void log(log_level level, MakeMessage&& make) {
    if (options_.logger) options_.logger(level, make());
  }
  [[nodiscard]] proto::time_point now() const { return clock_->now(); }

  void ensure_started();
  // Submits to the engine with `watcher` (0: none) and keeps the operation; `tracked` is the watcher whose request
  // this is for watch_callbacks (0 for a removal that names a watcher without registering it).
  proto::request_id submit(proto::op_code op, proto::request_body body, proto::watcher_id watcher,
                           proto::watcher_id tracked, std::unique_ptr<pending_op> op_state,
                           std::optional<std::chrono::nanoseconds> timeout, bool server_path);
  void schedule_pump();
  void pump();
  void deliver(proto::delivery&& d);
  void on_completion(proto::completion&& c);
  void on_state(const proto::state_change& s);
  void expire_waiter(std::uint64_t id);
  void arm_timer();
  void on_timer();
  void on_read_write_server(std::size_t index);
  // client_options::follow_config: read /zookeeper/config with a watch, apply what it says.
  void read_config();
  void on_config(proto::completion&& c);
  void on_config_event(const watch_event& event);
  void apply_config(const std::string& text);
  [[nodiscard]] std::optional<host_port> current_host_port() const;

  // The connection.
  void close_connection() noexcept;
  void open_connection(std::size_t index);
  void start_read();
  void start_write(std::string_view bytes);
  void write_output();  // take_output's bytes while the link is open and free
  // start_requests_inline: writes a request submitted from outside the loop at once; false leaves it to the loop.
  bool write_inline();
  void connection_error(const std::error_code& error);
  // The cause connect waiters get when no session came in time: a TLS failure, an unknown host, connections closed
  // before the handshake; else client_errc::connect_timeout.
  [[nodiscard]] std::error_code connect_failure_cause() const;
  void on_connected(std::error_code ec) override;
  void on_read(std::error_code ec, std::size_t n) override;
  void on_written(std::error_code ec) override;

  handler_memory pump_memory_;  // first: outlives the posted pump that uses it
  asio::any_io_executor executor_;
  client_options options_;
  connect_string servers_;
  std::shared_ptr<clock> clock_;
  transport_factory factory_;  // the session's transport and the read-write probe's
  proto::session engine_;
  std::unique_ptr<transport> transport_;
  std::unique_ptr<wakeup> timer_;
  std::unique_ptr<read_write_probe> probe_;  // with can_be_read_only and a probe interval
  // The choices when the host list changes; made at the first change (2.5 KB that most clients never need), from
  // the same seed, so the sequence is the same.
  std::unique_ptr<std::mt19937_64> rebalance_rng_;
  bool config_reading_ = false;  // follow_config: a read of the configuration is in flight
  bool config_watched_ = false;  // ... its watch is armed
  // The cause of a failed connection attempt that the user can fix, reported instead of a bare connect timeout until
  // a session is up: a TLS failure (tls_options.hpp) or client_errc::host_not_found.
  std::error_code last_tls_error_;
  // Consecutive connection attempts that the server closed before sending a byte (maxClientCnxns, a member without
  // a quorum; docs/protocol.md#closed-before-handshake), and whether the current attempt received anything.
  std::size_t closed_before_handshake_ = 0;
  bool attempt_closed_early_ = false;
  bool attempt_received_ = false;
  proto::time_point timer_expiry_ = proto::time_point::max();
  lifecycle life_ = lifecycle::idle;
  link link_ = link::closed;
  bool writing_ = false;  // take_output's bytes are being written
  // Bytes asked of the engine for the next read: doubled by every read that filled its space, up to max_read_chunk.
  std::size_t read_chunk_ = 1024;
  std::size_t read_space_ = 0;  // the outstanding read's space
  bool pump_posted_ = false;    // a pump is posted to the executor
  pumping pumping_ = pumping::no;
  pending_ops ops_;
  watch_callbacks watchers_;
  waiters waiters_;
  state_listener listener_;
  std::map<std::uint64_t, state_listener> observers_;
  std::uint64_t next_observer_ = 1;
};

}  // namespace zkwire::detail
