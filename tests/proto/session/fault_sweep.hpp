#pragma once
// Every scripted scenario, with a fault before every step: the harness records the inputs a test gives the engine
// (recording_session), and when the test ends it replays them on fresh engines, injecting a connection loss, and in
// a second replay a connect failure, before each step in turn (a script of thousands of steps at spread steps,
// sweep_faults). After each injection the engine must have:
//  - completed every request at most once, each completion the injection caused with connection_loss (closed if
//    the session was closing), and every request of a connected session (all written) with the loss;
//  - kept its accounting: pending_requests() is what was submitted and not completed;
//  - attempted a reconnect (asked the driver for a connection, at once or at its next wakeup) unless the session
//    had ended;
//  - and after a close, completed every request exactly once and kept none (no leak).
// The replay's driver reacts like the harness's (pump): output is written at once, deliveries are taken.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include "zkwire/proto/session/session.hpp"

namespace zkwire::proto::test {

// What a driver knows while replaying a script.
struct replay_driver {
  explicit replay_driver(const session_config& config) : s(config) {}

  session s;
  time_point now{};
  bool connect_pending = false;  // the engine asked for a connection, not yet answered
  bool connected = false;        // the connection is up and was not dropped or closed
  std::size_t connects = 0;
  std::set<request_id> submitted;
  std::map<request_id, int> completed;  // how often each request completed
  std::vector<completion> recent;       // completions since the last clear

  void pump() {
    for (;;) {
      bool progress = false;
      if (s.take_close()) {
        connect_pending = false;
        connected = false;
      }
      if (s.take_connect()) {
        ++connects;
        connect_pending = true;
        connected = false;
        progress = true;
      }
      if (s.take_output()) {
        s.written(now);
        progress = true;
      }
      while (auto d = s.take_delivery()) {
        if (auto* c = std::get_if<completion>(&*d)) {
          ++completed[c->id];
          recent.push_back(std::move(*c));
        }
      }
      if (!progress) break;
    }
  }
};

// One input a test gave the engine, at the time it gave it.
struct scripted_input {
  std::string what;
  time_point now;
  std::function<void(replay_driver&)> apply;
};

// A session that records its inputs for the fault sweep; the outputs and the accessors pass through.
class recording_session {
 public:
  explicit recording_session(session_config config) : config_(config), s_(std::move(config)) {}

  // --- inputs, recorded ---
  void start(time_point now) {
    record("start", now, [](replay_driver& d) { d.s.start(d.now); });
    s_.start(now);
  }
  void connected(time_point now) {
    record("connected", now, [](replay_driver& d) {
      d.connect_pending = false;
      d.connected = true;
      d.s.connected(d.now);
    });
    s_.connected(now);
  }
  void connect_failed(time_point now, std::error_code error) {
    record("connect_failed", now, [error](replay_driver& d) {
      d.connect_pending = false;
      d.s.connect_failed(d.now, error);
    });
    s_.connect_failed(now, error);
  }
  void received(time_point now, std::string_view bytes) {
    record("received " + std::to_string(bytes.size()) + " bytes", now,
           [b = std::string(bytes)](replay_driver& d) { d.s.received(d.now, b); });
    s_.received(now, bytes);
  }
  void disconnected(time_point now, std::error_code error) {
    record("disconnected", now, [error](replay_driver& d) {
      d.connected = false;
      d.s.disconnected(d.now, error);
    });
    s_.disconnected(now, error);
  }
  void tick(time_point now) {
    record("tick", now, [](replay_driver& d) { d.s.tick(d.now); });
    s_.tick(now);
  }
  request_id submit(time_point now, op_code op, request_body&& body, watcher_id watcher = 0,
                    time_point deadline = time_point::max(), bool use_chroot = true) {
    record("submit " + std::string(op_code_name(op)), now, [op, body, watcher, deadline, use_chroot](replay_driver& d) {
      request_body copy = body;
      d.submitted.insert(d.s.submit(d.now, op, std::move(copy), watcher, deadline, use_chroot));
    });
    return s_.submit(now, op, std::move(body), watcher, deadline, use_chroot);
  }
  request_id add_auth(time_point now, std::string scheme, std::string credentials) {
    record("add_auth", now,
           [scheme, credentials](replay_driver& d) { d.submitted.insert(d.s.add_auth(d.now, scheme, credentials)); });
    return s_.add_auth(now, std::move(scheme), std::move(credentials));
  }
  bool cancel(request_id id) {
    record("cancel", last_now_, [id](replay_driver& d) { d.s.cancel(id); });
    return s_.cancel(id);
  }
  void forget_watcher(watcher_id watcher) {
    record("forget_watcher", last_now_, [watcher](replay_driver& d) { d.s.forget_watcher(watcher); });
    s_.forget_watcher(watcher);
  }
  bool remove_local_watches(std::string_view path, watcher_type type, watcher_id only = 0) {
    record("remove_local_watches", last_now_,
           [p = std::string(path), type, only](replay_driver& d) { d.s.remove_local_watches(p, type, only); });
    return s_.remove_local_watches(path, type, only);
  }
  void close(time_point now) {
    record("close", now, [](replay_driver& d) { d.s.close(d.now); });
    s_.close(now);
  }
  void new_session(time_point now) {
    record("new_session", now, [](replay_driver& d) { d.s.new_session(d.now); });
    s_.new_session(now);
  }
  void switch_host(time_point now, std::size_t host, std::error_code reason) {
    record("switch_host", now, [host, reason](replay_driver& d) { d.s.switch_host(d.now, host, reason); });
    s_.switch_host(now, host, reason);
  }
  void update_hosts(std::size_t host_count, std::optional<std::size_t> current) {
    record("update_hosts", last_now_,
           [host_count, current](replay_driver& d) { d.s.update_hosts(host_count, current); });
    s_.update_hosts(host_count, current);
  }
  void written(time_point now) { s_.written(now); }  // the driver's reaction to take_output(): the replay pumps too

