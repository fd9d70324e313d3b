// The session engine: connection lifecycle, handshake, routing of replies, timers. The parts with one job each
// live next to it: pending_table (requests), watch_registry (watches), host_picker (hosts), request_paths (chroot).

#include "zkwire/proto/session/session.hpp"

#include <algorithm>
#include <array>
#include <limits>
#include <optional>
#include <random>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "host_picker.hpp"
#include "pending_table.hpp"
#include "request_paths.hpp"
#include "ring.hpp"
#include "sasl_digest.hpp"
#include "watch_registry.hpp"
#include "zkwire/proto/connect.hpp"
#include "zkwire/proto/frame_reader.hpp"
#include "zkwire/proto/op_traits.hpp"
#include "zkwire/proto/path.hpp"

namespace zkwire::proto {

using namespace session_detail;  // NOLINT(google-build-using-namespace): the engine's own parts
using std::chrono::milliseconds;

std::string_view session_state_name(session_state s) noexcept {
  switch (s) {
    case session_state::not_started:
      return "not_started";
    case session_state::connecting:
      return "connecting";
    case session_state::connected:
      return "connected";
    case session_state::connected_read_only:
      return "connected_read_only";
    case session_state::suspended:
      return "suspended";
    case session_state::lost:
      return "lost";
    case session_state::expired:
      return "expired";
    case session_state::auth_failed:
      return "auth_failed";
    case session_state::closed:
      return "closed";
  }
  return "unknown";
}

namespace {

constexpr time_point never = time_point::max();
constexpr milliseconds min_connect_timeout{250};
constexpr milliseconds expiry_slack{1000};  // tickTime bucketing of the server's expiry, at most a second here

bool user_may_submit(op_code op) noexcept {
  const op_traits* t = find_op_traits(op);
  return t != nullptr && t->user_submittable;
}

void patch_xid(std::string& frame, std::size_t start, std::int32_t xid) {
  const auto u = static_cast<std::uint32_t>(xid);
  frame[start + 4] = static_cast<char>((u >> 24U) & 0xffU);
  frame[start + 5] = static_cast<char>((u >> 16U) & 0xffU);
  frame[start + 6] = static_cast<char>((u >> 8U) & 0xffU);
  frame[start + 7] = static_cast<char>(u & 0xffU);
}

bool child_watch_requested(const request_body& body) {
  const auto* gc = std::get_if<get_children_request>(&body);
  const auto* gc2 = std::get_if<get_children2_request>(&body);
  return (gc != nullptr && gc->watch) || (gc2 != nullptr && gc2->watch);
}

watch_intent intent_of(op_code op, const request_body& body, watcher_id watcher) {
  watch_intent intent;
  intent.watcher = watcher;
  if (const auto* rw = std::get_if<remove_watches_request>(&body)) {
    intent.effect = watch_effect::remove;
    intent.remove_type = rw->type;
    return intent;
  }
  if (watcher == 0) return intent;
  if (const auto* gd = std::get_if<get_data_request>(&body); gd != nullptr && gd->watch) {
    intent.effect = watch_effect::data;
  } else if (const auto* ex = std::get_if<exists_request>(&body); ex != nullptr && ex->watch) {
    intent.effect = watch_effect::exists;
  } else if (child_watch_requested(body)) {
    intent.effect = watch_effect::child;
  } else if (const auto* aw = std::get_if<add_watch_request>(&body); aw != nullptr && op == op_code::add_watch) {
    intent.effect =
        aw->mode == add_watch_mode::persistent_recursive ? watch_effect::recursive : watch_effect::persistent;
  }
  return intent;
}

// 128 bits of client nonce for DIGEST-MD5, as hex (RFC 2831 asks for at least 64 bits of entropy).
std::string random_cnonce() {
  static constexpr std::string_view digits = "0123456789abcdef";
  std::random_device source;
  std::string out;
  for (int word = 0; word < 4; ++word) {
    auto v = static_cast<std::uint32_t>(source());
    for (int i = 0; i < 8; ++i, v >>= 4U) out += digits[v & 0xfU];
  }
  return out;
}

}  // namespace

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

