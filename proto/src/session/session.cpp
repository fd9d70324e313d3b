// The session engine's reply routing and its public inputs and outputs, top to bottom (session_impl.hpp says where
// the other parts live).

#include <algorithm>
#include <limits>
#include <optional>
#include <string>
#include <utility>

#include "request_paths.hpp"
#include "session_impl.hpp"
#include "zkwire/proto/op_traits.hpp"
#include "zkwire/proto/path.hpp"

namespace zkwire::proto {

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

bool user_may_submit(op_code op) noexcept {
  const op_traits* t = find_op_traits(op);
  return t != nullptr && t->user_submittable;
}

}  // namespace

// --- routing ------------------------------------------------------------------------------------------------

void session::impl::on_notification(time_point now, std::string_view payload) {
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

bool session::impl::apply_watch(const watch_intent& intent, std::int32_t err) {
  removals.clear();
  const bool registered = apply_reply(watches, intent, err, removals);
  for (const auto& [w, type] : removals) {
    deliveries.push_back() = delivery(
        watch_delivery{w, watcher_event{type, keeper_state::sync_connected, intent.path}, {}, !watches.registered(w)});
  }
  return registered;
}

void session::impl::drop_abandoned_watch(time_point now, const watch_intent& intent, std::int32_t err) {
  const auto type = abandoned_watch_removal(watches, pending, intent, err);
  if (!type) return;
  const remove_watches_request removal{proto::prepend_chroot(cfg.chroot, intent.path), *type};
  // The path was part of a request that encoded within max_request_size; only a limit set within the 3 bytes
  // by which removeWatches is larger than getData can refuse it, and then the watch stays as if abandoned before
  // this cleanup existed: until it fires, or the connection ends.
  (void)send_internal(now, op_code::remove_watches, removal, origin::watch_cleanup);
}

bool session::impl::on_frame(time_point now, std::string_view payload) {
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
  if (sasl.awaits(header.xid)) {
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

bool session::impl::on_oversized_frame(time_point now, std::string_view head, std::size_t size) {
  reply_header header;
  auto& sent = pending.sent();
  if (ph != phase::established || decode_reply_header(head, header) || sent.empty() || sent.front().xid != header.xid) {
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
  // The read timeout counts from the last complete frame, not the last byte: a length prefix that announces more
  // than the stream will ever bring (a corrupted stream) would otherwise keep the connection alive forever, every
  // ping reply swallowed into the frame that never completes (tick() then reports a protocol violation).
  while (auto payload = m.reader.next()) {
    m.last_recv = now;
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
  const deadlines due = m.timers();
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
    // No complete frame for the read timeout. Bytes of an unfinished one mean the stream is corrupt (its length
    // prefix announced more than follows), not that the server went quiet.
    m.connection_lost(now, m.reader.mid_frame() ? client_error::protocol_violation : client_error::operation_timeout,
                      true);
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
  if (op == op_code::check_watches && intent.removes && !m.watches.has(intent.path, *intent.removes, watcher)) {
    m.complete(id, op, server_error::no_watcher);  // nothing of that watcher to remove: no request (the Java client's)
    return id;
  }
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
    m.pending.push_sent(xid, op, id, origin::user, now, deadline, &intent);
    m.last_send = now;
    m.request_deadline = std::min(m.request_deadline, deadline);
    return id;
  }
  if (!m.may_wait_for_connection()) {  // docs/protocol.md#without-a-connection
    m.complete(id, op, client_error::connection_loss);
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
  } else if (m.may_wait_for_connection()) {
    m.credentials.push_back({std::move(packet), id});
  } else {  // kept for the next connection; only the wait for its answer ends (docs/protocol.md#without-a-connection)
    m.credentials.push_back({std::move(packet), 0});
    m.complete(id, op_code::auth, client_error::connection_loss);
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

bool session::watcher_registered(watcher_id watcher) const { return impl_->watches.registered(watcher); }

bool session::watching(std::string_view path, watcher_type type, watcher_id watcher) const {
  return impl_->watches.has(path, type, watcher);
}

bool session::remove_local_watches(std::string_view path, watcher_type type, watcher_id only) {
  auto& m = *impl_;
  m.removals.clear();
  m.watches.remove(path, type, m.removals, only);
  for (const auto& [w, removed] : m.removals) {
    m.deliveries.push_back() = delivery(watch_delivery{
        w, watcher_event{removed, keeper_state::sync_connected, std::string(path)}, {}, !m.watches.registered(w)});
  }
  return !m.removals.empty();
}

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
      m.connection_lost(now, reason, true, true);
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

bool session::has_actions_besides_output() const noexcept {
  const auto& m = *impl_;
  return m.pending_connect.has_value() || m.close_request || !m.deliveries.empty();
}

session_state session::state() const noexcept { return impl_->st; }
std::int64_t session::session_id() const noexcept { return impl_->session_id; }
std::string_view session::session_password() const noexcept { return impl_->passwd; }
std::chrono::milliseconds session::negotiated_timeout() const noexcept { return impl_->timeout; }
std::int64_t session::last_zxid_seen() const noexcept { return impl_->last_zxid; }
std::optional<std::size_t> session::current_host() const noexcept { return impl_->host; }
std::optional<time_point> session::last_answered_send_time() const noexcept { return impl_->last_answered; }
std::uint64_t session::seed() const noexcept { return impl_->picker.seed(); }

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
