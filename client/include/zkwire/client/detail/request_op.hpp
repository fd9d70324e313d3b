#pragma once
// The plumbing behind zkwire::client's async_* functions: the client_impl accessors, the pending operation that
// holds a caller's handler (request_op), the cancellation hooks and the initiators Asio's async_initiate calls.
// Internal: client.hpp is the interface.

#include <asio/any_io_executor.hpp>
#include <asio/cancellation_type.hpp>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <type_traits>
#include <utility>
#include <vector>

#include "zkwire/client/clock.hpp"
#include "zkwire/client/connect_string.hpp"
#include "zkwire/client/detail/cancellation.hpp"
#include "zkwire/client/detail/core.hpp"
#include "zkwire/client/detail/handler.hpp"
#include "zkwire/client/options.hpp"
#include "zkwire/client/types.hpp"
#include "zkwire/client/watch.hpp"

namespace zkwire::detail {

std::shared_ptr<client_impl> make_client_impl(asio::any_io_executor executor, client_options options);
void shutdown(client_impl& impl) noexcept;
session_state state_of(const client_impl& impl) noexcept;
std::int64_t session_id_of(const client_impl& impl) noexcept;
std::chrono::milliseconds negotiated_timeout_of(const client_impl& impl) noexcept;
std::optional<std::chrono::steady_clock::time_point> last_answered_send_time_of(const client_impl& impl) noexcept;
const connect_string& connect_string_of(const client_impl& impl) noexcept;
const std::shared_ptr<zkwire::clock>& clock_of(const client_impl& impl) noexcept;
void set_state_listener(client_impl& impl, state_listener listener);
std::uint64_t add_state_observer(client_impl& impl, state_listener observer);
void remove_state_observer(client_impl& impl, std::uint64_t id) noexcept;
std::size_t pending_requests_of(const client_impl& impl) noexcept;
std::size_t watch_count_of(const client_impl& impl) noexcept;
std::optional<host_port> connected_host_of(const client_impl& impl);
std::string session_password_of(const client_impl& impl);
void set_hosts(client_impl& impl, std::vector<host_port> hosts);
void switch_host(client_impl& impl, std::size_t index);
bool remove_local_watches(client_impl& impl, std::string_view path, watcher_type type,
                          std::optional<watcher_key> key = std::nullopt);
bool watching(const client_impl& impl, std::string_view path, watcher_type type, watcher_key key);
std::vector<watcher_key> watcher_keys(const client_impl& impl);

template <class Result>
std::error_code convert(proto::completion&& c, watched<Result>& out) {
  return convert(std::move(c), out.result);
}

template <class Result>
struct is_watched : std::false_type {};
template <class Result>
struct is_watched<watched<Result>> : std::true_type {};

template <class Result>
struct signature_of {
  using type = void(std::error_code, Result);
};
template <>
struct signature_of<no_result> {
  using type = void(std::error_code);
};
template <class Result>
using signature_t = typename signature_of<Result>::type;

template <class Result, class Handler>
class request_op final : public pending_op {
 public:
  request_op(Handler handler, asio::any_io_executor executor, std::shared_ptr<watch_state> watch)
      : holder_(std::move(handler), executor), executor_(std::move(executor)), watch_(std::move(watch)) {}

  void complete(proto::completion&& c) override {
    Result result{};
    const std::error_code ec = convert(std::move(c), result);
    finish(ec, std::move(result), false);
  }
  void fail(std::error_code ec, bool post) override { finish(ec, Result{}, post); }
  [[nodiscard]] auto& slot() noexcept { return holder_.slot(); }

 private:
  void finish(std::error_code ec, Result&& result, bool post) {
    if constexpr (std::is_same_v<Result, no_result>) {
      holder_.invoke(post, ec);
    } else {
      if constexpr (is_watched<Result>::value) {
        result.watch = zkwire::watch(ec ? nullptr : std::move(watch_), executor_);
      }
      holder_.invoke(post, ec, std::move(result));
    }
  }

  handler_holder<Handler> holder_;
  asio::any_io_executor executor_;
  std::shared_ptr<watch_state> watch_;
};

// What to start once the handler is known.
struct request_spec {
  proto::op_code op = proto::op_code::error;
  proto::request_body body;
  std::optional<watch_registration> watch;
  std::optional<std::chrono::nanoseconds> timeout;  // with_timeout's
  bool server_path = false;                         // sent without the chroot (getConfig)
};
struct remove_watches_spec {
  std::string path;
  watcher_type type = watcher_type::any;
  std::optional<std::chrono::nanoseconds> timeout;
  std::optional<watcher_key> key;  // remove that watcher alone (checkWatches)
};
struct add_auth_spec {
  std::string scheme;
  std::string credentials;
};

template <class Result>
struct initiate_request {
  std::shared_ptr<client_impl> impl;

  template <class Handler, class Spec>
  void operator()(Handler&& handler, Spec spec) const {
    using op_type = request_op<Result, std::decay_t<Handler>>;
    std::shared_ptr<watch_state> state;
    if constexpr (std::is_same_v<Spec, request_spec>) {
      if (spec.watch) state = spec.watch->state;
    }
    auto op = std::make_unique<op_type>(std::forward<Handler>(handler), executor_of(*impl), std::move(state));
    auto slot = op->slot();
    proto::request_id id = 0;
    if constexpr (std::is_same_v<Spec, request_spec>) {
      id = start_request(*impl, spec.op, std::move(spec.body), std::move(spec.watch), std::move(op), spec.timeout,
                         spec.server_path);
    } else if constexpr (std::is_same_v<Spec, remove_watches_spec>) {
      id = start_remove_watches(*impl, std::move(spec.path), spec.type, spec.key, std::move(op), spec.timeout);
    } else {
      id = start_add_auth(*impl, std::move(spec.scheme), std::move(spec.credentials), std::move(op));
    }
    // The op is owned by the client now and cannot complete before the next turn of the executor.
    on_cancel(slot, [weak = std::weak_ptr<client_impl>(impl), id] { cancel_request(weak, id); });
  }
};

struct initiate_wait {
  std::shared_ptr<client_impl> impl;
  wait_kind kind = wait_kind::connect;

  template <class Handler>
  void operator()(Handler&& handler) const {
    using op_type = request_op<no_result, std::decay_t<Handler>>;
    auto op = std::make_unique<op_type>(std::forward<Handler>(handler), executor_of(*impl), nullptr);
    auto slot = op->slot();
    const std::uint64_t id = start_wait(*impl, kind, std::move(op));
    on_cancel(slot, [weak = std::weak_ptr<client_impl>(impl), id] { cancel_wait(weak, id); });
  }
};

}  // namespace zkwire::detail