  // SASL, per connection (docs/protocol.md#sasl): nothing else is written until it is done.
  enum class sasl_step { none, awaiting_challenge, awaiting_rspauth, done };
  sasl_step sasl = sasl_step::none;
  std::int32_t sasl_xid = 0;  // of the sasl request whose reply is awaited
  std::optional<digest_md5_client> sasl_client;
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
    if (cfg.connect_timeout.count() > 0) return cfg.connect_timeout;
    const auto per_host = timeout / static_cast<std::int64_t>(std::max<std::size_t>(cfg.host_count, 1));
    return std::max(per_host, min_connect_timeout);
  }
  [[nodiscard]] milliseconds read_timeout() const { return timeout * 2 / 3; }
  [[nodiscard]] milliseconds ping_interval() const { return timeout / 3; }

  // Every timer of the engine, `never` where it does not apply. tick() acts on the ones due and next_wakeup()
  // reports the earliest, both from this one computation, so the driver is never woken for nothing nor missed.
  struct deadlines {
    time_point reconnect = never;     // paced: start the next connection attempt
    time_point attempt = never;       // connecting or handshaking: give up on this host
    time_point close = never;         // closing: stop waiting for closeSession's reply
    time_point read = never;          // established: nothing received for too long
    time_point ping = never;          // established and idle (not while closing): send a ping
    time_point session_lost = never;  // suspended: the server has expired the session by now, surely
    time_point request = never;       // a user request's deadline: complete it with operation_timeout

    [[nodiscard]] time_point earliest() const noexcept {
      return std::min({reconnect, attempt, close, read, ping, session_lost, request});
    }
  };

  [[nodiscard]] deadlines timers() const noexcept {
    deadlines d;
    switch (ph) {
      case phase::paced:
        d.reconnect = reconnect_at;
        break;
      case phase::connecting:
      case phase::handshaking:
        d.attempt = attempt_deadline;
        break;
      case phase::established:
        d.read = last_recv + read_timeout();
        if (closing) {
          d.close = close_deadline;
        } else {
          d.ping = last_send + ping_interval();
        }
        break;
      case phase::idle:
      case phase::terminal:
        break;
    }
    if (st == session_state::suspended) d.session_lost = last_write + timeout + expiry_slack;
    d.request = request_deadline;
    return d;
  }

  // Requests may be written: the connection is established and SASL, if configured, has succeeded.
  [[nodiscard]] bool ready() const { return ph == phase::established && (!cfg.sasl || sasl == sasl_step::done); }

  [[nodiscard]] bool connection_open() const {
    return ph == phase::connecting || ph == phase::handshaking || ph == phase::established;
  }

  std::int32_t take_xid() {
    const std::int32_t xid = next_xid;
    next_xid = xid == std::numeric_limits<std::int32_t>::max() ? 1 : xid + 1;
    return xid;
  }

  [[nodiscard]] std::error_code terminal_error() const {
    switch (st) {
      case session_state::expired:
        return client_error::session_expired;
      case session_state::auth_failed:
        return auth_error;
      case session_state::closed:
        return client_error::closed;
      default:
        return closing ? std::error_code(client_error::closed) : std::error_code{};
    }
  }

  // --- connection lifecycle ---------------------------------------------------------------------------------

  void reset_connection() {
    out_next.clear();
    out_writing.clear();
    writing = false;
    reader.reset();
    auth_sent.clear();
    ping_sent.clear();
    host.reset();
    attempt_deadline = never;
    sasl = sasl_step::none;
    sasl_client.reset();
  }

  void begin_attempt(time_point now) {
    reset_connection();
    const std::size_t h = preferred_host ? *std::exchange(preferred_host, std::nullopt) : picker.next();
    pending_connect = h;
    host = h;
    ph = phase::connecting;
    reconnect_at = never;
    attempt_deadline = now + connect_timeout();
  }

  // After a failed attempt or a broken connection: the next host at once, or after a jittered pause once every
  // host failed in a row.
  void schedule_reconnect(time_point now) {
    if (failed_attempts > 0 && failed_attempts % picker.host_count() == 0) {
      reset_connection();
      ph = phase::paced;
      reconnect_at = now + picker.jitter();
    } else {
      begin_attempt(now);
    }
  }

  void fail_sent(std::error_code ec) {
    auto& sent = pending.sent();
    while (!sent.empty()) {
      const sent_request& s = sent.front();
      const bool report = s.from == origin::user && !s.abandoned;
      const request_id id = s.id;
      const op_code op = s.op;
      sent.pop_front();
      if (report) complete(id, op, ec);
    }
    while (!auth_sent.empty()) {
      const request_id id = auth_sent.front();
      auth_sent.pop_front();
      if (id != 0) complete(id, op_code::auth, ec);
    }
  }

  void fail_queued(std::error_code ec) {
    auto& queued = pending.queued();
    while (!queued.empty()) {
      const request_id id = queued.front().id;
      const op_code op = queued.front().op;
      queued.pop_front();
      complete(id, op, ec);
    }
    for (auto& c : credentials) {
      if (c.pending != 0) complete(std::exchange(c.pending, 0), op_code::auth, ec);
    }
  }

  // The current attempt or connection is over. `we_close`: the engine decided it (timeout, protocol violation),
  // so the driver must close the socket.
  void connection_lost(time_point now, std::error_code reason, bool we_close) {
    if (we_close) close_request = true;
    if (closing) {
      session_ended(session_state::closed, client_error::closed, keeper_state::closed);
      return;
    }
    // A connection that broke during SASL never carried requests: one more failed attempt, like a handshake.
    const bool was_established = ready();
    fail_sent(client_error::connection_loss);
    reset_connection();
    if (was_established) {
      failed_attempts = 0;
      drop_reason = reason;
      set_state(session_state::suspended, reason);
    } else {
      ++failed_attempts;
    }
    schedule_reconnect(now);
  }

  void session_ended(session_state to, std::error_code ec, keeper_state ks) {
    if (connection_open()) close_request = true;
    pending_connect.reset();
    fail_sent(ec);
    fail_queued(ec);
    reset_connection();
    ph = phase::terminal;
    closing = false;
    close_deadline = never;
    reconnect_at = never;
    request_deadline = never;  // every request failed above: a deadline left would hold the driver's loop open
    fan_out.clear();
    watches.take_all(fan_out);
    for (const watcher_id w : fan_out) {
      deliveries.push_back() = delivery(watch_delivery{w, watcher_event{event_type::none, ks, {}}, ec, true});
    }
    set_state(to, ec);
  }

  void protocol_violation(time_point now, std::error_code ec) {
    if (!ec) ec = client_error::protocol_violation;
    connection_lost(now, ec, true);
  }

  // --- writing ----------------------------------------------------------------------------------------------

  void send_auth(time_point now, const auth_packet& packet, request_id id) {
    if (!encode_request_frame(out_next, special_xid::auth, op_code::auth, packet, cfg.max_request_size)) {
      auth_sent.push_back() = id;
      last_send = now;
    } else if (id != 0) {
      complete(id, op_code::auth, client_error::request_too_large);
    }
  }

  // Queues a request the engine sends on its own. Returns the encoder's error (nothing is queued then): the
  // caller owns the consequence, since no user request stands behind the frame.
  template <class Body>
  [[nodiscard]] std::error_code send_internal(time_point now, op_code op, const Body& body, origin from) {
    const std::int32_t xid = next_xid;
    if (auto ec = encode_request_frame(out_next, xid, op, body, cfg.max_request_size)) return ec;
    take_xid();
    sent_request& s = pending.sent().push_back();
    s.xid = xid;
    s.op = op;
    s.id = 0;
    s.from = from;
    s.abandoned = false;
    s.send_time = now;
    s.deadline = never;
    s.watch.effect = watch_effect::none;
    last_send = now;
    return {};
  }

  // A SetWatches batch that cannot be encoded (a path near the size limit, which fit its getData but not the
  // larger SetWatches frame) cannot re-arm its watches: they end here, each watcher told why, instead of
  // silently never firing again.
  template <class Batch>
  void set_watches_failed(const Batch& batch, std::error_code ec) {
    const auto end_watches = [&](const std::vector<std::string>& paths) {
      for (const auto& server_path : paths) {
        const std::string path = cfg.chroot.empty() ? server_path : proto::strip_chroot(cfg.chroot, server_path);
        removals.clear();
        watches.remove(path, watcher_type::any, removals);
        for (const auto& removal : removals) {
          deliveries.push_back() = delivery(
              watch_delivery{removal.first, watcher_event{event_type::none, keeper_state::sync_connected, path}, ec});
        }
      }
    };
    end_watches(batch.data_watches);
    end_watches(batch.exist_watches);
    end_watches(batch.child_watches);
    if constexpr (std::is_same_v<Batch, set_watches2>) {
      end_watches(batch.persistent_watches);
      end_watches(batch.persistent_recursive_watches);
    }
  }

  void write_queued(time_point now, queued_request& q) {
    const std::int32_t xid = take_xid();
    const std::size_t start = out_next.size();
    out_next += q.frame;
    patch_xid(out_next, start, xid);
    sent_request& s = pending.sent().push_back();
    s.xid = xid;
    s.op = q.op;
    s.id = q.id;
    s.from = origin::user;
    s.abandoned = false;
    s.send_time = now;
    s.deadline = q.deadline;
    std::swap(s.watch, q.watch);
    last_send = now;
  }

  void send_ping(time_point now) {
    release_burst_memory();
    if (encode_request_frame(out_next, special_xid::ping, op_code::ping, no_body{})) return;
    ping_sent.push_back() = now;
    last_send = now;
  }

  // Nothing was sent for a ping interval: give back what a burst made grow (a thousand lock waiters started at once
  // leave the request rings and output buffers sized for all their requests). Only here, so a busy session, which
  // never pings, never pays for it, and an idle one shrinks at most once per ping interval to a steady size.
  void release_burst_memory() {
    constexpr std::size_t keep_slots = 64;
    constexpr std::size_t keep_slot_bytes = std::size_t{4} * 1024;
    constexpr std::size_t keep_output_bytes = std::size_t{64} * 1024;
    pending.release_idle(keep_slots, keep_slot_bytes);
    deliveries.release_idle(keep_slots, [](delivery&) {});  // taken deliveries are moved from: nothing to shrink
    if (out_next.empty() && out_next.capacity() > keep_output_bytes) std::string().swap(out_next);
    if (!writing && out_writing.capacity() > keep_output_bytes) std::string().swap(out_writing);
  }

  // --- reading ----------------------------------------------------------------------------------------------

  void on_connect_response(time_point now, std::string_view payload) {
    connect_response resp;
    if (auto ec = decode_connect_response(payload, resp)) {
      protocol_violation(now, ec);
      return;
    }
    if (is_session_expired(sent_connect, resp)) {
      session_ended(session_state::expired, client_error::session_expired, keeper_state::expired);
      return;
    }
    session_id = resp.session_id;
    passwd = resp.passwd;
    if (!resp.read_only) resumable = true;
    timeout = milliseconds{resp.timeout};
    ph = phase::established;
    failed_attempts = 0;
    attempt_deadline = never;
    last_recv = now;
    last_write = now;  // the server just renewed the session
    last_answered = connect_sent;
    connected_read_only = resp.read_only;
    if (cfg.sasl) {
      start_sasl(now);
    } else {
      connection_ready(now);
    }
  }

  // The connection may carry requests now: announce it, then auth, then the watches, then whatever waited
  // (docs/protocol.md#after-the-handshake).
  void connection_ready(time_point now) {
    set_state(connected_read_only ? session_state::connected_read_only : session_state::connected, {});
    for (auto& c : credentials) send_auth(now, c.packet, std::exchange(c.pending, 0));
    if (!watches.empty()) {
      for (const auto& batch : watches.set_watches_batches(cfg.chroot, last_zxid, cfg.set_watches_batch_bytes)) {
        if (const auto* sw = std::get_if<set_watches>(&batch)) {
          if (auto ec = send_internal(now, op_code::set_watches, *sw, origin::set_watches)) {
            set_watches_failed(*sw, ec);
          }
        } else if (const auto* sw2 = std::get_if<set_watches2>(&batch)) {
          if (auto ec = send_internal(now, op_code::set_watches2, *sw2, origin::set_watches)) {
            set_watches_failed(*sw2, ec);
          }
        }
      }
    }
    auto& queued = pending.queued();
    while (!queued.empty()) {
      write_queued(now, queued.front());
      queued.pop_front();
    }
  }

  // --- SASL (docs/protocol.md#sasl) -------------------------------------------------------------------------

  void start_sasl(time_point now) {
    const sasl_credentials& creds = *cfg.sasl;
    sasl_client.emplace(creds.user, creds.password, creds.cnonce ? creds.cnonce() : random_cnonce());
    // DIGEST-MD5 has no initial response: the first token is empty (length 0, not null).
    send_sasl(now, {});
    sasl = sasl_step::awaiting_challenge;
  }

  void send_sasl(time_point now, std::string token) {
    const std::int32_t xid = next_xid;
    if (auto ec = encode_request_frame(out_next, xid, op_code::sasl, get_sasl_request{std::move(token)},
                                       cfg.max_request_size)) {
      sasl_rejected(ec);
      return;
    }
    take_xid();
    sasl_xid = xid;
    last_send = now;
  }

  void sasl_rejected(std::error_code ec) {
    auth_error = ec;
    credentials.clear();
    session_ended(session_state::auth_failed, ec, keeper_state::auth_failed);
  }

  // A reply to our sasl request (it bypasses the FIFO). Returns false when the connection is gone.
  bool on_sasl_reply(time_point now, const reply_header& header, std::string_view payload) {
    if (header.err != 0) {
      // AUTHFAILED, then the server closes the connection. SESSIONCLOSEDREQUIRESASLAUTH is the same verdict.
      sasl_rejected(client_error::sasl_failed);
      return false;
    }
    reply rep;
    if (auto ec = decode_reply(payload, op_code::sasl, rep)) {
      protocol_violation(now, ec);
      return false;
    }
    const auto* body = std::get_if<set_sasl_response>(&rep.body);
    const std::string_view token = body != nullptr && body->token ? std::string_view(*body->token) : "";
    if (sasl == sasl_step::awaiting_challenge) {
      std::string response;
      if (auto ec = sasl_client->respond(token, response)) {
        sasl_rejected(ec);
        return false;
      }
      send_sasl(now, std::move(response));
      sasl = sasl_step::awaiting_rspauth;
      return true;
    }
    if (auto ec = sasl_client->verify(token)) {
      sasl_rejected(ec);
      return false;
    }
    sasl = sasl_step::done;
    sasl_client.reset();
    if (closing) return true;
    connection_ready(now);
    return true;
  }

  void on_notification(time_point now, std::string_view payload) {
    watcher_event event;
    if (auto ec = decode_notification(payload, event)) {
      protocol_violation(now, ec);
      return;
    }
    if (!cfg.chroot.empty()) event.path = proto::strip_chroot(cfg.chroot, event.path);
    fan_out.clear();
    watches.route(event.type, event.path, fan_out);
    for (const watcher_id w : fan_out) {
      deliveries.push_back() = delivery(watch_delivery{w, event, {}, !watches.registered(w)});
    }
  }

  // Applies a reply's effect on the watch tables; returns whether it registered the request's watcher.
  bool apply_watch(const watch_intent& intent, std::int32_t err) {
    const auto add_if = [&](bool ok, watch_kind kind) {
      if (ok) watches.add(kind, intent.path, intent.watcher);
      return ok;
    };
    switch (intent.effect) {
      case watch_effect::none:
        return false;
      case watch_effect::data:
        return add_if(err == 0, watch_kind::data);
      case watch_effect::exists:
        // A watch on a missing node is registered too: it fires when the node is created.
        return add_if(err == 0, watch_kind::data) ||
               add_if(err == static_cast<std::int32_t>(server_error::no_node), watch_kind::exist);
      case watch_effect::child:
        return add_if(err == 0, watch_kind::child);
      case watch_effect::persistent:
        return add_if(err == 0, watch_kind::persistent);
      case watch_effect::recursive:
        return add_if(err == 0, watch_kind::persistent_recursive);
      case watch_effect::remove:
        if (err != 0) return false;
        removals.clear();
        watches.remove(intent.path, intent.remove_type, removals);
        for (const auto& [w, type] : removals) {
          deliveries.push_back() = delivery(watch_delivery{
              w, watcher_event{type, keeper_state::sync_connected, intent.path}, {}, !watches.registered(w)});
        }
        return false;
    }
    return false;
  }

  // The server-side watch table(s) a reply registered a watch in, as the removeWatches type that removes it;
  // nullopt if the reply registered none. An exists on a missing node is a data-table watch on the server.
  static std::optional<watcher_type> server_watch_of(watch_effect effect, std::int32_t err) {
    const bool ok = err == 0;
    switch (effect) {
      case watch_effect::data:
        return ok ? std::optional(watcher_type::data) : std::nullopt;
      case watch_effect::exists:
        return ok || err == static_cast<std::int32_t>(server_error::no_node) ? std::optional(watcher_type::data)
                                                                             : std::nullopt;
      case watch_effect::child:
        return ok ? std::optional(watcher_type::children) : std::nullopt;
      case watch_effect::persistent:
      case watch_effect::recursive:  // the server keeps them in both tables
        return ok ? std::optional(watcher_type::any) : std::nullopt;
      case watch_effect::none:
      case watch_effect::remove:
        break;
    }
    return std::nullopt;
  }

  // The removeWatches type covering the server-side table a local registration of `kind` lives in (persistent
  // ones live in both).
  static watcher_type server_table_of(watch_kind kind) {
    switch (kind) {
      case watch_kind::data:
      case watch_kind::exist:
        return watcher_type::data;
      case watch_kind::child:
        return watcher_type::children;
      case watch_kind::persistent:
      case watch_kind::persistent_recursive:
        break;
    }
    return watcher_type::any;
  }

  // Whether the server-side watch of `type` on `path` also serves a local registration, or will serve a request
  // still in flight that registers on the same table (its reply has not been read yet, but the server already
  // applied it, so a removal now would take its watch away). The server keeps one watch per path and table for
  // the whole connection, and removeWatches removes it whatever mode it has.
  [[nodiscard]] bool server_watch_shared(std::string_view path, watcher_type type) const {
    const auto overlaps = [type](watcher_type other) {
      return type == watcher_type::any || other == watcher_type::any || other == type;
    };
    constexpr std::array kinds = {watch_kind::data, watch_kind::exist, watch_kind::child, watch_kind::persistent,
                                  watch_kind::persistent_recursive};
    for (const watch_kind kind : kinds) {
      if (overlaps(server_table_of(kind)) && watches.watcher_count(kind, path) > 0) return true;
    }
    const auto& sent = pending.sent();
    for (std::size_t i = 0; i < sent.size(); ++i) {
      const sent_request& s = sent[i];
      if (s.from != origin::user || s.abandoned || s.watch.path != path) continue;
      // Assume success: whether the server registered it is known only from the reply.
      const auto registers = server_watch_of(s.watch.effect, 0);
      if (registers && overlaps(*registers)) return true;
    }
    return false;
  }

  // A written request abandoned by its deadline or cancel() still registers its watch on the server when the
  // server applies it, but no local watcher stands behind it: a one-shot watch would fire into nothing, a
  // persistent one would stay for the whole session, and repeated timed-out watch calls would grow the server's
  // watch table. Unless that server-side watch serves someone else, remove it with a removeWatches of our own
  // (its NOWATCHER, if the watch fired meanwhile, is consumed like every internal reply). On a new connection
  // nothing is left to do: SetWatches re-arms only local registrations.
  void drop_abandoned_watch(time_point now, const watch_intent& intent, std::int32_t err) {
    const auto type = server_watch_of(intent.effect, err);
    if (!type || server_watch_shared(intent.path, *type)) return;
    const remove_watches_request removal{proto::prepend_chroot(cfg.chroot, intent.path), *type};
    // The path was part of a request that encoded within max_request_size; only a limit set within the 3 bytes
    // by which removeWatches is larger than getData can refuse it, and then the watch stays as if abandoned before
    // this cleanup existed: until it fires, or the connection ends.
    (void)send_internal(now, op_code::remove_watches, removal, origin::watch_cleanup);
  }

  // A reply of `size` bytes, over max_frame_size, skipped by the reader (`head`: its first bytes): the request it
  // answers fails with frame_too_large and the connection stays, as for a server error. Anything else that large
  // (a handshake, a notification, a reply out of order) leaves the stream in doubt: the connection is dropped.
  // Returns false like on_frame.
  bool on_oversized_frame(time_point now, std::string_view head, std::size_t size) {
    reply_header header;
    auto& sent = pending.sent();
    if (ph != phase::established || decode_reply_header(head, header) || sent.empty() ||
        sent.front().xid != header.xid) {
      protocol_violation(now, client_error::frame_too_large);
      return false;
    }
    if (header.zxid > 0) last_zxid = header.zxid;
    last_answered = sent.front().send_time;
    const request_id id = sent.front().id;
    const op_code op = sent.front().op;
    const origin from = sent.front().from;
    const bool abandoned = sent.front().abandoned;
    std::swap(intent_scratch, sent.front().watch);
    sent.pop_front();
    // A watch the server set with the reply we cannot read is removed again, as for an abandoned request.
    if (from == origin::user) drop_abandoned_watch(now, intent_scratch, header.err);
    if (from == origin::user && !abandoned) {
      completion done{id, op, client_error::frame_too_large, {}, false, size};
      deliveries.push_back() = delivery(std::move(done));
    }
    return true;
  }

  // Returns false when the connection is gone and the remaining frames must not be looked at.
  bool on_frame(time_point now, std::string_view payload) {
    if (ph == phase::handshaking) {
      on_connect_response(now, payload);
      return ph == phase::established;
    }
    reply_header header;
    if (auto ec = decode_reply_header(payload, header)) {
      protocol_violation(now, ec);
      return false;
    }
    switch (header.xid) {
      case special_xid::notification:
        on_notification(now, payload);
        return ph == phase::established;
      case special_xid::ping:
        if (ping_sent.empty()) {
          protocol_violation(now, client_error::protocol_violation);  // a ping reply nobody asked for
          return false;
        }
        last_answered = ping_sent.front();
        ping_sent.pop_front();
        return true;
      case special_xid::auth: {
        if (auth_sent.empty()) {
          protocol_violation(now, client_error::protocol_violation);  // an auth reply nobody asked for
          return false;
        }
        const request_id id = auth_sent.front();
        auth_sent.pop_front();
        if (header.err == static_cast<std::int32_t>(server_error::auth_failed)) {
          if (id != 0) complete(id, op_code::auth, server_error::auth_failed, reply{header, no_body{}});
          credentials.clear();
          session_ended(session_state::auth_failed, server_error::auth_failed, keeper_state::auth_failed);
          return false;
        }
        if (id != 0) complete(id, op_code::auth, error_from_wire(header.err), reply{header, no_body{}});
        return true;
      }
      default:
        break;
    }
    if ((sasl == sasl_step::awaiting_challenge || sasl == sasl_step::awaiting_rspauth) && header.xid == sasl_xid) {
      return on_sasl_reply(now, header, payload);
    }
    auto& sent = pending.sent();
    if (sent.empty() || sent.front().xid != header.xid) {
      protocol_violation(now, client_error::protocol_violation);  // xid mismatch or a reply to nothing
      return false;
    }
    const sent_request& head = sent.front();
    reply rep;
    if (auto ec = decode_reply(payload, head.op, rep)) {
      protocol_violation(now, ec);
      return false;
    }
    if (header.zxid > 0) last_zxid = header.zxid;
    last_answered = head.send_time;
    const request_id id = head.id;
    const op_code op = head.op;
    const origin from = head.from;
    const bool abandoned = head.abandoned;
    std::swap(intent_scratch, sent.front().watch);
    sent.pop_front();
    if (from == origin::close_session) {
      session_ended(session_state::closed, client_error::closed, keeper_state::closed);
      return false;
    }
    if (from == origin::user && abandoned) drop_abandoned_watch(now, intent_scratch, header.err);
    if (from != origin::user || abandoned) return true;
    const bool registered = apply_watch(intent_scratch, header.err);
    if (header.err == 0) session_detail::strip_chroot(cfg.chroot, rep.body);
    const std::error_code ec = error_from_wire(header.err);
    deliveries.push_back() = delivery(completion{id, op, ec, std::move(rep), registered});
    return true;
  }
};

