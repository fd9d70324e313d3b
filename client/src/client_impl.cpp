// The driver loop: requests and waits in, the engine's wishes (connect, close, write, wake up) out to the
// transport and the clock, and the engine's deliveries out to the completion handlers, watchers and listeners.

#include "client_impl.hpp"

#include <algorithm>
#include <asio/post.hpp>
#include <cinttypes>
#include <cstdio>
#include <stdexcept>
#include <utility>
#include <variant>

#include "acl_lists.hpp"
#include "zkwire/client/errors.hpp"

namespace zkwire::detail {
namespace {

proto::session_config make_config(const client_options& options, const connect_string& servers) {
  proto::session_config config;
  config.host_count = servers.hosts.size();
  config.chroot = servers.chroot;
  config.session_timeout = options.session_timeout;
  config.connect_timeout = options.host_connect_timeout;
  config.can_be_read_only = options.can_be_read_only;
  config.shuffle_hosts = options.shuffle_hosts;
  config.seed = options.seed;
  config.max_frame_size = options.max_frame_size;
  config.resume_session_id = options.resume_session_id;
  config.resume_password = options.resume_session_password;
  config.wait_for_connection = options.wait_for_connection;
  if (options.sasl) {
    if (options.sasl->user.empty()) throw std::invalid_argument("client_options::sasl: the user name is empty");
    config.sasl = proto::sasl_credentials{options.sasl->user, options.sasl->password, {}};
  }
  return config;
}

}  // namespace

std::string hex_session(std::int64_t id) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%" PRIx64, static_cast<std::uint64_t>(id));
  return buf;
}

client_impl::client_impl(asio::any_io_executor executor, client_options options, connect_string servers)
    : executor_(std::move(executor)),
      options_(std::move(options)),
      servers_(std::move(servers)),
      clock_(options_.clock ? options_.clock : steady_clock_source()),
      factory_(options_.transport ? options_.transport
               : options_.tls     ? make_tls_transport_factory(*options_.tls)
                                  : transport_factory(make_tcp_transport)),
      engine_(make_config(options_, servers_)),
      transport_(factory_(executor_, *this)),
      // `this` is safe: the wakeup never fires once destroyed, and it is destroyed with this object.
      timer_(clock_->make_wakeup(executor_, [this] { on_timer(); })) {
  if (!transport_) throw std::invalid_argument("client_options::transport returned no transport");
  if (options_.follow_config && !servers_.chroot.empty()) {
    throw std::invalid_argument("client_options::follow_config does not work with a chroot in the connect string");
  }
  if (options_.can_be_read_only && options_.read_write_probe_interval.count() > 0) {
    read_write_probe::settings settings;
    settings.first_interval = options_.read_write_probe_interval;
    settings.max_interval = options_.read_write_probe_max_interval;
    settings.attempt_timeout = std::max(options_.host_connect_timeout, std::chrono::milliseconds{1000});
    // `this` is safe: the probe is destroyed first by the destructor and stopped by shutdown().
    probe_ = std::make_unique<read_write_probe>(
        executor_, factory_, clock_, settings, [this](std::size_t index) { on_read_write_server(index); },
        [this](const std::string& message) { log(log_level::debug, [&] { return message; }); });
  }
}

client_impl::~client_impl() {
  // The probe, the transport and the timer go first: they must not report to a half-destroyed object.
  probe_.reset();
  timer_.reset();
  transport_.reset();
}

// --- requests and waits -------------------------------------------------------------------------------------

proto::request_id client_impl::start_request(proto::op_code op, proto::request_body body,
                                             std::optional<watch_registration> watch,
                                             std::unique_ptr<pending_op> op_state,
                                             std::optional<std::chrono::nanoseconds> timeout, bool server_path) {
  ensure_started();
  const proto::watcher_id watcher = watch ? watchers_.add(std::move(*watch)) : 0;
  return submit(op, std::move(body), watcher, watcher, std::move(op_state), timeout, server_path);
}

