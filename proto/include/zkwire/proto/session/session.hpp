#pragma once
// The socket-free ZooKeeper session engine: everything a client does on the wire, without sockets, threads or
// clocks of its own (docs/design.md#session-engine; the wire rules it follows: docs/protocol.md#handshake,
// docs/protocol.md#ordering, docs/protocol.md#set-watches, docs/protocol.md#session-timers, docs/protocol.md#chroot).
//
// The driver (client/ with Asio; tests with byte scripts and a fake clock) feeds it events — "connected to the
// host you asked for", "these bytes arrived", "the connection broke", "the time is now T", user requests — and
// after every input acts on what the engine asks for:
//
//   if (auto host = s.take_connect())  open a connection to hosts[*host] (closing any current one first)
//   if (s.take_close())                close the current connection (its late I/O results must be ignored)
//   if (auto bytes = s.take_output())  write all of `bytes`, then call s.written(now); the view stays valid
//                                      until then (new output accumulates in a second buffer meanwhile)
//   while (auto d = s.take_delivery()) deliver *d (completions, watch events, state changes), in order
//   re-arm the timer for s.next_wakeup() and call s.tick(now) when it fires
//
// While a connection is open the driver keeps one read outstanding into s.prepare_read(n) and reports it with
// s.commit_read(now, n). At most one connection exists at a time.
//
// Timers, with T the negotiated session timeout (the requested one before the first handshake), the ratios of
// the Java and C clients (docs/protocol.md#session-timers):
//   read timeout        2T/3 without receiving anything on an established connection: drop it, try the next host
//   ping                when nothing was sent for T/3 (so an idle session is kept alive and the read timeout sees
//                       the server's answer well before 2T/3)
//   connect timeout     per host attempt, TCP connect plus handshake: config.connect_timeout, by default
//                       max(min(T / number of hosts, T/3), 250 ms): a handshake never answered leaves time for
//                       another attempt before the server expires the session
//   reconnect pacing    the first attempt after a disconnect goes at once to the next host; once every host was
//                       tried in a row without success, the next round waits a random 0..1000 ms (seeded jitter)
//   surely expired      no byte was written to any server for T + one second: the server cannot have kept the
//                       session (it expires a session that sent nothing for T, bucketed by tickTime ≤ 1 s here);
//                       reported as session_state::lost. Expiry itself is only known at the next handshake.
//
// Requests: submit() assigns the xid when the request is written (Java's rule; xids start at 1 and wrap to 1).
// A request submitted while no connection can carry it (before the first one, while reconnecting, during a
// handshake or SASL) waits in the queue for the connection attempts under way, as config.wait_for_connection says,
// and goes out after the handshake, after auth replay and watch re-arming; when those attempts fail it completes
// with client_error::connection_loss, never sent (docs/protocol.md#without-a-connection). When a connection breaks,
// every request written and not answered completes with client_error::connection_loss: the outcome of a write is
// unknown and it is never resent silently. After expiry, auth failure or close, new requests complete at once with
// that error.
//
// Chroot: every request path (multi ops included) gets the chroot prepended, and it is stripped from create
// results, multi results and watch events; getEphemerals is sent and returned as is (the Java client's rule).
// Paths are validated (path.hpp) before anything is queued: a bad one completes with client_error::invalid_path.
//
// Watches: a watcher is a caller-chosen id (non-zero). getData/exists/getChildren(2) with watch=true and a watcher
// id register it when the reply succeeds (exists: a data watch if the node exists, an exist watch on NONODE); the
// server keeps one registration per path and kind, the engine fans each event out to every watcher of it. One-shot
// watchers are removed when they fire. A watcher id may be given to several requests, on one path or many (the C
// client's watcher, a function and its context): it is registered once per path and kind and an event reaches it
// once. completion::watch_registered says whether a reply registered the request's watcher, watch_delivery::final
// whether a delivery left it without registrations: a driver keeps only what belongs to the user (the callback per
// watcher id) and drops it on either signal unless another request of that watcher is still in flight
// (watcher_registered() says whether the engine still has it). add_watch registers persistent or recursive
// watchers that fire until removed. After a reconnect on the same session the engine re-arms every watch with
// SetWatches (SetWatches2 only when persistent watches exist) in batches whose paths total at most
// config.set_watches_batch_bytes. When the session ends (expiry, auth failure, close) every watcher gets one final
// delivery with the reason.
//
// Thread safety: none; one engine per session, driven from one thread or strand.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <system_error>
#include <variant>

#include "zkwire/jute/limits.hpp"
#include "zkwire/proto/message.hpp"
#include "zkwire/proto/watches.hpp"

