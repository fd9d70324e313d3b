#pragma once
// The session engine's state and its operations, shared by its two files: session_connection.cpp (the connection
// lifecycle, writing, the handshake and SASL) and session.cpp (reply routing and the public inputs and outputs).
// The parts with one job each live next to them: pending_table (requests), watch_registry and watch_rules (watches),
// sasl_exchange (SASL), session_timers.hpp (timers), host_picker (hosts), request_paths (chroot).

#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "host_picker.hpp"
#include "pending_table.hpp"
#include "ring.hpp"
#include "sasl_exchange.hpp"
#include "session_timers.hpp"
#include "watch_registry.hpp"
#include "watch_rules.hpp"
#include "zkwire/proto/connect.hpp"
#include "zkwire/proto/frame_reader.hpp"
#include "zkwire/proto/session/session.hpp"

namespace zkwire::proto {

using namespace session_detail;  // NOLINT(google-build-using-namespace): the engine's own parts
using std::chrono::milliseconds;

// One per session, fields grouped by concern rather than packed.
struct session::impl {  // NOLINT(clang-analyzer-optin.performance.Padding)
  enum class phase { idle, paced, connecting, handshaking, established, terminal };

  struct credential {
    auth_packet packet;
    request_id pending = 0;  // add_auth() request waiting for this credential's first reply
  };

  explicit impl(session_config c)
      : cfg(std::move(c)),
        picker(cfg.host_count, cfg.shuffle_hosts, cfg.seed),
        reader(cfg.max_frame_size, oversized_frames::skip),
        timeout(cfg.session_timeout),
        next_xid(cfg.first_xid > 0 ? cfg.first_xid : 1) {
    if (cfg.chroot == "/") cfg.chroot.clear();
    if (cfg.resume_session_id != 0) {
      session_id = cfg.resume_session_id;
      passwd = cfg.resume_password;
      passwd.resize(password_length, '\0');
      resumable = true;
    }
  }

  session_config cfg;
  host_picker picker;
  pending_table pending;
  watch_registry watches;
  frame_reader reader;
  ring<delivery> deliveries;  // a ring, not a deque: its slots are reused, so delivering allocates nothing
  std::string out_next;       // accumulating
  std::string out_writing;    // handed to the driver
  bool writing = false;
  std::optional<std::size_t> pending_connect;
  bool close_request = false;
  std::optional<std::size_t> preferred_host;  // switch_host(): where the next attempt goes

  phase ph = phase::idle;
  session_state st = session_state::not_started;
  std::optional<std::size_t> host;
  time_point attempt_deadline = never;
  time_point reconnect_at = never;
  time_point close_deadline = never;
  // At or before the earliest deadline of a pending user request (earlier when that request completed since):
  // a tick at this time expires what is due and recomputes it exactly (docs/protocol.md#deadlines).
  time_point request_deadline = never;
  time_point last_send{};
  time_point last_recv{};
  time_point last_write{};
  std::optional<time_point> last_answered;
  bool closing = false;
  std::size_t failed_attempts = 0;
  std::error_code drop_reason;
  std::int64_t session_id = 0;
  std::string passwd = std::string(password_length, '\0');
  bool resumable = false;            // connected once to a read-write server: resume this session id
  bool connected_read_only = false;  // the current connection's server is read-only
  milliseconds timeout;
  std::int64_t last_zxid = 0;
  connect_request sent_connect;
  time_point connect_sent{};  // when sent_connect was queued: the server renews the session on receiving it
  std::int32_t next_xid;
  request_id next_id = 1;
  std::vector<credential> credentials;
  ring<request_id> auth_sent;  // per written auth packet, the request its reply completes (0: none)
  ring<time_point> ping_sent;  // send times of unanswered pings

  sasl_exchange sasl;  // per connection (docs/protocol.md#sasl): nothing else is written until it is done
  std::error_code auth_error = server_error::auth_failed;  // why the session is auth_failed

  // Scratch, reused.
  std::vector<watcher_id> fan_out;
  std::vector<std::pair<watcher_id, event_type>> removals;
  watch_intent intent_scratch;

  // --- helpers ---------------------------------------------------------------------------------------------

  void set_state(session_state to, std::error_code reason) {
    if (to == st) return;
    deliveries.push_back() = delivery(state_change{st, to, reason});
    st = to;
  }

  void complete(request_id id, op_code op, std::error_code ec, reply result = {}) {
    deliveries.push_back() = delivery(completion{id, op, ec, std::move(result)});
  }

  [[nodiscard]] milliseconds connect_timeout() const {
    return session_detail::connect_timeout(cfg.connect_timeout, timeout, cfg.host_count);
  }

  [[nodiscard]] milliseconds read_timeout() const { return session_detail::read_timeout(timeout); }

  [[nodiscard]] milliseconds ping_interval() const { return session_detail::ping_interval(timeout); }

  [[nodiscard]] deadlines timers() const noexcept;

  // Requests may be written: the connection is established and SASL, if configured, has succeeded.
  [[nodiscard]] bool ready() const { return ph == phase::established && (!cfg.sasl || sasl.done()); }