proto::request_id client_impl::submit(proto::op_code op, proto::request_body body, proto::watcher_id watcher,
                                      proto::watcher_id tracked, std::unique_ptr<pending_op> op_state,
                                      std::optional<std::chrono::nanoseconds> timeout, bool server_path) {
  const proto::time_point at = now();
  // The per-call timeout wins; a non-positive one is already past (completes at once, unsent). Without either,
  // no deadline (docs/protocol.md#deadlines).
  proto::time_point deadline = proto::time_point::max();
  if (timeout) {
    deadline = at + std::chrono::duration_cast<proto::time_point::duration>(*timeout);
  } else if (options_.request_timeout.count() > 0) {
    deadline = at + options_.request_timeout;
  }
  const auto id = engine_.submit(at, op, std::move(body), watcher, deadline, !server_path);
  // The engine has encoded the request and left the body here (submit takes it by rvalue reference and moves
  // nothing out): a create's ACL list serves the next create.
  // NOLINTBEGIN(bugprone-use-after-move)
  if (auto* create = std::get_if<proto::create_request>(&body)) {
    recycle_acl_list(std::move(create->acl));
  } else if (auto* create_ttl = std::get_if<proto::create_ttl_request>(&body)) {
    recycle_acl_list(std::move(create_ttl->acl));
  }
  // NOLINTEND(bugprone-use-after-move)
  ops_.add(id, std::move(op_state), tracked);
  if (!write_inline()) schedule_pump();
  return id;
}

bool client_impl::write_inline() {
  // Only writing: whatever else the engine asks for (a completion of this very request among it) is the loop's, so
  // that no handler runs inside the initiating call.
  if (!options_.start_requests_inline || pumping_ != pumping::no || pump_posted_ || link_ != link::open || writing_ ||
      engine_.has_actions_besides_output()) {
    return false;
  }
  // Nothing here calls back into the client (a transport reports no event from inside a call): no pump guard.
  write_output();
  arm_timer();
  return true;
}

void client_impl::write_output() {
  // A write the socket took at once leaves the link free for the next output (start_write).
  while (link_ == link::open && !writing_) {
    auto out = engine_.take_output();
    if (!out) break;
    start_write(*out);
  }
}

proto::request_id client_impl::start_add_auth(std::string scheme, std::string credentials,
                                              std::unique_ptr<pending_op> op_state) {
  ensure_started();
  const auto id = engine_.add_auth(now(), std::move(scheme), std::move(credentials));
  ops_.add(id, std::move(op_state));
  schedule_pump();
  return id;
}

void client_impl::cancel(proto::request_id id) {
  if (life_ == lifecycle::shut_down) return;
  if (engine_.cancel(id)) log(log_level::debug, [&] { return "request " + std::to_string(id) + " cancelled"; });
  schedule_pump();
}

std::uint64_t client_impl::start_wait(wait_kind kind, std::unique_ptr<pending_op> op_state) {
  const std::uint64_t id = waiters_.add(kind, std::move(op_state));
  const auto state = engine_.state();
  if (kind == wait_kind::close) {
    if (state != session_state::closed && state != session_state::expired && state != session_state::auth_failed) {
      log(log_level::info, [] { return std::string("closing the session"); });
      engine_.close(now());
    }
  } else {
    if (kind == wait_kind::new_session && (state == session_state::expired || state == session_state::auth_failed)) {
      log(log_level::info, [] { return std::string("starting a new session"); });
      engine_.new_session(now());
    }
    ensure_started();
    const auto timeout = options_.connect_timeout.count() > 0 ? options_.connect_timeout : options_.session_timeout;
    // `this` is safe: the wakeup is destroyed with the waiter, at the latest by shutdown() or the destructor.
    auto wakeup = clock_->make_wakeup(executor_, [this, id] {
      const auto self = shared_from_this();
      expire_waiter(id);
    });
    wakeup->expires_at(now() + timeout);
    waiters_.set_timeout(id, std::move(wakeup));
  }
  schedule_pump();
  return id;
}

