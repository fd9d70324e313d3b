// The boundary functions of detail/core.hpp and client.hpp, forwarding to the driver (client_impl.cpp), and the
// client object itself.

#include "zkwire/client/client.hpp"

#include <stdexcept>
#include <system_error>
#include <utility>

#include "client_impl.hpp"
#include "options_check.hpp"
#include "zkwire/client/errors.hpp"

namespace zkwire {
namespace detail {

asio::any_io_executor executor_of(const client_impl& impl) noexcept { return impl.executor(); }

proto::request_id start_request(client_impl& impl, proto::op_code op, proto::request_body body,
                                std::optional<watch_registration> watch, std::unique_ptr<pending_op> op_state,
                                std::optional<std::chrono::nanoseconds> timeout, bool server_path) {
  return impl.start_request(op, std::move(body), std::move(watch), std::move(op_state), timeout, server_path);
}

proto::request_id start_remove_watches(client_impl& impl, std::string path, watcher_type type,
                                       std::optional<watcher_key> key, std::unique_ptr<pending_op> op_state,
                                       std::optional<std::chrono::nanoseconds> timeout) {
  return impl.start_remove_watches(std::move(path), type, key, std::move(op_state), timeout);
}

proto::request_id start_add_auth(client_impl& impl, std::string scheme, std::string credentials,
                                 std::unique_ptr<pending_op> op_state) {
  return impl.start_add_auth(std::move(scheme), std::move(credentials), std::move(op_state));
}

void cancel_request(const std::weak_ptr<client_impl>& impl, proto::request_id id) {
  if (auto p = impl.lock()) p->cancel(id);
}

std::uint64_t start_wait(client_impl& impl, wait_kind kind, std::unique_ptr<pending_op> op_state) {
  return impl.start_wait(kind, std::move(op_state));
}

void cancel_wait(const std::weak_ptr<client_impl>& impl, std::uint64_t id) {
  if (auto p = impl.lock()) p->cancel_wait(id);
}

void start_watch_wait(const std::shared_ptr<watch_state>& state, std::unique_ptr<event_waiter> waiter) {
  if (state->waiter) {
    waiter->deliver(client_errc::already_waiting, watch_event{}, true);
  } else if (state->event) {
    waiter->deliver(state->event->error, *state->event, true);
  } else {
    state->waiter = std::move(waiter);
  }
}

void cancel_watch_wait(const std::weak_ptr<watch_state>& state) {
  auto s = state.lock();
  if (!s || !s->waiter) return;
  auto waiter = std::move(s->waiter);
  waiter->deliver(proto::client_error::cancelled, watch_event{}, true);
}

std::shared_ptr<client_impl> make_client_impl(asio::any_io_executor executor, client_options options) {
  check_options(options);
  connect_string servers;
  std::string reason;
  if (auto ec = parse_connect_string(options.connect_string, servers, &reason)) {
    throw std::system_error(ec, "connect string '" + options.connect_string + "': " + reason);
  }
  return std::make_shared<client_impl>(std::move(executor), std::move(options), std::move(servers));
}

void shutdown(client_impl& impl) noexcept { impl.shutdown(); }
session_state state_of(const client_impl& impl) noexcept { return impl.engine().state(); }
std::int64_t session_id_of(const client_impl& impl) noexcept { return impl.engine().session_id(); }
std::chrono::milliseconds negotiated_timeout_of(const client_impl& impl) noexcept {
  return impl.engine().negotiated_timeout();
}
const connect_string& connect_string_of(const client_impl& impl) noexcept { return impl.servers(); }
const std::shared_ptr<zkwire::clock>& clock_of(const client_impl& impl) noexcept { return impl.time_source(); }
void set_state_listener(client_impl& impl, state_listener listener) { impl.set_listener(std::move(listener)); }
std::uint64_t add_state_observer(client_impl& impl, state_listener observer) {
  return impl.add_observer(std::move(observer));
}
void remove_state_observer(client_impl& impl, std::uint64_t id) noexcept { impl.remove_observer(id); }
std::size_t pending_requests_of(const client_impl& impl) noexcept { return impl.engine().pending_requests(); }
std::size_t watch_count_of(const client_impl& impl) noexcept { return impl.watch_count(); }
std::optional<std::chrono::steady_clock::time_point> last_answered_send_time_of(const client_impl& impl) noexcept {
  return impl.engine().last_answered_send_time();
}
std::string session_password_of(const client_impl& impl) { return std::string(impl.engine().session_password()); }
void set_hosts(client_impl& impl, std::vector<host_port> hosts) {
  if (hosts.empty()) throw std::invalid_argument("client::set_hosts: the host list is empty");
  impl.replace_hosts(std::move(hosts), "host list replaced", client_errc::ensemble_changed);
}
void switch_host(client_impl& impl, std::size_t index) { impl.switch_host(index); }
bool remove_local_watches(client_impl& impl, std::string_view path, watcher_type type, std::optional<watcher_key> key) {
  return impl.remove_local_watches(path, type, key);
}
bool watching(const client_impl& impl, std::string_view path, watcher_type type, watcher_key key) {
  return impl.watching(path, type, key);
}
std::vector<watcher_key> watcher_keys(const client_impl& impl) { return impl.watcher_keys(); }
std::optional<host_port> connected_host_of(const client_impl& impl) {
  const auto state = impl.engine().state();
  if (state != session_state::connected && state != session_state::connected_read_only) return std::nullopt;
  const auto host = impl.engine().current_host();
  if (!host || *host >= impl.servers().hosts.size()) return std::nullopt;
  return impl.servers().hosts[*host];
}

}  // namespace detail

client::client(executor_type executor, client_options options)
    : impl_(detail::make_client_impl(std::move(executor), std::move(options))) {}

client::~client() {
  if (impl_) detail::shutdown(*impl_);
}

client& client::operator=(client&& other) noexcept {
  if (this != &other) {
    if (impl_) detail::shutdown(*impl_);
    impl_ = std::move(other.impl_);
  }
  return *this;
}

}  // namespace zkwire