  [[nodiscard]] bool connection_open() const {
    return ph == phase::connecting || ph == phase::handshaking || ph == phase::established;
  }

  // A request that cannot be written now may wait for a connection (docs/protocol.md#without-a-connection): for
  // the round under way or, while pausing between rounds, the next one; for the attempt under way, of which there is
  // none while pausing; or not at all.
  [[nodiscard]] bool may_wait_for_connection() const {
    switch (cfg.wait_for_connection) {
      case connection_wait::one_round:
        return true;
      case connection_wait::one_attempt:
        return ph != phase::paced;
      case connection_wait::none:
        return false;
    }
    return false;
  }

  std::int32_t take_xid() {
    const std::int32_t xid = next_xid;
    next_xid = xid == std::numeric_limits<std::int32_t>::max() ? 1 : xid + 1;
    return xid;
  }

  [[nodiscard]] std::error_code terminal_error() const;

  // --- connection lifecycle (session_connection.cpp, like writing, reading the handshake and SASL)
  // --------------------------------------------------------------------------------

  void reset_connection();
  void begin_attempt(time_point now);

  // After a failed attempt or a broken connection: the next host at once, or after a jittered pause once every
  // host failed in a row.
  void schedule_reconnect(time_point now);
  void fail_sent(std::error_code ec);
  void fail_queued(std::error_code ec);

  // The current attempt or connection is over. `we_close`: the engine decided it (timeout, protocol violation),
  // so the driver must close the socket. `moved`: the driver moved the session to another host (switch_host), so
  // an attempt cut short did not fail and what waits for a connection goes on waiting.
  void connection_lost(time_point now, std::error_code reason, bool we_close, bool moved = false);
  void session_ended(session_state to, std::error_code ec, keeper_state ks);
  void protocol_violation(time_point now, std::error_code ec);

  // --- writing ----------------------------------------------------------------------------------------------

  void send_auth(time_point now, const auth_packet& packet, request_id id);

  // Queues a request the engine sends on its own. Returns the encoder's error (nothing is queued then): the
  // caller owns the consequence, since no user request stands behind the frame.
  template <class Body>
  [[nodiscard]] std::error_code send_internal(time_point now, op_code op, const Body& body, origin from) {
    const std::int32_t xid = next_xid;
    if (auto ec = encode_request_frame(out_next, xid, op, body, cfg.max_request_size)) return ec;
    take_xid();
    pending.push_sent(xid, op, 0, from, now);
    last_send = now;
    return {};
  }

  // A SetWatches batch that cannot be encoded (a path near the size limit, which fit its getData but not the
  // larger SetWatches frame) cannot re-arm its watches: they end here, each watcher told why, instead of
  // silently never firing again.
  template <class Batch>
  void set_watches_failed(const Batch& batch, std::error_code ec);
  void write_queued(time_point now, queued_request& q);
  void send_ping(time_point now);

  // Nothing was sent for a ping interval: give back what a burst made grow (a thousand lock waiters started at once
  // leave the request rings and output buffers sized for all their requests). Only here, so a busy session, which
  // never pings, never pays for it, and an idle one shrinks at most once per ping interval to a steady size.
  void release_burst_memory();

  // --- reading ----------------------------------------------------------------------------------------------

  void on_connect_response(time_point now, std::string_view payload);

  // The connection may carry requests now: announce it, then auth, then the watches, then whatever waited
  // (docs/protocol.md#after-the-handshake).
  void connection_ready(time_point now);

  // --- SASL (docs/protocol.md#sasl) -------------------------------------------------------------------------

  void start_sasl(time_point now);
  void send_sasl(time_point now, std::string token);
  void sasl_rejected(std::error_code ec);

  // A reply to our sasl request (it bypasses the FIFO). Returns false when the connection is gone.
  bool on_sasl_reply(time_point now, const reply_header& header, std::string_view payload);

  // --- routing (session.cpp) -------------------------------------------------------------------------------

  void on_notification(time_point now, std::string_view payload);

  // Applies a user request's reply to the watch tables, delivering the removal events of a removeWatches; returns
  // whether the request's watcher was registered.
  bool apply_watch(const watch_intent& intent, std::int32_t err);

  // Removes from the server the watch an abandoned request registered (watch_rules.hpp); its NOWATCHER, if the
  // watch fired meanwhile, is consumed like every internal reply. On a new connection nothing is left to do:
  // SetWatches re-arms only local registrations.
  void drop_abandoned_watch(time_point now, const watch_intent& intent, std::int32_t err);

  // Returns false when the connection is gone and the remaining frames must not be looked at.
  bool on_frame(time_point now, std::string_view payload);
  // A reply of `size` bytes, over max_frame_size, skipped by the reader (`head`: its first bytes): the request it
  // answers fails with frame_too_large and the connection stays, as for a server error. Anything else that large
  // (a handshake, a notification, a reply out of order) leaves the stream in doubt: the connection is dropped.
  // Returns false like on_frame.
  bool on_oversized_frame(time_point now, std::string_view head, std::size_t size);
};

}  // namespace zkwire::proto