void client_impl::cancel_wait(std::uint64_t id) {
  if (auto op = waiters_.take(id)) op->fail(proto::client_error::cancelled, true);
}

void client_impl::expire_waiter(std::uint64_t id) {
  if (life_ == lifecycle::shut_down) return;
  auto op = waiters_.take(id);
  if (!op) return;
  const std::error_code cause = connect_failure_cause();
  log(log_level::error, [&] {
    return "no session within the connect timeout (state " + std::string(proto::session_state_name(engine_.state())) +
           (cause != client_errc::connect_timeout ? "; last failure: " + cause.message() : std::string()) + ")";
  });
  op->fail(cause, false);
}

std::error_code client_impl::connect_failure_cause() const {
  // A TLS failure or an unknown host names a cause the user can fix (an untrusted or misnamed certificate, a
  // plaintext port, a typo in a host name, ...).
  if (last_tls_error_) return last_tls_error_;
  // Every host closed the connection unanswered, in the last round at least.
  if (closed_before_handshake_ >= servers_.hosts.size()) return client_errc::closed_before_handshake;
  return client_errc::connect_timeout;
}

void client_impl::shutdown() noexcept {
  if (life_ == lifecycle::shut_down) return;
  life_ = lifecycle::shut_down;
  listener_ = nullptr;
  try {
    // Observers learn that the client is gone before anything else (they must not call it from now on).
    auto observers = std::move(observers_);
    observers_.clear();
    for (auto& [id, observer] : observers) {
      observer(state_event{engine_.state(), session_state::closed, proto::client_error::closed});
    }
    if (probe_) probe_->stop();
    close_connection();
    timer_->cancel();
    waiters_.fail_all(proto::client_error::closed);
    for (auto& op : ops_.take_all()) op->fail(proto::client_error::closed, true);
    watchers_.end_all(executor_, watch_event{event_type::none, keeper_state::closed, {}, proto::client_error::closed});
  } catch (...) {  // NOLINT(bugprone-empty-catch): nothing sensible to do in a destructor
  }
}

std::uint64_t client_impl::add_observer(state_listener observer) {
  const std::uint64_t id = next_observer_++;
  observers_.emplace(id, std::move(observer));
  return id;
}

void client_impl::ensure_started() {
  if (life_ != lifecycle::idle) return;
  life_ = lifecycle::running;
  log(log_level::debug, [&] {
    std::string text = "starting a session with ";
    for (std::size_t i = 0; i < servers_.hosts.size(); ++i) {
      if (i > 0) text += ',';
      text += to_string(servers_.hosts[i]);
    }
    if (!servers_.chroot.empty()) text.append(" chroot ").append(servers_.chroot);
    return text;
  });
  engine_.start(now());
  for (const auto& c : options_.auth) engine_.add_auth(now(), c.scheme, c.credentials);
}

// --- the loop -----------------------------------------------------------------------------------------------

void client_impl::schedule_pump() {
  if (life_ == lifecycle::shut_down) return;
  if (pumping_ != pumping::no) {
    pumping_ = pumping::again;
    return;
  }
  if (pump_posted_) return;
  pump_posted_ = true;
  asio::post(executor_, using_memory(pump_memory_, [self = shared_from_this()] {
               self->pump_posted_ = false;
               self->pump();
             }));
}

// Acts on everything the engine asks for, until it asks for nothing more. Callers hold a reference to this object:
// a handler run from here may destroy the client.
void client_impl::pump() {
  if (life_ == lifecycle::shut_down) return;
  if (pumping_ != pumping::no) {
    pumping_ = pumping::again;
    return;
  }
  do {
    pumping_ = pumping::yes;
    if (engine_.take_close()) {
      log(log_level::debug, [] { return std::string("closing the connection"); });
      close_connection();
    }
    if (auto host = engine_.take_connect()) open_connection(*host);
    write_output();
    while (life_ != lifecycle::shut_down) {
      auto d = engine_.take_delivery();
      if (!d) break;
      deliver(std::move(*d));
    }
    if (life_ == lifecycle::shut_down) break;
    watchers_.sweep([this](proto::watcher_id w) { return engine_.watcher_registered(w); });
    waiters_.resolve(engine_.state(), engine_.session_error());
    arm_timer();
  } while (pumping_ == pumping::again && life_ != lifecycle::shut_down);
  pumping_ = pumping::no;
}

