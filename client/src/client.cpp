// The Asio driver of the session engine: one TCP connection at a time, one read into prepare_read, one write of
// take_output, a timer at next_wakeup, and the deliveries turned into completion handler invocations
// (the loop is described at the top of zkwire/proto/session/session.hpp).

#include "zkwire/client/client.hpp"

#include <algorithm>
#include <array>
#include <asio/connect.hpp>
#include <asio/ip/address.hpp>
#include <asio/ip/tcp.hpp>
#include <asio/post.hpp>
#include <asio/steady_timer.hpp>
#include <asio/write.hpp>
#include <cinttypes>
#include <cstddef>
#include <cstdio>
#include <map>
#include <unordered_map>
#include <utility>
#include <variant>
#include <vector>

#include "zkwire/client/errors.hpp"

namespace zkwire {
namespace detail {
namespace {

using tcp = asio::ip::tcp;

proto::time_point now() { return proto::session_clock::now(); }

// Bytes asked of the engine per read: large enough for a burst of replies, small next to max_frame_size.
constexpr std::size_t read_chunk = std::size_t{64} * 1024;

bool is_persistent(proto::watch_kind kind) {
  return kind == proto::watch_kind::persistent || kind == proto::watch_kind::persistent_recursive;
}

bool removal_matches(watcher_type type, proto::watch_kind kind) {
  switch (type) {
    case watcher_type::children:
      return kind == proto::watch_kind::child;
    case watcher_type::data:
      return kind == proto::watch_kind::data || kind == proto::watch_kind::exist;
    case watcher_type::any:
      return true;
  }
  return false;
}

event_type removal_event(proto::watch_kind kind) {
  switch (kind) {
    case proto::watch_kind::data:
    case proto::watch_kind::exist:
      return event_type::data_watch_removed;
    case proto::watch_kind::child:
      return event_type::child_watch_removed;
    case proto::watch_kind::persistent:
    case proto::watch_kind::persistent_recursive:
      return event_type::persistent_watch_removed;
  }
  return event_type::none;
}

std::string hex_session(std::int64_t id) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%" PRIx64, static_cast<std::uint64_t>(id));
  return buf;
}

void deliver_to_state(watch_state& state, const watch_event& event, bool post) {
  state.event = event;
  if (state.waiter) {
    auto waiter = std::move(state.waiter);
    waiter->deliver(event.error, event, post);
  }
}

// Memory for the one outstanding operation of a kind (the read, the write, the posted pump). Asio allocates each
// operation's state through the handler's associated allocator; its default, a per-thread cache of two blocks,
// thrashes between the read, write and post sizes and costs about three heap allocations per request. A block
// that is busy (never in steady state) falls back to the heap. Handlers using it capture the client_impl that owns
// it, and Asio frees an operation's memory before it destroys the handler, so the block outlives every use.
class handler_memory {
 public:
  handler_memory() = default;
  handler_memory(const handler_memory&) = delete;
  handler_memory& operator=(const handler_memory&) = delete;
  handler_memory(handler_memory&&) = delete;
  handler_memory& operator=(handler_memory&&) = delete;
  ~handler_memory() = default;

  void* allocate(std::size_t size) {
    if (!in_use_ && size <= sizeof(storage_)) {
      in_use_ = true;
      return storage_.data();
    }
    return ::operator new(size);
  }
  void deallocate(void* p) noexcept {
    if (p == storage_.data()) {
      in_use_ = false;
    } else {
      ::operator delete(p);
    }
  }