  // --- outputs and accessors ---
  std::optional<std::size_t> take_connect() { return s_.take_connect(); }
  bool take_close() { return s_.take_close(); }
  std::optional<std::string_view> take_output() { return s_.take_output(); }
  std::optional<delivery> take_delivery() { return s_.take_delivery(); }
  [[nodiscard]] time_point next_wakeup() const noexcept { return s_.next_wakeup(); }
  [[nodiscard]] session_state state() const noexcept { return s_.state(); }
  [[nodiscard]] std::int64_t session_id() const noexcept { return s_.session_id(); }
  [[nodiscard]] std::string_view session_password() const noexcept { return s_.session_password(); }
  [[nodiscard]] std::chrono::milliseconds negotiated_timeout() const noexcept { return s_.negotiated_timeout(); }
  [[nodiscard]] std::int64_t last_zxid_seen() const noexcept { return s_.last_zxid_seen(); }
  [[nodiscard]] std::optional<std::size_t> current_host() const noexcept { return s_.current_host(); }
  [[nodiscard]] std::optional<time_point> last_answered_send_time() const noexcept {
    return s_.last_answered_send_time();
  }
  [[nodiscard]] std::error_code session_error() const noexcept { return s_.session_error(); }
  [[nodiscard]] std::size_t pending_requests() const noexcept { return s_.pending_requests(); }
  [[nodiscard]] std::size_t retained_bytes() const noexcept { return s_.retained_bytes(); }
  [[nodiscard]] bool watcher_registered(watcher_id watcher) const { return s_.watcher_registered(watcher); }
  [[nodiscard]] bool watching(std::string_view path, watcher_type type, watcher_id watcher) const {
    return s_.watching(path, type, watcher);
  }

  [[nodiscard]] const session_config& config() const noexcept { return config_; }
  [[nodiscard]] const std::vector<scripted_input>& script() const noexcept { return script_; }

 private:
  void record(std::string what, time_point now, std::function<void(replay_driver&)> apply) {
    last_now_ = now;
    script_.push_back({std::move(what), now, std::move(apply)});
  }