void client_impl::deliver(proto::delivery&& d) {
  if (auto* c = std::get_if<proto::completion>(&d)) {
    on_completion(std::move(*c));
  } else if (auto* w = std::get_if<proto::watch_delivery>(&d)) {
    watchers_.deliver(std::move(*w));
  } else if (auto* s = std::get_if<proto::state_change>(&d)) {
    on_state(*s);
  }
}

void client_impl::on_completion(proto::completion&& c) {
  auto [op, watcher] = ops_.take(c.id);
  // The engine keeps nothing of a watcher its request did not register; neither does the client, once the
  // deliveries queued behind this completion are out (watch_callbacks::sweep).
  if (watcher != 0) watchers_.request_done(watcher);
  if (c.error == proto::client_error::frame_too_large) {
    // The error's message names the option; the sizes are known only here.
    log(log_level::warning, [&] {
      return std::string(proto::op_code_name(c.op)) + " reply of " + std::to_string(c.reply_size) +
             " bytes is over client_options::max_frame_size (" + std::to_string(options_.max_frame_size) +
             " bytes): the request failed with frame_too_large";
    });
  }
  if (!op) {
    if (c.error) {
      log(log_level::debug, [&] {
        return std::string(proto::op_code_name(c.op)) + " request " + std::to_string(c.id) + ": " + c.error.message();
      });
    }
    return;
  }
  op->complete(std::move(c));
}

void client_impl::on_state(const proto::state_change& s) {
  // The last TLS failure names the cause of a connect timeout until a session is up. Not cleared by a completed TLS
  // handshake: with TLS 1.3 a server that refuses our certificate says so only after it, on the first read, and the
  // connect timeout may fall between the next attempt's handshake and that read.
  if (s.to == session_state::connected || s.to == session_state::connected_read_only) {
    last_tls_error_.clear();
    closed_before_handshake_ = 0;
  }
  // Losing the connection or the session is worth a warning; every other transition is routine.
  const bool trouble = s.to == session_state::suspended || s.to == session_state::lost ||
                       s.to == session_state::expired || s.to == session_state::auth_failed;
  log(trouble ? log_level::warning : log_level::info, [&] {
    std::string text = "session ";
    text += proto::session_state_name(s.from);
    text += " -> ";
    text += proto::session_state_name(s.to);
    if (s.to == session_state::connected || s.to == session_state::connected_read_only) {
      text += " (session " + hex_session(engine_.session_id()) + ", timeout " +
              std::to_string(engine_.negotiated_timeout().count()) + " ms";
      if (auto host = engine_.current_host(); host && *host < servers_.hosts.size()) {
        text += ", " + to_string(servers_.hosts[*host]);
      }
      text += ")";
    }
    if (s.reason) text += ": " + s.reason.message();
    return text;
  });
  if (probe_) {
    // Read-only: look for a read-write server in the background (docs/protocol.md#read-only); any other state
    // ends the search (a new read-only connection starts it afresh, from the first interval).
    const auto host = engine_.current_host();
    if (s.to == session_state::connected_read_only && host) {
      probe_->start(servers_.hosts, *host);
    } else {
      probe_->stop();
    }
  }
  if (options_.follow_config && (s.to == session_state::connected || s.to == session_state::connected_read_only) &&
      !config_reading_ && !config_watched_) {
    read_config();
  }
  if (listener_) {
    const state_listener listener = listener_;  // it may replace itself
    listener(state_event{s.from, s.to, s.reason});
    if (life_ == lifecycle::shut_down) return;
  }
  if (!observers_.empty()) {
    const auto observers = observers_;  // they may add or remove observers
    for (const auto& [id, observer] : observers) {
      if (!observers_.contains(id)) continue;  // removed by an earlier one
      observer(state_event{s.from, s.to, s.reason});
      if (life_ == lifecycle::shut_down) return;
    }
  }
  waiters_.resolve(s.to, engine_.session_error());
}