namespace zkwire::proto {

using session_clock = std::chrono::steady_clock;
using time_point = session_clock::time_point;

enum class session_state {
  not_started,          // before start()
  connecting,           // no session yet, or establishing the first connection
  connected,            // a connection with a valid session is established
  connected_read_only,  // connected to a read-only server (only with config.can_be_read_only)
  suspended,            // the connection broke; the session may live on the server, reconnecting
  lost,                 // suspended, and surely expired on the server by now; still reconnecting to confirm
  expired,              // a server said the session is gone; call new_session() to start another
  auth_failed,          // a server rejected our credentials (auth packet or SASL) and closed the connection
  closed,               // close() completed, or the engine was closed before connecting
};
std::string_view session_state_name(session_state s) noexcept;

// SASL DIGEST-MD5 credentials (docs/protocol.md#sasl). The ACL id they earn is `sasl:<user>`.
struct sasl_credentials {
  std::string user;      // must not be empty
  std::string password;  // as in the server's JAAS `user_<user>="<password>"` entry
  // Client nonces, one per exchange: empty means 128 bits from std::random_device as hex. Tests set it for
  // reproducible bytes; anything else must return fresh unpredictable text without '"' or '\'.
  std::function<std::string()> cnonce;
};

// How long a request waits while no connection can carry it (docs/protocol.md#without-a-connection); it ends
// with client_error::connection_loss, never sent, or at its deadline if that comes first.
enum class connection_wait {
  // For the round of connection attempts under way (each host of the list once), or the next round while the
  // engine pauses between two: sent if an attempt succeeds, connection_loss when the round fails. At most the
  // pause (up to 1 s) and one round, about the session timeout by default.
  one_round,
  // For the connection attempt under way (one host): connection_loss when it fails, even if another host of the
  // list would answer, and at once while the engine pauses between rounds (no attempt is under way then). The rule
  // of ZooKeeper's C client (whose every call starts an attempt at once) and, but for the pause, its Java client.
  one_attempt,
  // Not at all: connection_loss at once unless a connection is established (fail fast).
  none,
};

struct session_config {
  std::size_t host_count = 1;  // the driver owns the addresses; the engine picks indices 0..host_count-1
  std::string chroot;          // "" or a valid path such as "/app"; "/" means none
  std::chrono::milliseconds session_timeout{10000};           // requested; the server clamps it
  std::chrono::milliseconds connect_timeout{0};               // per host attempt; 0: max(min(T / hosts, T/3), 250 ms)
  bool can_be_read_only = false;                              // sent as the ConnectRequest readOnly byte
  bool shuffle_hosts = true;                                  // shuffle the host order once (seeded), then round-robin
  std::uint64_t seed = 0;                                     // for the shuffle and the reconnect jitter; 0: random
  std::size_t max_frame_size = jute::default_max_reply_size;  // incoming frames; a longer reply fails its request
  std::size_t max_request_size = jute::server_max_buffer;     // outgoing frames (the server's jute.maxbuffer)
  std::size_t set_watches_batch_bytes = std::size_t{128} * 1024;  // total path bytes per SetWatches frame
  std::int32_t first_xid = 1;  // the first xid (must be > 0); tests start near INT32_MAX to see the wrap to 1
  connection_wait wait_for_connection = connection_wait::one_round;  // requests without a connection
  // When set, every connection runs a SASL DIGEST-MD5 exchange right after the handshake and before anything
  // else goes out (auth packets, SetWatches, requests wait); state connected is reported only once it succeeded.
  // A rejection (wrong user or password, or a server that fails to prove it knows the password) ends the session
  // in state auth_failed with client_error::sasl_failed or sasl_exchange_failed; it is never retried.
  std::optional<sasl_credentials> sasl;
  // Non-zero: the first handshake resumes this session (its id and the password the server gave it, padded or cut
  // to 16 bytes) instead of asking for a new one, as a process taking over another's session does. A server that
  // no longer knows it answers as for any expired session (state expired).
  std::int64_t resume_session_id = 0;
  std::string resume_password;
};

using request_id = std::uint64_t;  // assigned by submit(), unique per engine, never 0
using watcher_id = std::uint64_t;  // chosen by the caller, non-zero

// A request's result. On success `error` is empty and `result.header.err` is 0; a server error is in `error` (the
// "zookeeper" category) with `result.header` as received; a client-side failure (connection loss, cancelled,
// expired, invalid path, ...) has an empty result.
struct completion {
  request_id id = 0;
  op_code op = op_code::error;
  std::error_code error;
  reply result;
  // The reply registered the watcher given to submit(): getData/getChildren(2)/addWatch on success, exists on
  // success or NONODE. False for every other outcome (then the engine keeps nothing of that watcher).
  bool watch_registered = false;
  // With client_error::frame_too_large: the length of the reply that was over session_config::max_frame_size.
  std::size_t reply_size = 0;
};

// A watch event for one watcher. For a one-shot watcher it is the only delivery. `event.path` has the chroot
// stripped. When the session ends, every watcher gets a final delivery with event.type none, the session state
// in event.state (expired, auth_failed, closed) and `error` saying why.
struct watch_delivery {
  watcher_id watcher = 0;
  watcher_event event;
  std::error_code error;
  // The watcher has no registration left and gets no further deliveries: a one-shot watch fired, removeWatches
  // removed it, or the session ended. False for the events of a persistent or recursive watcher.
  bool final = true;
};

struct state_change {
  session_state from = session_state::not_started;
  session_state to = session_state::not_started;
  std::error_code reason;  // why, e.g. the I/O error that broke the connection, or session_expired
};

using delivery = std::variant<completion, watch_delivery, state_change>;

// Watch kinds a watcher can be registered for.
enum class watch_kind { data, exist, child, persistent, persistent_recursive };

class session {
 public:
  explicit session(session_config config);
  ~session();
  session(const session& other) = delete;
  session& operator=(const session& other) = delete;
  session(session&& other) noexcept;
  session& operator=(session&& other) noexcept;