// --- public interface -----------------------------------------------------------------------------------------

session::session(session_config config) : impl_(std::make_unique<impl>(std::move(config))) {}
session::~session() = default;
session::session(session&&) noexcept = default;
session& session::operator=(session&&) noexcept = default;

void session::start(time_point now) {
  auto& m = *impl_;
  if (m.st != session_state::not_started) return;
  m.set_state(session_state::connecting, {});
  m.begin_attempt(now);
}

void session::connected(time_point now) {
  auto& m = *impl_;
  if (m.ph != impl::phase::connecting) return;
  m.ph = impl::phase::handshaking;
  m.sent_connect = connect_request{};
  m.sent_connect.last_zxid_seen = m.last_zxid;
  // Java sends the requested timeout on every attempt; the server renegotiates from it.
  m.sent_connect.timeout = static_cast<std::int32_t>(
      std::min<std::int64_t>(m.cfg.session_timeout.count(), std::numeric_limits<std::int32_t>::max()));
  if (m.resumable) {
    m.sent_connect.session_id = m.session_id;
    m.sent_connect.passwd = m.passwd;
  }
  m.sent_connect.read_only = m.cfg.can_be_read_only;
  (void)encode_connect_frame(m.out_next, m.sent_connect);
  m.last_send = now;
  m.connect_sent = now;
}

