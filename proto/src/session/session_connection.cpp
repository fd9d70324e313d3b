// The session engine's connection lifecycle: attempts and reconnects, the end of a connection or of the session,
// writing, the handshake's reply and what follows it (docs/protocol.md#after-the-handshake), and SASL.

#include <algorithm>
#include <string>
#include <type_traits>
#include <utility>

#include "session_impl.hpp"
#include "zkwire/proto/path.hpp"

namespace zkwire::proto {

namespace {

void patch_xid(std::string& frame, std::size_t start, std::int32_t xid) {
  const auto u = static_cast<std::uint32_t>(xid);
  frame[start + 4] = static_cast<char>((u >> 24U) & 0xffU);
  frame[start + 5] = static_cast<char>((u >> 16U) & 0xffU);
  frame[start + 6] = static_cast<char>((u >> 8U) & 0xffU);
  frame[start + 7] = static_cast<char>(u & 0xffU);
}

}  // namespace

deadlines session::impl::timers() const noexcept {
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

std::error_code session::impl::terminal_error() const {
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

void session::impl::reset_connection() {
  out_next.clear();
  out_writing.clear();
  writing = false;
  reader.reset();
  auth_sent.clear();
  ping_sent.clear();
  host.reset();
  attempt_deadline = never;
  sasl.reset();
}

void session::impl::begin_attempt(time_point now) {
  reset_connection();
  const std::size_t h = preferred_host ? *std::exchange(preferred_host, std::nullopt) : picker.next();
  pending_connect = h;
  host = h;
  ph = phase::connecting;
  reconnect_at = never;
  attempt_deadline = now + connect_timeout();
}

void session::impl::schedule_reconnect(time_point now) {
  if (failed_attempts > 0 && failed_attempts % picker.host_count() == 0) {
    reset_connection();
    ph = phase::paced;
    reconnect_at = now + picker.jitter();
  } else {
    begin_attempt(now);
  }
}

void session::impl::fail_sent(std::error_code ec) {
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

void session::impl::fail_queued(std::error_code ec) {
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

void session::impl::connection_lost(time_point now, std::error_code reason, bool we_close, bool moved) {
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
  // What waited for this attempt, or for the round it ended, was never sent: it fails now
  // (docs/protocol.md#without-a-connection). A request queued on an established connection has been written.
  const bool round_failed = ph == phase::paced;
  const bool attempt_failed = !was_established && cfg.wait_for_connection == connection_wait::one_attempt;
  if (!moved && (round_failed || attempt_failed)) fail_queued(client_error::connection_loss);
}

void session::impl::session_ended(session_state to, std::error_code ec, keeper_state ks) {
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

void session::impl::protocol_violation(time_point now, std::error_code ec) {
  if (!ec) ec = client_error::protocol_violation;
  connection_lost(now, ec, true);
}

void session::impl::send_auth(time_point now, const auth_packet& packet, request_id id) {
  if (!encode_request_frame(out_next, special_xid::auth, op_code::auth, packet, cfg.max_request_size)) {
    auth_sent.push_back() = id;
    last_send = now;
  } else if (id != 0) {
    complete(id, op_code::auth, client_error::request_too_large);
  }
}

template <class Batch>
void session::impl::set_watches_failed(const Batch& batch, std::error_code ec) {
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

void session::impl::write_queued(time_point now, queued_request& q) {
  const std::int32_t xid = take_xid();
  const std::size_t start = out_next.size();
  out_next += q.frame;
  patch_xid(out_next, start, xid);
  pending.push_sent(xid, q.op, q.id, origin::user, now, q.deadline, &q.watch);
  last_send = now;
}

void session::impl::send_ping(time_point now) {
  release_burst_memory();
  if (encode_request_frame(out_next, special_xid::ping, op_code::ping, no_body{})) return;
  ping_sent.push_back() = now;
  last_send = now;
}

void session::impl::release_burst_memory() {
  constexpr std::size_t keep_slots = 64;
  constexpr std::size_t keep_slot_bytes = std::size_t{4} * 1024;
  constexpr std::size_t keep_output_bytes = std::size_t{64} * 1024;
  pending.release_idle(keep_slots, keep_slot_bytes);
  deliveries.release_idle(keep_slots, [](delivery&) {});  // taken deliveries are moved from: nothing to shrink
  if (out_next.empty() && out_next.capacity() > keep_output_bytes) std::string().swap(out_next);
  if (!writing && out_writing.capacity() > keep_output_bytes) std::string().swap(out_writing);
}

void session::impl::on_connect_response(time_point now, std::string_view payload) {
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

void session::impl::connection_ready(time_point now) {
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

void session::impl::start_sasl(time_point now) {
  sasl.start(*cfg.sasl);
  send_sasl(now, {});  // DIGEST-MD5 has no initial response: the first token is empty (length 0, not null)
}

void session::impl::send_sasl(time_point now, std::string token) {
  const std::int32_t xid = next_xid;
  if (auto ec = encode_request_frame(out_next, xid, op_code::sasl, get_sasl_request{std::move(token)},
                                     cfg.max_request_size)) {
    sasl_rejected(ec);
    return;
  }
  take_xid();
  sasl.sent(xid);
  last_send = now;
}

void session::impl::sasl_rejected(std::error_code ec) {
  auth_error = ec;
  credentials.clear();
  session_ended(session_state::auth_failed, ec, keeper_state::auth_failed);
}

bool session::impl::on_sasl_reply(time_point now, const reply_header& header, std::string_view payload) {
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
  std::optional<std::string> response;
  if (auto ec = sasl.answer(token, response)) {
    sasl_rejected(ec);
    return false;
  }
  if (response) {
    send_sasl(now, std::move(*response));
    return ph == phase::established;
  }
  if (closing) return true;
  connection_ready(now);
  return true;
}

}  // namespace zkwire::proto