 private:
  alignas(std::max_align_t) std::array<unsigned char, 512> storage_{};
  bool in_use_ = false;
};

template <class T>
class handler_allocator {
 public:
  using value_type = T;
  explicit handler_allocator(handler_memory& memory) noexcept : memory_(&memory) {}
  template <class U>
  handler_allocator(const handler_allocator<U>& other) noexcept  // NOLINT(google-explicit-constructor): rebinding
      : memory_(other.memory()) {}
  T* allocate(std::size_t n) { return static_cast<T*>(memory_->allocate(sizeof(T) * n)); }
  void deallocate(T* p, std::size_t /*n*/) noexcept { memory_->deallocate(p); }
  [[nodiscard]] handler_memory* memory() const noexcept { return memory_; }
  template <class U>
  bool operator==(const handler_allocator<U>& other) const noexcept {
    return memory_ == other.memory();
  }

 private:
  handler_memory* memory_;
};

// A handler whose associated allocator takes its memory from a handler_memory.
template <class Handler>
struct with_memory {
  using allocator_type = handler_allocator<char>;
  handler_memory* memory;
  Handler handler;

  [[nodiscard]] allocator_type get_allocator() const noexcept { return allocator_type(*memory); }
  template <class... Args>
  void operator()(Args&&... args) {
    handler(std::forward<Args>(args)...);
  }
};
template <class Handler>
with_memory<Handler> using_memory(handler_memory& memory, Handler handler) {
  return with_memory<Handler>{&memory, std::move(handler)};
}

// Pending operations by request id. The engine assigns ids in increasing order and replies complete them mostly in
// that order, so a vector kept in id order (binary search, the completed prefix dropped lazily) finds them at once
// and, unlike a node-based map, allocates nothing per request once it has grown.
class pending_ops {
 public:
  void add(proto::request_id id, std::unique_ptr<pending_op> op) { entries_.emplace_back(id, std::move(op)); }

  // The operation of `id`, removed from the table; null if there is none.
  std::unique_ptr<pending_op> take(proto::request_id id) {
    const auto first = entries_.begin() + static_cast<std::ptrdiff_t>(head_);
    const auto it = std::lower_bound(first, entries_.end(), id,
                                     [](const entry& e, proto::request_id value) { return e.first < value; });
    if (it == entries_.end() || it->first != id || !it->second) return nullptr;
    auto op = std::move(it->second);
    while (head_ < entries_.size() && !entries_[head_].second) ++head_;
    if (head_ == entries_.size()) {
      entries_.clear();
      head_ = 0;
    } else if (head_ >= compact_after && head_ * 2 >= entries_.size()) {
      entries_.erase(entries_.begin(), entries_.begin() + static_cast<std::ptrdiff_t>(head_));
      head_ = 0;
    }
    return op;
  }

  // Every pending operation, in id order; the table is left empty.
  std::vector<std::unique_ptr<pending_op>> take_all() {
    std::vector<std::unique_ptr<pending_op>> all;
    for (auto& [id, op] : entries_) {
      if (op) all.push_back(std::move(op));
    }
    entries_.clear();
    head_ = 0;
    return all;
  }

 private:
  using entry = std::pair<proto::request_id, std::unique_ptr<pending_op>>;
  static constexpr std::size_t compact_after = 64;
  std::vector<entry> entries_;
  std::size_t head_ = 0;  // entries before it are completed
};

}  // namespace

struct watcher_entry {
  proto::watch_kind kind = proto::watch_kind::data;
  std::string path;
  watch_callback callback;
  std::shared_ptr<watch_state> state;
};

class client_impl : public std::enable_shared_from_this<client_impl> {
 public:
  client_impl(asio::any_io_executor executor, client_options options, connect_string servers)
      : executor_(std::move(executor)),
        options_(std::move(options)),
        servers_(std::move(servers)),
        engine_(make_config(options_, servers_)),
        socket_(executor_),
        resolver_(executor_),
        timer_(executor_) {}

  client_impl(const client_impl&) = delete;
  client_impl& operator=(const client_impl&) = delete;
  client_impl(client_impl&&) = delete;
  client_impl& operator=(client_impl&&) = delete;
  ~client_impl() = default;

  // --- called by the adapters (on the client's executor) ---