void session::connect_failed(time_point now, std::error_code error) {
  auto& m = *impl_;
  if (m.ph != impl::phase::connecting) return;
  m.connection_lost(now, error, false);
}

std::span<char> session::prepare_read(std::size_t n) { return impl_->reader.prepare_some(n); }

void session::commit_read(time_point now, std::size_t n) {
  auto& m = *impl_;
  if (m.ph != impl::phase::handshaking && m.ph != impl::phase::established) return;
  m.reader.commit(n);
  if (n > 0) m.last_recv = now;
  while (auto payload = m.reader.next()) {
    const std::size_t oversized = m.reader.oversized_size();
    if (!(oversized > 0 ? m.on_oversized_frame(now, *payload, oversized) : m.on_frame(now, *payload))) return;
  }
  if (auto ec = m.reader.error()) m.protocol_violation(now, ec);
}

void session::received(time_point now, std::string_view bytes) {
  auto space = impl_->reader.prepare(bytes.size());
  std::copy(bytes.begin(), bytes.end(), space.begin());
  commit_read(now, bytes.size());
}

void session::written(time_point now) {
  auto& m = *impl_;
  if (!m.writing) return;
  m.writing = false;
  m.out_writing.clear();
  // Only bytes on an established connection keep the session alive: a handshake the server never answered may
  // have gone to a server outside the quorum.
  if (m.ph == impl::phase::established) m.last_write = now;
}