  // --- inputs ---
  void start(time_point now);
  void connected(time_point now);                              // the connection asked for by take_connect() is up
  void connect_failed(time_point now, std::error_code error);  // ... could not be established
  std::span<char> prepare_read(std::size_t n);                 // space for a read of up to n bytes (at least 1)
  void commit_read(time_point now, std::size_t n);             // n bytes arrived in that space
  void received(time_point now, std::string_view bytes);       // prepare_read + copy + commit_read
  void written(time_point now);                                // everything take_output() returned was written
  void disconnected(time_point now, std::error_code error);    // read or write failed, or the peer closed
  void tick(time_point now);                                   // timers; call at next_wakeup() (earlier is fine)

  // Queues a request with client paths (the engine applies the chroot). `watcher` registers a one-shot or
  // persistent watcher for getData/exists/getChildren(2) with watch=true, and addWatch; 0 for none.
  // `deadline`: if no reply has arrived by then (waiting for a connection included), the request completes with
  // client_error::operation_timeout (condition::timeout) at the tick due then (next_wakeup() includes it). The
  // session is not affected: a written request is abandoned like a cancelled one, its late reply consumed in xid
  // order and dropped. A write that timed out after being written may still be applied by the server (outcome
  // unknown: read back); one still queued, or with a deadline already past at submit(), was never sent.
  // Refused at once with client_error::invalid_argument: ops the engine sends itself or a client never sends
  // (ping, auth, setWatches(2), closeSession, notification, createSession, deleteContainer, error), check outside a
  // multi, sasl (its reply overtakes others), and a body that is not the op's. A successful removeWatches removes
  // every local watcher of that path and type (its `watcher` is ignored) and delivers their removal events right
  // before its completion. checkWatches with a `watcher` removes that watcher alone from the path's tables of its
  // type once it succeeds (its removal events likewise; the server's watch stays for the other watchers, as the C
  // and Java clients' removal of one watcher does), and completes with NOWATCHER at once, unsent, when that
  // watcher has no such registration. Without a connection the request waits as config.wait_for_connection says.
  // The request is encoded at once: nothing of `body` is kept (its path may be rewritten with the chroot), so the
  // caller may reuse its storage afterwards. `use_chroot` false sends the path as given, outside the chroot
  // (getConfig reads /zookeeper/config so); with a chroot such a request may not register a watcher
  // (client_error::invalid_argument: re-arming after a reconnect would put it under the chroot).
  request_id submit(time_point now, op_code op, request_body&& body, watcher_id watcher = 0,
                    time_point deadline = time_point::max(), bool use_chroot = true);
  // Adds a credential, replayed on every reconnect; sent at once when connected. Its first reply completes
  // the returned request (AUTHFAILED ends the session). Without a connection the request waits as
  // config.wait_for_connection says; when it completes with connection_loss the credential stays, sent with the
  // next connection.
  request_id add_auth(time_point now, std::string scheme, std::string credentials);
  // Completes the request with client_error::cancelled if it has not completed yet. A request already written
  // may still be applied by the server; its late reply is dropped. Returns false if it already completed.
  bool cancel(request_id id);
  // Drops a watcher on the client side only (no request); it gets no further deliveries. Use submit() with
  // removeWatches to also remove the server's registration.
  void forget_watcher(watcher_id watcher);
  // Removes this client's watchers of `type` on `path` (a client path) without telling the server, which keeps its
  // watch until it fires (the event then finds no watcher and is dropped) or the next reconnect (not re-armed).
  // Each watcher removed gets its removal event (data_watch_removed, ...) as a delivery, `final` when it has no
  // registration left. With `only` (not 0) that watcher's registrations alone. Returns false when there was none
  // (the C API's ZNOWATCHER).
  bool remove_local_watches(std::string_view path, watcher_type type, watcher_id only = 0);
  // Whether `watcher` has a registration left (one-shot not fired, persistent not removed).
  [[nodiscard]] bool watcher_registered(watcher_id watcher) const;
  // Whether `watcher` has a registration on `path` (a client path) that a removal of `type` would take.
  [[nodiscard]] bool watching(std::string_view path, watcher_type type, watcher_id watcher) const;
  // Sends closeSession when connected and completes with state closed when it is answered (or at the read
  // timeout); otherwise closes at once. Pending requests complete with client_error::closed, except those already
  // written before the closeSession, whose replies arrive first and complete them normally.
  void close(time_point now);
  // After expiry or auth failure: starts a new session (session id 0), keeping lastZxidSeen so that a server
  // that lags behind what we have seen refuses us (docs/protocol.md#handshake-rules, rule 2).
  void new_session(time_point now);
  // The driver wants the session on host `host` (< host count) instead of the current one: a read-write server was
  // found while connected read-only, or the ensemble's configuration moved this client. An open connection or
  // attempt is dropped as if it broke (take_close() says so; requests in flight complete with connection_loss,
  // state suspended with `reason` if it was established) and the next attempt goes to `host`; a paced reconnect
  // starts at once. Ignored in a terminal state, while closing, before start() and for an index out of range.
  void switch_host(time_point now, std::size_t host, std::error_code reason);
  // The driver's host list changed (dynamic reconfiguration): the engine now picks among 0..host_count-1 (a new
  // order, shuffled if configured) and the connection in progress, if any, is to `current` of the new list
  // (nullopt: that host is gone; the connection is kept until the driver calls switch_host or it breaks).
  // host_count 0 is ignored.
  void update_hosts(std::size_t host_count, std::optional<std::size_t> current);

