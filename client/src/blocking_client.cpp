#include "zkwire/client/blocking_client.hpp"

#include <asio/executor_work_guard.hpp>
#include <asio/io_context.hpp>
#include <asio/post.hpp>
#include <chrono>
#include <future>
#include <memory>
#include <optional>
#include <thread>
#include <utility>

#include "zkwire/client/client.hpp"

namespace zkwire {

namespace {

// The handlers of the blocking calls: one type per result type, shared by every operation with that result, so the
// client's request machinery (request_op, the handler's Asio associations) is instantiated once per result type. A
// lambda per operation made as many handler types as operations: this file took 40 s of CPU to compile with GCC -O3,
// 24 s with these.
struct error_handler {
  std::shared_ptr<std::promise<std::error_code>> done;
  void operator()(std::error_code ec) const { done->set_value(ec); }
};
template <class R>
struct result_handler {
  std::shared_ptr<std::promise<std::pair<std::error_code, R>>> done;
  void operator()(std::error_code ec, R result) const { done->set_value({ec, std::move(result)}); }
};

}  // namespace

struct blocking_client::impl {
  mutable asio::io_context io{1};
  asio::executor_work_guard<asio::io_context::executor_type> work{io.get_executor()};
  std::optional<zkwire::client> cli;
  std::thread thread;
  std::thread::id thread_id;

  explicit impl(client_options options) {
    cli.emplace(io.get_executor(), std::move(options));
    thread = std::thread([this] {
      while (true) {
        try {
          io.run();
          return;
        } catch (...) {  // NOLINT(bugprone-empty-catch): a throwing callback must not kill the loop thread
        }
      }
    });
    thread_id = thread.get_id();
  }

  impl(const impl&) = delete;
  impl& operator=(const impl&) = delete;
  impl(impl&&) = delete;
  impl& operator=(impl&&) = delete;

  ~impl() {
    // The client is destroyed on its executor; its handlers then finish and run() returns.
    asio::post(io, [this] { cli.reset(); });
    work.reset();
    if (thread.joinable()) thread.join();
  }

  void check_thread() const {
    if (std::this_thread::get_id() == thread_id) {
      throw std::logic_error(
          "zkwire::blocking_client: called from its own loop thread (a watch callback or "
          "listener); use the asynchronous client there");
    }
  }

  // Runs `start(client, handler)` on the loop thread and waits for the handler: R is the result type, or void.
  template <class R, class Start>
  R call(const std::string& what, Start&& start) {
    check_thread();
    if constexpr (std::is_void_v<R>) {
      auto done = std::make_shared<std::promise<std::error_code>>();
      auto future = done->get_future();
      asio::post(io, [this, &start, done] { start(*cli, error_handler{done}); });
      if (const auto ec = future.get()) throw std::system_error(ec, what);
    } else {
      auto [ec, result] = outcome<R>(std::nullopt, start);
      if (ec) throw std::system_error(ec, what);
      return std::move(result);
    }
  }

  // Runs `start(client, handler)` on the loop thread, with zkwire::with_timeout when there is a `timeout`, and
  // waits for the handler's error and result (for the multis, whose results matter beside an error too).
  template <class R, class Start>
  std::pair<std::error_code, R> outcome(std::optional<std::chrono::nanoseconds> timeout, Start&& start) {
    check_thread();
    auto done = std::make_shared<std::promise<std::pair<std::error_code, R>>>();
    auto future = done->get_future();
    asio::post(io, [this, &start, done, timeout] {
      result_handler<R> handler{done};
      if (timeout) {
        start(*cli, zkwire::with_timeout(*timeout, std::move(handler)));
      } else {
        start(*cli, std::move(handler));
      }
    });
    return future.get();
  }

  // call() for a request: with a `timeout` (blocking_client::with_timeout), its handler goes with
  // zkwire::with_timeout, the request's own deadline.
  template <class R, class Start>
  R request(std::optional<std::chrono::nanoseconds> timeout, const std::string& what, Start&& start) {
    if (!timeout) return call<R>(what, start);
    return call<R>(what, [&start, t = *timeout](client& c, auto handler) {
      start(c, zkwire::with_timeout(t, std::move(handler)));
    });
  }