void session::disconnected(time_point now, std::error_code error) {
  auto& m = *impl_;
  if (!m.connection_open()) return;
  m.connection_lost(now, error, false);
}

void session::tick(time_point now) {
  auto& m = *impl_;
  const impl::deadlines due = m.timers();
  if (now >= due.request) {
    // Independent of the connection's timers: a request past its deadline completes, the session goes on.
    m.request_deadline =
        m.pending.expire(now, [&m](request_id id, op_code op) { m.complete(id, op, client_error::operation_timeout); });
  }
  if (now >= due.reconnect) {
    m.begin_attempt(now);
  } else if (now >= due.attempt) {  // NOLINT(bugprone-branch-clone): a different deadline with the same action
    m.connection_lost(now, client_error::operation_timeout, true);
  } else if (now >= due.close) {
    m.session_ended(session_state::closed, client_error::closed, keeper_state::closed);
  } else if (now >= due.read) {
    m.connection_lost(now, client_error::operation_timeout, true);
  } else if (now >= due.ping) {
    m.send_ping(now);
  }
  // Again: losing the connection just now makes the session suspended, and it may be overdue already.
  if (now >= m.timers().session_lost) m.set_state(session_state::lost, m.drop_reason);
}

request_id session::submit(time_point now, op_code op, request_body&& body, watcher_id watcher, time_point deadline,
                           bool use_chroot) {
  auto& m = *impl_;
  const request_id id = m.next_id++;
  if (auto ec = m.terminal_error()) {
    m.complete(id, op, ec);
    return id;
  }
  if (!user_may_submit(op) || request_body_index(op) != body.index()) {
    m.complete(id, op, client_error::invalid_argument);
    return id;
  }
  watch_intent intent = intent_of(op, body, watcher);
  if (intent.effect != watch_effect::none) intent.path = request_path(body);
  if (!use_chroot && watcher != 0 && !m.cfg.chroot.empty()) {
    m.complete(id, op, client_error::invalid_argument);
    return id;
  }
  if (auto ec = apply_chroot(use_chroot ? std::string_view(m.cfg.chroot) : std::string_view(), body)) {
    m.complete(id, op, ec);
    return id;
  }
  if (deadline <= now) {  // already past: nothing is sent, so the outcome is known (not applied)
    m.complete(id, op, client_error::operation_timeout);
    return id;
  }
  if (m.ready()) {
    const std::int32_t xid = m.next_xid;
    const auto ec = std::visit(
        [&](const auto& b) { return encode_request_frame(m.out_next, xid, op, b, m.cfg.max_request_size); }, body);
    if (ec) {
      m.complete(id, op, ec);
      return id;
    }
    m.take_xid();
    sent_request& s = m.pending.sent().push_back();
    s.xid = xid;
    s.op = op;
    s.id = id;
    s.from = origin::user;
    s.abandoned = false;
    s.send_time = now;
    s.deadline = deadline;
    s.watch = std::move(intent);
    m.last_send = now;
    m.request_deadline = std::min(m.request_deadline, deadline);
    return id;
  }
  queued_request& q = m.pending.queued().push_back();
  q.frame.clear();
  const auto ec =
      std::visit([&](const auto& b) { return encode_request_frame(q.frame, 0, op, b, m.cfg.max_request_size); }, body);
  if (ec) {
    m.pending.queued().pop_back();
    m.complete(id, op, ec);
    return id;
  }
  q.id = id;
  q.op = op;
  q.watch = std::move(intent);
  q.deadline = deadline;
  m.request_deadline = std::min(m.request_deadline, deadline);
  return id;
}