  // --- outputs ---
  std::optional<std::size_t> take_connect();
  bool take_close();
  std::optional<std::string_view> take_output();
  std::optional<delivery> take_delivery();
  [[nodiscard]] time_point next_wakeup() const noexcept;  // time_point::max() when nothing is scheduled
  // Whether take_connect, take_close or take_delivery has something: a driver that only writes take_output's bytes
  // (from the call that submitted a request) leaves the rest to its loop.
  [[nodiscard]] bool has_actions_besides_output() const noexcept;

  // --- observers ---
  [[nodiscard]] session_state state() const noexcept;
  [[nodiscard]] std::int64_t session_id() const noexcept;  // 0 before the first handshake
  [[nodiscard]] std::string_view session_password() const noexcept;
  [[nodiscard]] std::chrono::milliseconds negotiated_timeout() const noexcept;  // the requested one before
  [[nodiscard]] std::int64_t last_zxid_seen() const noexcept;
  [[nodiscard]] std::optional<std::size_t> current_host() const noexcept;  // host of the connection, if any
  // When the request behind the most recent server answer (a reply or a ping reply) was written. The session is
  // alive on the server until this + negotiated_timeout(), the base of a lock's safety margin, unless the leader was
  // stopped while a follower answered for it (docs/design.md#lock-states).
  [[nodiscard]] std::optional<time_point> last_answered_send_time() const noexcept;
  [[nodiscard]] std::size_t pending_requests() const noexcept;  // queued or written, not completed
  // The seed of the host order and the reconnect jitter: session_config::seed, or the random one drawn for 0. A
  // driver's own seeded choices draw from it too, so that one seed makes a whole client reproducible.
  [[nodiscard]] std::uint64_t seed() const noexcept;
  // Heap bytes the engine keeps for its read and write buffers and its request queues (not the watch table). A burst
  // of requests makes them grow; once nothing was sent for a ping interval they shrink back to a steady session's
  // size (at most 64 queue slots and 64 KiB per write buffer are kept), so a thousand lock waiters started at once
  // do not keep their peak. For tests and memory accounting.
  [[nodiscard]] std::size_t retained_bytes() const noexcept;
  // The error every operation gets once the session ended (expired, auth_failed — server AUTHFAILED or a SASL
  // error —, closed); empty while it lives.
  [[nodiscard]] std::error_code session_error() const noexcept;

 private:
  struct impl;
  std::unique_ptr<impl> impl_;
};

}  // namespace zkwire::proto