  session_config config_;
  session s_;
  std::vector<scripted_input> script_;
  time_point last_now_{};
};

enum class injected_fault { connection_loss, connect_failure };

inline bool session_over(session_state st) {
  return st == session_state::expired || st == session_state::auth_failed || st == session_state::closed;
}

// Replays `script` with `fault` before step `at` (script.size(): after the last one) and checks the engine.
inline void replay_with_fault(const session_config& config, const std::vector<scripted_input>& script, std::size_t at,
                              injected_fault fault) {
  std::ostringstream where;
  where << (fault == injected_fault::connection_loss ? "connection loss" : "connect failure") << " before step " << at
        << " of " << script.size() << (at < script.size() ? " (" + script[at].what + ")" : std::string(" (the end)"));
  SCOPED_TRACE(where.str());
  replay_driver d(config);
  for (std::size_t i = 0; i < at; ++i) {
    d.now = script[i].now;
    script[i].apply(d);
    d.pump();
  }
  if (at < script.size()) d.now = script[at].now;
  const bool hits = fault == injected_fault::connection_loss ? d.connected : d.connect_pending;
  const bool was_closing_or_over = session_over(d.s.state());
  // Connected: every request went out at once (nothing waits in the queue), so the loss ends all of them.
  const bool was_connected =
      d.s.state() == session_state::connected || d.s.state() == session_state::connected_read_only;
  d.recent.clear();
  const std::size_t connects_before = d.connects;
  if (fault == injected_fault::connection_loss) {
    d.connected = false;
    d.s.disconnected(d.now, std::make_error_code(std::errc::connection_reset));
  } else {
    d.connect_pending = false;
    d.s.connect_failed(d.now, std::make_error_code(std::errc::connection_refused));
  }
  d.pump();

  for (const auto& c : d.recent) {
    EXPECT_TRUE(c.error == client_error::connection_loss || c.error == client_error::closed)
        << "request " << c.id << " completed with " << c.error.message();
  }
  for (const auto& [id, n] : d.completed) {
    EXPECT_EQ(n, 1) << "request " << id << " completed " << n << " times";
    EXPECT_TRUE(d.submitted.contains(id)) << "a completion for request " << id << ", never submitted";
  }
  EXPECT_EQ(d.s.pending_requests(), d.submitted.size() - d.completed.size());
  if (hits && fault == injected_fault::connection_loss && was_connected) {
    EXPECT_EQ(d.s.pending_requests(), 0U) << "a request written before the loss did not complete with it";
  }

  if (hits && !was_closing_or_over && !session_over(d.s.state())) {
    for (int wakeups = 0; wakeups < 10 && d.connects == connects_before && d.s.next_wakeup() != time_point::max();
         ++wakeups) {
      d.now = std::max(d.now, d.s.next_wakeup());
      d.s.tick(d.now);
      d.pump();
    }
    EXPECT_GT(d.connects, connects_before) << "no reconnect was attempted";
  }

  // No leak: once closed, every request completed exactly once and nothing is pending.
  d.s.close(d.now);
  d.pump();
  for (int wakeups = 0; wakeups < 50 && d.s.state() != session_state::closed; ++wakeups) {
    if (d.s.next_wakeup() == time_point::max()) break;
    d.now = std::max(d.now, d.s.next_wakeup());
    d.s.tick(d.now);
    d.pump();
  }
  EXPECT_EQ(d.s.state(), session_state::closed);
  EXPECT_EQ(d.s.pending_requests(), 0U);
  for (const request_id id : d.submitted) {
    EXPECT_EQ(d.completed.contains(id) ? d.completed.at(id) : 0, 1) << "request " << id;
  }
}

// The sweep over one recorded script: both faults before every step. Each replay costs the script's length, so a
// long script (a burst of a thousand requests, 2,000 steps) is swept at evenly spread steps, the first and the last
// included, about `step_budget` replayed steps in all; scripts up to 200 steps are swept at every step.
inline void sweep_faults(const session_config& config, const std::vector<scripted_input>& script,
                         std::size_t step_budget = 40'000) {
  const std::size_t points = script.size() + 1;
  const std::size_t max_points = std::max<std::size_t>(64, step_budget / std::max<std::size_t>(script.size(), 1));
  const std::size_t stride = points <= max_points ? 1 : (points + max_points - 1) / max_points;
  for (std::size_t at = 0; at < points; at += stride) {
    for (const auto fault : {injected_fault::connection_loss, injected_fault::connect_failure}) {
      replay_with_fault(config, script, at, fault);
      if (::testing::Test::HasFatalFailure()) return;
    }
  }
  if ((points - 1) % stride != 0) {
    replay_with_fault(config, script, points - 1, injected_fault::connection_loss);
    replay_with_fault(config, script, points - 1, injected_fault::connect_failure);
  }
}

}  // namespace zkwire::proto::test