  proto::request_id start_request(proto::op_code op, proto::request_body body, std::optional<watch_registration> watch,
                                  std::unique_ptr<pending_op> op_state) {
    ensure_started();
    proto::watcher_id watcher = 0;
    if (watch) {
      watcher = next_watcher_++;
      watchers_.emplace(watcher, watcher_entry{watch->kind, std::move(watch->path), std::move(watch->callback),
                                               std::move(watch->state)});
    }
    const auto id = engine_.submit(now(), op, std::move(body), watcher);
    ops_.add(id, std::move(op_state));
    if (watcher != 0) request_watchers_.emplace(id, watcher);
    schedule_pump();
    return id;
  }

  proto::request_id start_remove_watches(std::string path, watcher_type type, std::unique_ptr<pending_op> op_state) {
    const auto id = start_request(proto::op_code::remove_watches, proto::remove_watches_request{path, type},
                                  std::nullopt, std::move(op_state));
    removals_.emplace(id, removal{std::move(path), type});
    return id;
  }

  proto::request_id start_add_auth(std::string scheme, std::string credentials, std::unique_ptr<pending_op> op_state) {
    ensure_started();
    const auto id = engine_.add_auth(now(), std::move(scheme), std::move(credentials));
    ops_.add(id, std::move(op_state));
    schedule_pump();
    return id;
  }

  void cancel(proto::request_id id) {
    if (shut_down_) return;
    if (engine_.cancel(id)) log(log_level::debug, [&] { return "request " + std::to_string(id) + " cancelled"; });
    schedule_pump();
  }

  std::uint64_t start_wait(wait_kind kind, std::unique_ptr<pending_op> op_state) {
    const std::uint64_t id = next_waiter_++;
    waiter w{kind, std::move(op_state), nullptr};
    if (kind == wait_kind::new_session) {
      const auto state = engine_.state();
      if (state == session_state::expired || state == session_state::auth_failed) {
        log(log_level::info, [] { return std::string("starting a new session"); });
        engine_.new_session(now());
      }
    }
    if (kind == wait_kind::connect || kind == wait_kind::new_session) {
      ensure_started();
      auto timeout = options_.connect_timeout.count() > 0 ? options_.connect_timeout : options_.session_timeout;
      w.timer = std::make_unique<asio::steady_timer>(executor_, timeout);
      w.timer->async_wait([self = shared_from_this(), id](const std::error_code& ec) {
        if (ec || self->shut_down_) return;
        self->expire_waiter(id);
      });
    } else {
      const auto state = engine_.state();
      if (state != session_state::closed && state != session_state::expired && state != session_state::auth_failed) {
        log(log_level::info, [] { return std::string("closing the session"); });
        engine_.close(now());
      }
    }
    waiters_.emplace(id, std::move(w));
    schedule_pump();
    return id;
  }

  void cancel_wait(std::uint64_t id) {
    auto it = waiters_.find(id);
    if (it == waiters_.end()) return;
    auto op = std::move(it->second.op);
    if (it->second.timer) it->second.timer->cancel();
    waiters_.erase(it);
    op->fail(proto::client_error::cancelled, true);
  }

  // The client object is going away: fail everything, drop the connection.
  void shutdown() noexcept {
    if (shut_down_) return;
    shut_down_ = true;
    listener_ = nullptr;
    try {
      // Observers learn that the client is gone before anything else (they must not call it from now on).
      auto observers = std::move(observers_);
      observers_.clear();
      for (auto& [id, observer] : observers) {
        observer(state_event{engine_.state(), session_state::closed, proto::client_error::closed});
      }
      close_connection();
      timer_.cancel();
      auto waiters = std::move(waiters_);
      for (auto& [id, w] : waiters) {
        if (w.timer) w.timer->cancel();
        w.op->fail(proto::client_error::closed, true);
      }
      for (auto& op : ops_.take_all()) op->fail(proto::client_error::closed, true);
      auto watchers = std::move(watchers_);
      for (auto& [id, w] : watchers) {
        watch_event event{event_type::none, keeper_state::closed, w.path, proto::client_error::closed};
        if (w.callback) {
          asio::post(executor_, [callback = std::move(w.callback), event] { callback(event); });
        } else if (w.state) {
          deliver_to_state(*w.state, event, true);
        }
      }
    } catch (...) {  // NOLINT(bugprone-empty-catch): nothing sensible to do in a destructor
    }
  }