request_id session::add_auth(time_point now, std::string scheme, std::string credentials) {
  auto& m = *impl_;
  const request_id id = m.next_id++;
  if (auto ec = m.terminal_error()) {
    m.complete(id, op_code::auth, ec);
    return id;
  }
  auth_packet packet{0, std::move(scheme), std::move(credentials)};
  if (m.ready()) {
    m.send_auth(now, packet, id);
    m.credentials.push_back({std::move(packet), 0});
  } else {
    m.credentials.push_back({std::move(packet), id});
  }
  return id;
}

bool session::cancel(request_id id) {
  auto& m = *impl_;
  if (id == 0) return false;
  if (auto op = m.pending.cancel(id)) {
    m.complete(id, *op, client_error::cancelled);
    return true;
  }
  for (std::size_t i = 0; i < m.auth_sent.size(); ++i) {
    if (m.auth_sent[i] == id) {
      m.auth_sent[i] = 0;
      m.complete(id, op_code::auth, client_error::cancelled);
      return true;
    }
  }
  for (auto& c : m.credentials) {
    if (c.pending == id) {
      c.pending = 0;
      m.complete(id, op_code::auth, client_error::cancelled);
      return true;
    }
  }
  return false;
}

void session::forget_watcher(watcher_id watcher) { impl_->watches.forget(watcher); }

