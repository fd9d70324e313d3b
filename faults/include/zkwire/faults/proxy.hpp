#pragma once
// zkwire::faults::proxy: a frame-aware TCP proxy between any ZooKeeper client (zkwire, the Java client, Kazoo)
// and one server, that injects faults by rule (rule.hpp, syntax in faults/README.md).
//
//   asio::io_context io;                       // run it on a thread of its own in tests
//   faults::proxy p(io.get_executor(), {.upstream_host = "127.0.0.1", .upstream_port = 2181});
//   if (auto ec = p.listen()) ...;             // binds listen_host:listen_port (port 0: a free one)
//   p.add_rule(*faults::parse_rule("reply op=create2 nth=1 action=drop-then-rst").rule);
//   connect the client to p.local_endpoint() ...
//
// Every accepted connection gets its own upstream connection. Both byte streams are split into frames
// (proto::frame_reader) and recognised (frame_tracker: handshake, xid, opcode, path, err); each frame is offered to
// the rule table, and the action of the rule that fires (if any) is applied before it is forwarded. A peer closing
// or failing closes both sockets of its connection.
//
// An ensemble behind one set of rules: one proxy per member, all given the same proxy_options::rules table and
// their member number (1, 2, ...), so that a rule can name the member (member=2) and ids are common.
//
// Thread safety: every public member function may be called from any thread. The proxy's own work runs on a
// strand of the given executor; the executor must be run for anything to happen. Rules are changed under the
// rule table's mutex (rule_table.hpp), which the strand takes for each frame: a rule added or removed from
// another thread (a control server's, a test's) applies to every frame decided after the call returns, on the
// connections already open as well as new ones. stats() and connections() read atomics and a mutex, never the
// strand.
// Lifetimes: destroy the proxy before its execution context. The destructor stops listening and resets every
// connection (asynchronously, on the strand; the io_context must keep running for the sockets to be closed).
// Logging: options.log is called on the strand with one JSON line per frame and per connection event, until the
// stop() (or the destructor's stop) has run on the strand; keep what it captures alive until then.
// Cancellation: stop() closes the listener and every connection; it cannot be undone.

#include <asio/any_io_executor.hpp>
#include <asio/ip/tcp.hpp>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "zkwire/faults/rule.hpp"
#include "zkwire/faults/rule_table.hpp"

namespace zkwire::faults {

struct proxy_options {
  std::string listen_host = "127.0.0.1";
  std::uint16_t listen_port = 0;  // 0: the system picks a free port (see local_endpoint())
  std::string upstream_host = "127.0.0.1";
  std::uint16_t upstream_port = 2181;
  std::uint64_t seed = 0;  // for p= and corrupt; 0: a random seed (read it back with seed())
  // The rule table to use, shared with other proxies (an ensemble behind one set of rules); its seed is then the
  // one used and `seed` is ignored. Empty: the proxy makes a table of its own.
  std::shared_ptr<rule_table> rules;
  // This proxy's number in an ensemble (1, 2, ...): what member= in a rule selects, and a "member" field in the
  // log lines. 0: a proxy on its own (member=1 selects it; the log has no member field).
  std::uint32_t member = 0;
  // Frames longer than this (either direction) cannot be parsed: the connection is reset and the event logged.
  std::size_t max_frame_size = std::size_t{64} * 1024 * 1024;
  // One JSON line per frame and per connection event (no trailing newline). Empty: no log.
  std::function<void(std::string_view line)> log;
};

// How cut_connections() ends a connection.
enum class cut_kind { rst, fin, blackhole };

struct connection_snapshot {
  std::uint64_t id = 0;
  asio::ip::tcp::endpoint client;
  std::uint64_t requests = 0;  // frames from the client, handshake included
  std::uint64_t replies = 0;   // frames from the server, handshake included
  bool blackholed = false;     // a blackhole step or cut fired on it
  bool held = false;           // a hold step fired on it (it may have ended since)
};

// Frames the proxy read from one side, and their bytes (4-byte length prefixes included).
struct traffic_counters {
  std::uint64_t frames = 0;
  std::uint64_t bytes = 0;
};

struct proxy_stats {
  std::uint64_t accepted = 0;  // connections accepted so far (refused ones included)
  std::uint64_t open = 0;      // connections open now
  traffic_counters requests;   // read from clients, handshakes included, whatever a rule then did with them
  traffic_counters replies;    // read from the server
};

class proxy {
 public:
  proxy(const asio::any_io_executor& executor, proxy_options options);
  ~proxy();
  proxy(const proxy&) = delete;
  proxy& operator=(const proxy&) = delete;
  proxy(proxy&&) = delete;
  proxy& operator=(proxy&&) = delete;

  // Binds and starts accepting. Errors: the bind/listen error (e.g. address in use), or asio::error::invalid_argument
  // for a listen_host that is not an IP address. Call once.
  std::error_code listen();
  // The bound address (after listen()).
  [[nodiscard]] asio::ip::tcp::endpoint local_endpoint() const;
  // "host:port" of local_endpoint(), for connect strings.
  [[nodiscard]] std::string address() const;
  [[nodiscard]] std::uint64_t seed() const noexcept;

  // --- rules (see rule_table.hpp for how they are tried) ---
  rule_id add_rule(rule r);
  // Parses and adds; nullopt with `error` set when the text is not a rule.
  std::optional<rule_id> add_rule(std::string_view text, std::string* error = nullptr);
  bool remove_rule(rule_id id);
  void clear_rules();
  [[nodiscard]] std::optional<rule_counters> counters(rule_id id) const;
  // The table itself (shared with the other proxies given the same proxy_options::rules): rules(), history().
  [[nodiscard]] rule_table& rules() const noexcept;

  // --- connections ---
  [[nodiscard]] std::vector<connection_snapshot> connections() const;
  // Connections accepted so far (including closed ones).
  [[nodiscard]] std::uint64_t accepted() const noexcept;
  // Connection and frame counts since the proxy started.
  [[nodiscard]] proxy_stats stats() const;
  // Ends every open connection now (asynchronously, on the strand).
  void cut_connections(cut_kind how);
  // New connections are closed at once with RST (or FIN) for `duration`; a shorthand for an accept rule.
  rule_id refuse_connections(std::chrono::milliseconds duration, cut_kind how = cut_kind::rst);
  // Stops accepting and resets every connection.
  void stop();

 private:
  struct impl;
  std::shared_ptr<impl> impl_;
};

}  // namespace zkwire::faults