  // --- observers ---
  [[nodiscard]] const asio::any_io_executor& executor() const noexcept { return executor_; }
  [[nodiscard]] const proto::session& engine() const noexcept { return engine_; }
  [[nodiscard]] const connect_string& servers() const noexcept { return servers_; }
  void set_listener(state_listener listener) { listener_ = std::move(listener); }
  std::uint64_t add_observer(state_listener observer) {
    const std::uint64_t id = next_observer_++;
    observers_.emplace(id, std::move(observer));
    return id;
  }
  void remove_observer(std::uint64_t id) noexcept { observers_.erase(id); }

 private:
  struct waiter {
    wait_kind kind = wait_kind::connect;
    std::unique_ptr<pending_op> op;
    std::unique_ptr<asio::steady_timer> timer;
  };
  struct removal {
    std::string path;
    watcher_type type = watcher_type::any;
  };

  static proto::session_config make_config(const client_options& options, const connect_string& servers) {
    proto::session_config config;
    config.host_count = servers.hosts.size();
    config.chroot = servers.chroot;
    config.session_timeout = options.session_timeout;
    config.connect_timeout = options.host_connect_timeout;
    config.can_be_read_only = options.can_be_read_only;
    config.shuffle_hosts = options.shuffle_hosts;
    config.seed = options.seed;
    config.max_frame_size = options.max_frame_size;
    return config;
  }

  template <class MakeMessage>
  void log(log_level level, MakeMessage&& make) {
    if (options_.logger) options_.logger(level, make());
  }

  void ensure_started() {
    if (started_) return;
    started_ = true;
    log(log_level::debug, [&] {
      std::string hosts;
      for (const auto& h : servers_.hosts) hosts += (hosts.empty() ? "" : ",") + to_string(h);
      return "starting a session with " + hosts + (servers_.chroot.empty() ? "" : " chroot " + servers_.chroot);
    });
    engine_.start(now());
    for (const auto& c : options_.auth) engine_.add_auth(now(), c.scheme, c.credentials);
  }

  void schedule_pump() {
    if (shut_down_) return;
    if (in_pump_) {
      pump_again_ = true;
      return;
    }
    if (pump_scheduled_) return;
    pump_scheduled_ = true;
    asio::post(executor_, using_memory(pump_memory_, [self = shared_from_this()] {
                 self->pump_scheduled_ = false;
                 self->pump();
               }));
  }

  // Acts on everything the engine asks for, until it asks for nothing more.
  void pump() {
    if (shut_down_) return;
    if (in_pump_) {
      pump_again_ = true;
      return;
    }
    const auto self = shared_from_this();  // a handler may destroy the client
    in_pump_ = true;
    do {
      pump_again_ = false;
      if (engine_.take_close()) {
        log(log_level::debug, [] { return std::string("closing the connection"); });
        close_connection();
      }
      if (auto host = engine_.take_connect()) open_connection(*host);
      if (conn_open_ && !writing_) {
        if (auto out = engine_.take_output()) start_write(*out);
      }
      while (!shut_down_) {
        auto d = engine_.take_delivery();
        if (!d) break;
        deliver(std::move(*d));
      }
      if (shut_down_) break;
      resolve_waiters(engine_.state());
      arm_timer();
    } while (pump_again_ && !shut_down_);
    in_pump_ = false;
  }

  void deliver(proto::delivery&& d) {
    if (auto* c = std::get_if<proto::completion>(&d)) {
      on_completion(std::move(*c));
    } else if (auto* w = std::get_if<proto::watch_delivery>(&d)) {
      on_watch(std::move(*w));
    } else if (auto* s = std::get_if<proto::state_change>(&d)) {
      on_state(*s);
    }
  }