void session::close(time_point now) {
  auto& m = *impl_;
  if (m.st == session_state::closed || m.closing) return;
  if (m.st == session_state::expired || m.st == session_state::auth_failed) {
    m.set_state(session_state::closed, client_error::closed);
    return;
  }
  if (m.ph == impl::phase::established) {
    m.closing = true;
    m.fail_queued(client_error::closed);
    if (!m.send_internal(now, op_code::close_session, no_body{}, origin::close_session)) {
      m.close_deadline = now + m.read_timeout();
      return;
    }
    // closeSession cannot even be encoded (a max_request_size below its 8 bytes): end the session here; the
    // server expires it.
  }
  m.session_ended(session_state::closed, client_error::closed, keeper_state::closed);
}

void session::new_session(time_point now) {
  auto& m = *impl_;
  if (m.st != session_state::expired && m.st != session_state::auth_failed) return;
  m.session_id = 0;
  m.passwd.assign(password_length, '\0');
  m.resumable = false;
  m.auth_error = server_error::auth_failed;
  m.timeout = m.cfg.session_timeout;
  m.failed_attempts = 0;
  m.last_answered.reset();
  m.set_state(session_state::connecting, {});
  m.begin_attempt(now);
}

void session::switch_host(time_point now, std::size_t host, std::error_code reason) {
  auto& m = *impl_;
  if (host >= m.cfg.host_count || m.closing) return;
  switch (m.ph) {
    case impl::phase::connecting:
    case impl::phase::handshaking:
    case impl::phase::established:
      m.preferred_host = host;
      // The new attempt starts at once, whatever the pacing of failed attempts would say.
      m.failed_attempts = 0;
      m.connection_lost(now, reason, true);
      break;
    case impl::phase::paced:
      m.preferred_host = host;
      m.begin_attempt(now);
      break;
    case impl::phase::idle:
    case impl::phase::terminal:
      break;
  }
}