void client_impl::on_read_write_server(std::size_t index) {
  if (life_ == lifecycle::shut_down || engine_.state() != session_state::connected_read_only) return;
  const auto self = shared_from_this();
  log(log_level::info,
      [&] { return "read-write server found: " + to_string(servers_.hosts.at(index)) + "; moving the session there"; });
  engine_.switch_host(now(), index, client_errc::read_write_server_found);
  pump();
}

bool client_impl::remove_local_watches(std::string_view path, watcher_type type, std::optional<watcher_key> key) {
  if (life_ == lifecycle::shut_down) return false;
  proto::watcher_id only = 0;
  if (key) {
    only = watchers_.find(*key);
    if (only == 0) return false;
  }
  const bool removed = engine_.remove_local_watches(path, type, only);
  if (removed) schedule_pump();
  return removed;
}

bool client_impl::watching(std::string_view path, watcher_type type, watcher_key key) const {
  const proto::watcher_id id = watchers_.find(key);
  return id != 0 && engine_.watching(path, type, id);
}

std::vector<watcher_key> client_impl::watcher_keys() const {
  return watchers_.keys([this](proto::watcher_id w) { return engine_.watcher_registered(w); });
}

proto::request_id client_impl::start_remove_watches(std::string path, watcher_type type, std::optional<watcher_key> key,
                                                    std::unique_ptr<pending_op> op_state,
                                                    std::optional<std::chrono::nanoseconds> timeout) {
  if (!key) {
    // The engine removes the matching watchers and delivers their removal events before the completion.
    return start_request(proto::op_code::remove_watches, proto::remove_watches_request{std::move(path), type},
                         std::nullopt, std::move(op_state), timeout);
  }
  const proto::watcher_id watcher = watchers_.find(*key);
  if (watcher == 0) {
    // No such watcher: nothing to ask the server (the engine's answer for a known watcher without that watch).
    op_state->fail(proto::server_error::no_watcher, true);
    return 0;
  }
  ensure_started();
  return submit(proto::op_code::check_watches, proto::check_watches_request{std::move(path), type}, watcher, 0,
                std::move(op_state), timeout, false);
}

void client_impl::switch_host(std::size_t index) {
  if (index >= servers_.hosts.size() || life_ == lifecycle::shut_down) return;
  engine_.switch_host(now(), index, client_errc::host_switched);
  schedule_pump();
}

void client_impl::arm_timer() {
  const proto::time_point when = engine_.next_wakeup();
  if (when == timer_expiry_) return;
  if (when == proto::time_point::max()) {
    // Nothing is due any more (the session ended or was closed): a wait kept from earlier would hold the
    // application's event loop open until it fired.
    timer_expiry_ = when;
    timer_->cancel();
    return;
  }
  // Every request and reply moves the engine's wakeup (ping and read timeout) a little later. Re-arming for each
  // would cost a cancelled wait and a timerfd update per request; a timer armed for an earlier time is kept
  // instead: it fires, the engine's tick finds nothing due yet (ticking early is allowed), and it is re-armed.
  if (timer_expiry_ != proto::time_point::max() && when > timer_expiry_) return;
  timer_expiry_ = when;
  timer_->expires_at(when);
}

void client_impl::on_timer() {
  if (life_ == lifecycle::shut_down) return;
  const auto self = shared_from_this();
  timer_expiry_ = proto::time_point::max();
  engine_.tick(now());
  pump();
}

}  // namespace zkwire::detail