  void on_completion(proto::completion&& c) {
    if (auto rw = request_watchers_.find(c.id); rw != request_watchers_.end()) {
      const bool registered = !c.error || (c.op == proto::op_code::exists && c.error == proto::server_error::no_node);
      if (!registered) {
        engine_.forget_watcher(rw->second);
        watchers_.erase(rw->second);
      }
      request_watchers_.erase(rw);
    }
    if (auto rm = removals_.find(c.id); rm != removals_.end()) {
      const removal r = std::move(rm->second);
      removals_.erase(rm);
      if (!c.error) forget_watchers(r.path, r.type);
    }
    auto op = ops_.take(c.id);
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

  void forget_watchers(const std::string& path, watcher_type type) {
    std::vector<watcher_entry> removed;
    for (auto it = watchers_.begin(); it != watchers_.end();) {
      if (it->second.path == path && removal_matches(type, it->second.kind)) {
        engine_.forget_watcher(it->first);
        removed.push_back(std::move(it->second));
        it = watchers_.erase(it);
      } else {
        ++it;
      }
    }
    for (auto& w : removed) {
      const watch_event event{removal_event(w.kind), keeper_state::sync_connected, w.path, {}};
      notify(w, event, false);
      if (shut_down_) return;
    }
  }

  void on_watch(proto::watch_delivery&& d) {
    auto it = watchers_.find(d.watcher);
    if (it == watchers_.end()) return;
    const watch_event event{d.event.type, d.event.state, std::move(d.event.path), d.error};
    const bool final = d.error || !is_persistent(it->second.kind) || event.type == event_type::persistent_watch_removed;
    if (final) {
      watcher_entry entry = std::move(it->second);
      watchers_.erase(it);
      notify(entry, event, false);
    } else {
      watcher_entry copy = it->second;  // the callback may remove the watcher
      notify(copy, event, false);
    }
  }

  static void notify(watcher_entry& w, const watch_event& event, bool post) {
    if (w.callback) {
      w.callback(event);
    } else if (w.state) {
      deliver_to_state(*w.state, event, post);
    }
  }

  void on_state(const proto::state_change& s) {
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
    if (listener_) {
      const state_listener listener = listener_;  // it may replace itself
      listener(state_event{s.from, s.to, s.reason});
      if (shut_down_) return;
    }
    if (!observers_.empty()) {
      const auto observers = observers_;  // they may add or remove observers
      for (const auto& [id, observer] : observers) {
        if (!observers_.contains(id)) continue;  // removed by an earlier one
        observer(state_event{s.from, s.to, s.reason});
        if (shut_down_) return;
      }
    }
    resolve_waiters(s.to);
  }

  void resolve_waiters(session_state state) {
    const bool ended =
        state == session_state::closed || state == session_state::expired || state == session_state::auth_failed;
    // Collected first: completing one may run user code that starts or cancels other waits.
    std::vector<std::pair<std::unique_ptr<pending_op>, std::error_code>> done;
    for (auto it = waiters_.begin(); it != waiters_.end();) {
      std::optional<std::error_code> result;
      if (it->second.kind != wait_kind::close) {
        if (state == session_state::connected || state == session_state::connected_read_only) {
          result = std::error_code{};
        } else if (state == session_state::expired) {
          result = make_error_code(proto::client_error::session_expired);
        } else if (state == session_state::auth_failed) {
          result = make_error_code(proto::server_error::auth_failed);
        } else if (state == session_state::closed) {
          result = make_error_code(proto::client_error::closed);
        }
      } else if (ended) {
        result = std::error_code{};
      }
      if (!result) {
        ++it;
        continue;
      }
      if (it->second.timer) it->second.timer->cancel();
      done.emplace_back(std::move(it->second.op), *result);
      it = waiters_.erase(it);
    }
    for (auto& [op, ec] : done) op->fail(ec, false);
  }

  void expire_waiter(std::uint64_t id) {
    auto it = waiters_.find(id);
    if (it == waiters_.end()) return;
    auto op = std::move(it->second.op);
    waiters_.erase(it);
    log(log_level::error, [&] {
      return "no session within the connect timeout (state " + std::string(proto::session_state_name(engine_.state())) +
             ")";
    });
    op->fail(client_errc::connect_timeout, false);
  }

  // --- the connection ---

  [[nodiscard]] bool stale(std::uint64_t generation) const noexcept {
    return shut_down_ || generation != connection_generation_;
  }

  void close_connection() {
    ++connection_generation_;
    conn_open_ = false;
    reading_ = false;
    writing_ = false;
    resolver_.cancel();
    if (socket_.is_open()) {
      std::error_code ignored;
      socket_.close(ignored);
    }
  }

  void open_connection(std::size_t index) {
    close_connection();
    const auto generation = connection_generation_;
    if (index >= servers_.hosts.size()) {
      engine_.connect_failed(now(), proto::client_error::invalid_argument);
      schedule_pump();
      return;
    }
    const host_port& host = servers_.hosts[index];
    log(log_level::debug, [&] { return "connecting to " + to_string(host); });
    std::error_code ec;
    const auto address = asio::ip::make_address(host.host, ec);
    if (!ec) {  // numeric address: no resolver
      socket_.async_connect(tcp::endpoint(address, host.port),
                            [self = shared_from_this(), generation](const std::error_code& error) {
                              self->on_connected(generation, error);
                            });
      return;
    }
    resolver_.async_resolve(
        host.host, std::to_string(host.port),
        [self = shared_from_this(), generation](const std::error_code& error,
                                                const tcp::resolver::results_type& found) {
          if (self->stale(generation)) return;
          if (error) {
            self->on_connected(generation, error);
            return;
          }
          asio::async_connect(self->socket_, found,
                              [self, generation](const std::error_code& connect_error, const tcp::endpoint& /*ep*/) {
                                self->on_connected(generation, connect_error);
                              });
        });
  }

  void on_connected(std::uint64_t generation, const std::error_code& error) {
    if (stale(generation)) return;
    if (error) {
      log(log_level::warning, [&] { return "connect failed: " + error.message(); });
      close_connection();
      engine_.connect_failed(now(), error);
      pump();
      return;
    }
    std::error_code ignored;
    socket_.set_option(tcp::no_delay(true), ignored);
    conn_open_ = true;
    engine_.connected(now());
    start_read();
    pump();
  }

  void start_read() {
    const auto generation = connection_generation_;
    const std::span<char> space = engine_.prepare_read(read_chunk);
    reading_ = true;
    socket_.async_read_some(asio::buffer(space.data(), space.size()),
                            using_memory(read_memory_, [self = shared_from_this(), generation](
                                                           const std::error_code& error, std::size_t n) {
                              if (self->stale(generation)) return;
                              self->reading_ = false;
                              if (error) {
                                self->connection_error(error);
                                return;
                              }
                              self->engine_.commit_read(now(), n);
                              self->pump();
                              if (!self->stale(generation) && self->conn_open_ && !self->reading_) self->start_read();
                            }));
  }

  void start_write(std::string_view bytes) {
    const auto generation = connection_generation_;
    writing_ = true;
    asio::async_write(socket_, asio::buffer(bytes.data(), bytes.size()),
                      using_memory(write_memory_, [self = shared_from_this(), generation](const std::error_code& error,
                                                                                          std::size_t /*n*/) {
                        if (self->stale(generation)) return;
                        self->writing_ = false;
                        if (error) {
                          self->connection_error(error);
                          return;
                        }
                        self->engine_.written(now());
                        self->pump();
                      }));
  }

  void connection_error(const std::error_code& error) {
    log(log_level::warning, [&] {
      return error == asio::error::eof ? std::string("the server closed the connection")
                                       : "connection error: " + error.message();
    });
    close_connection();
    engine_.disconnected(now(), error);
    pump();
  }

  void arm_timer() {
    const proto::time_point when = engine_.next_wakeup();
    if (when == timer_expiry_) return;
    // Every request and reply moves the engine's wakeup (ping and read timeout) a little later. Re-arming for each
    // would cost a cancelled wait and a timerfd update per request; a timer armed for an earlier time is kept
    // instead: it fires, the engine's tick finds nothing due yet (ticking early is allowed), and it is re-armed.
    if (timer_expiry_ != proto::time_point::max() && when > timer_expiry_) return;
    timer_expiry_ = when;
    const auto generation = ++timer_generation_;
    if (when == proto::time_point::max()) {
      timer_.cancel();
      return;
    }
    timer_.expires_at(when);
    timer_.async_wait([self = shared_from_this(), generation](const std::error_code& error) {
      if (self->shut_down_ || generation != self->timer_generation_) return;
      (void)error;  // a stale wait was filtered by the generation; anything else still means "time to tick"
      self->timer_expiry_ = proto::time_point::max();
      self->engine_.tick(now());
      self->pump();
    });
  }

  // Declared first so that they outlive the socket and timer whose operations use them.
  handler_memory read_memory_;
  handler_memory write_memory_;
  handler_memory pump_memory_;
  asio::any_io_executor executor_;
  client_options options_;
  connect_string servers_;
  proto::session engine_;
  tcp::socket socket_;
  tcp::resolver resolver_;
  asio::steady_timer timer_;
  proto::time_point timer_expiry_ = proto::time_point::max();
  std::uint64_t timer_generation_ = 0;
  std::uint64_t connection_generation_ = 0;
  bool conn_open_ = false;
  bool reading_ = false;
  bool writing_ = false;
  bool started_ = false;
  bool shut_down_ = false;
  bool in_pump_ = false;
  bool pump_again_ = false;
  bool pump_scheduled_ = false;
  pending_ops ops_;
  std::unordered_map<proto::request_id, proto::watcher_id> request_watchers_;
  std::unordered_map<proto::request_id, removal> removals_;
  std::map<proto::watcher_id, watcher_entry> watchers_;
  proto::watcher_id next_watcher_ = 1;
  std::map<std::uint64_t, waiter> waiters_;
  std::uint64_t next_waiter_ = 1;
  state_listener listener_;
  std::map<std::uint64_t, state_listener> observers_;
  std::uint64_t next_observer_ = 1;
};

// --- the boundary functions of core.hpp and client.hpp ---

asio::any_io_executor executor_of(const client_impl& impl) noexcept { return impl.executor(); }

proto::request_id start_request(client_impl& impl, proto::op_code op, proto::request_body body,
                                std::optional<watch_registration> watch, std::unique_ptr<pending_op> op_state) {
  return impl.start_request(op, std::move(body), std::move(watch), std::move(op_state));
}

proto::request_id start_remove_watches(client_impl& impl, std::string path, watcher_type type,
                                       std::unique_ptr<pending_op> op_state) {
  return impl.start_remove_watches(std::move(path), type, std::move(op_state));
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
void set_state_listener(client_impl& impl, state_listener listener) { impl.set_listener(std::move(listener)); }
std::uint64_t add_state_observer(client_impl& impl, state_listener observer) {
  return impl.add_observer(std::move(observer));
}
void remove_state_observer(client_impl& impl, std::uint64_t id) noexcept { impl.remove_observer(id); }
std::size_t pending_requests_of(const client_impl& impl) noexcept { return impl.engine().pending_requests(); }
std::optional<std::chrono::steady_clock::time_point> last_answered_send_time_of(const client_impl& impl) noexcept {
  return impl.engine().last_answered_send_time();
}
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