void session::update_hosts(std::size_t host_count, std::optional<std::size_t> current) {
  auto& m = *impl_;
  if (host_count == 0) return;
  m.cfg.host_count = host_count;
  m.picker.reset(host_count, m.cfg.shuffle_hosts);
  m.preferred_host.reset();
  if (m.pending_connect) {
    // Not yet handed to the driver: go where the new list says, or on to another host.
    m.pending_connect = current ? *current : m.picker.next();
    m.host = m.pending_connect;
  } else if (m.host) {
    m.host = current;
  }
}

std::optional<std::size_t> session::take_connect() { return std::exchange(impl_->pending_connect, std::nullopt); }

bool session::take_close() { return std::exchange(impl_->close_request, false); }

std::optional<std::string_view> session::take_output() {
  auto& m = *impl_;
  if (m.writing || m.out_next.empty()) return std::nullopt;
  std::swap(m.out_next, m.out_writing);
  m.writing = true;
  return std::string_view(m.out_writing);
}

std::optional<delivery> session::take_delivery() {
  auto& m = *impl_;
  if (m.deliveries.empty()) return std::nullopt;
  delivery d = std::move(m.deliveries.front());
  m.deliveries.pop_front();
  return d;
}

time_point session::next_wakeup() const noexcept { return impl_->timers().earliest(); }

session_state session::state() const noexcept { return impl_->st; }
std::int64_t session::session_id() const noexcept { return impl_->session_id; }
std::string_view session::session_password() const noexcept { return impl_->passwd; }
std::chrono::milliseconds session::negotiated_timeout() const noexcept { return impl_->timeout; }
std::int64_t session::last_zxid_seen() const noexcept { return impl_->last_zxid; }
std::optional<std::size_t> session::current_host() const noexcept { return impl_->host; }
std::optional<time_point> session::last_answered_send_time() const noexcept { return impl_->last_answered; }

std::error_code session::session_error() const noexcept { return impl_->terminal_error(); }

std::size_t session::pending_requests() const noexcept {
  const auto& m = *impl_;
  std::size_t n = m.pending.user_pending();
  for (std::size_t i = 0; i < m.auth_sent.size(); ++i) n += m.auth_sent[i] != 0 ? 1U : 0U;
  for (const auto& c : m.credentials) n += c.pending != 0 ? 1U : 0U;
  return n;
}

std::size_t session::retained_bytes() const noexcept {
  const auto& m = *impl_;
  return m.reader.capacity() + m.out_next.capacity() + m.out_writing.capacity() + m.pending.retained_bytes() +
         m.deliveries.slot_count() * sizeof(delivery);
}

}  // namespace zkwire::proto