  // Runs `read(client)` on the loop thread and returns its value.
  template <class Read>
  auto observe(Read&& read) const {
    check_thread();
    using R = decltype(read(std::declval<const zkwire::client&>()));
    auto done = std::make_shared<std::promise<R>>();  // shared: the loop thread may still hold it when we return
    auto future = done->get_future();
    asio::post(io, [this, &read, done] { done->set_value(read(*cli)); });
    return future.get();
  }
};

blocking_client::blocking_client(client_options options) : impl_(std::make_shared<impl>(std::move(options))) {}

blocking_client::blocking_client(std::shared_ptr<impl> shared, std::chrono::nanoseconds timeout)
    : impl_(std::move(shared)), timeout_(timeout) {}

blocking_client blocking_client::with_timeout(std::chrono::nanoseconds timeout) const { return {impl_, timeout}; }

blocking_client::~blocking_client() = default;

client& blocking_client::async_client() noexcept { return *impl_->cli; }

void blocking_client::connect() {
  impl_->call<void>("connect", [](client& c, auto h) { c.async_connect(std::move(h)); });
}

void blocking_client::new_session() {
  impl_->call<void>("new session", [](client& c, auto h) { c.async_new_session(std::move(h)); });
}

void blocking_client::close() {
  impl_->call<void>("close", [](client& c, auto h) { c.async_close(std::move(h)); });
}

void blocking_client::add_auth(const std::string& scheme, const std::string& credentials) {
  impl_->call<void>("add_auth " + scheme,
                    [&](client& c, auto h) { c.async_add_auth(scheme, credentials, std::move(h)); });
}

session_state blocking_client::state() const {
  return impl_->observe([](const client& c) { return c.state(); });
}

std::int64_t blocking_client::session_id() const {
  return impl_->observe([](const client& c) { return c.session_id(); });
}

std::optional<host_port> blocking_client::connected_host() const {
  return impl_->observe([](const client& c) { return c.connected_host(); });
}

connect_string blocking_client::servers() const {
  return impl_->observe([](const client& c) { return c.servers(); });
}

std::chrono::milliseconds blocking_client::session_timeout() const {
  return impl_->observe([](const client& c) { return c.session_timeout(); });
}

void blocking_client::set_state_listener(state_listener listener) {
  impl_->check_thread();
  auto done = std::make_shared<std::promise<void>>();
  auto future = done->get_future();
  asio::post(impl_->io, [this, &listener, done] {
    impl_->cli->set_state_listener(std::move(listener));
    done->set_value();
  });
  future.get();
}

create_result blocking_client::create(const std::string& path, const std::string& data, const create_options& options) {
  return impl_->request<create_result>(timeout_, "create " + path,
                                       [&](client& c, auto h) { c.async_create(path, data, options, std::move(h)); });
}

void blocking_client::remove(const std::string& path, std::int32_t version) {
  impl_->request<void>(timeout_, "delete " + path,
                       [&](client& c, auto h) { c.async_remove(path, version, std::move(h)); });
}

std::optional<stat> blocking_client::exists(const std::string& path) {
  return impl_->request<std::optional<stat>>(timeout_, "exists " + path,
                                             [&](client& c, auto h) { c.async_exists(path, std::move(h)); });
}

std::optional<stat> blocking_client::exists(const std::string& path, watch_callback on_event) {
  return impl_->request<std::optional<stat>>(
      timeout_, "exists " + path, [&](client& c, auto h) { c.async_exists(path, std::move(on_event), std::move(h)); });
}

get_result blocking_client::get(const std::string& path) {
  return impl_->request<get_result>(timeout_, "get " + path,
                                    [&](client& c, auto h) { c.async_get(path, std::move(h)); });
}

get_result blocking_client::get(const std::string& path, watch_callback on_event) {
  return impl_->request<get_result>(timeout_, "get " + path,
                                    [&](client& c, auto h) { c.async_get(path, std::move(on_event), std::move(h)); });
}

stat blocking_client::set(const std::string& path, const std::string& data, std::int32_t version) {
  return impl_->request<stat>(timeout_, "set " + path,
                              [&](client& c, auto h) { c.async_set(path, data, version, std::move(h)); });
}

children_result blocking_client::get_children(const std::string& path) {
  return impl_->request<children_result>(timeout_, "ls " + path,
                                         [&](client& c, auto h) { c.async_get_children(path, std::move(h)); });
}

children_result blocking_client::get_children(const std::string& path, watch_callback on_event) {
  return impl_->request<children_result>(timeout_, "ls " + path, [&](client& c, auto h) {
    c.async_get_children(path, std::move(on_event), std::move(h));
  });
}

acl_result blocking_client::get_acl(const std::string& path) {
  return impl_->request<acl_result>(timeout_, "getAcl " + path,
                                    [&](client& c, auto h) { c.async_get_acl(path, std::move(h)); });
}

stat blocking_client::set_acl(const std::string& path, const std::vector<acl>& acl_list, std::int32_t version) {
  return impl_->request<stat>(timeout_, "setAcl " + path,
                              [&](client& c, auto h) { c.async_set_acl(path, acl_list, version, std::move(h)); });
}

void blocking_client::sync(const std::string& path) {
  impl_->request<void>(timeout_, "sync " + path, [&](client& c, auto h) { c.async_sync(path, std::move(h)); });
}

std::vector<op_result> blocking_client::multi(const std::vector<multi_op>& ops) {
  auto [ec, results] = impl_->outcome<std::vector<op_result>>(
      timeout_, [&](client& c, auto handler) { c.async_multi(ops, std::move(handler)); });
  if (ec && !results.empty()) throw multi_error(ec, std::move(results));
  if (ec) throw std::system_error(ec, "multi");
  return std::move(results);
}

std::vector<op_result> blocking_client::multi_read(const std::vector<multi_op>& ops) {
  auto [ec, results] = impl_->outcome<std::vector<op_result>>(
      timeout_, [&](client& c, auto handler) { c.async_multi_read(ops, std::move(handler)); });
  if (ec && results.empty()) throw std::system_error(ec, "multi_read");
  return std::move(results);
}

void blocking_client::add_watch(const std::string& path, add_watch_mode mode, watch_callback on_event) {
  impl_->request<void>(timeout_, "addWatch " + path,
                       [&](client& c, auto h) { c.async_add_watch(path, mode, std::move(on_event), std::move(h)); });
}

void blocking_client::remove_watches(const std::string& path, watcher_type type) {
  impl_->request<void>(timeout_, "removeWatches " + path,
                       [&](client& c, auto h) { c.async_remove_watches(path, type, std::move(h)); });
}

void blocking_client::check_watches(const std::string& path, watcher_type type) {
  impl_->request<void>(timeout_, "check_watches " + path,
                       [&](client& c, auto h) { c.async_check_watches(path, type, std::move(h)); });
}

get_result blocking_client::get_config() {
  return impl_->request<get_result>(timeout_, "get_config",
                                    [](client& c, auto h) { c.async_get_config(std::move(h)); });
}

get_result blocking_client::get_config(watch_callback on_event) {
  return impl_->request<get_result>(timeout_, "get_config",
                                    [&](client& c, auto h) { c.async_get_config(std::move(on_event), std::move(h)); });
}

get_result blocking_client::reconfig(const std::optional<std::string>& joining,
                                     const std::optional<std::string>& leaving,
                                     const std::optional<std::string>& new_members, std::int64_t from_config) {
  return impl_->request<get_result>(timeout_, "reconfig", [&](client& c, auto h) {
    c.async_reconfig(joining, leaving, new_members, from_config, std::move(h));
  });
}

std::vector<std::string> blocking_client::get_ephemerals(const std::string& prefix) {
  return impl_->request<std::vector<std::string>>(
      timeout_, "getEphemerals " + prefix, [&](client& c, auto h) { c.async_get_ephemerals(prefix, std::move(h)); });
}

std::int32_t blocking_client::get_all_children_number(const std::string& path) {
  return impl_->request<std::int32_t>(timeout_, "getAllChildrenNumber " + path,
                                      [&](client& c, auto h) { c.async_get_all_children_number(path, std::move(h)); });
}

std::vector<client_info> blocking_client::whoami() {
  return impl_->request<std::vector<client_info>>(timeout_, "whoami",
                                                  [](client& c, auto h) { c.async_whoami(std::move(h)); });
}

}  // namespace zkwire
