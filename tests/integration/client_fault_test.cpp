// zkwire::client under server faults, against real ZooKeeper 3.8 servers:
//  - session expiry: a server paused for longer than the session timeout, or a client that stops talking;
//  - kill -9 of the ensemble member the client is connected to: the same session continues on another member,
//    its ephemeral node stays, requests in flight fail with connection loss, new requests succeed.
// Short session timeouts keep the runtimes modest.

#include <gtest/gtest.h>

#include <algorithm>
#include <asio/io_context.hpp>
#include <asio/use_awaitable.hpp>
#include <asio/use_future.hpp>
#include <atomic>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "client_test_support.hpp"
#include "support/zk_test.hpp"
#include "zkwire/client/client.hpp"

namespace zkwire {
namespace {

using asio::use_awaitable;
using test::tuple_awaitable;
using namespace std::chrono_literals;

// Records session states from the loop thread for the test thread.
class state_log {
 public:
  void add(session_state s) {
    const std::lock_guard lock(mutex_);
    states_.push_back(s);
  }
  [[nodiscard]] bool contains(session_state s) const {
    const std::lock_guard lock(mutex_);
    return std::find(states_.begin(), states_.end(), s) != states_.end();
  }
  bool wait_for(session_state s, std::chrono::milliseconds timeout) const {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (!contains(s)) {
      if (std::chrono::steady_clock::now() > deadline) return false;
      std::this_thread::sleep_for(10ms);
    }
    return true;
  }
  [[nodiscard]] std::string text() const {
    const std::lock_guard lock(mutex_);
    std::string t;
    for (auto s : states_) t += std::string(proto::session_state_name(s)) + " ";
    return t;
  }

 private:
  mutable std::mutex mutex_;
  std::vector<session_state> states_;
};

class client_expiry_test : public test::standalone_test {};

// The client's loop is not run while the server is paused and for a moment after it resumes. Otherwise the
// race is real ZooKeeper behaviour, not the client's: a reconnect attempt made during the pause leaves a
// ConnectRequest in the paused server's socket, and if the server reads it before its session tracker runs, the
// session is revived (seen as connecting, connected, suspended, lost, connected).
TEST_F(client_expiry_test, PausingTheServerLongerThanTheSessionTimeoutExpiresTheSession) {
  asio::io_context io;
  std::vector<session_state> states;
  int watch_final = 0;
  auto c = std::make_unique<client>(io.get_executor(), test::client_options_for(connect_string(), 2000ms));
  c->set_state_listener([&](const state_event& e) { states.push_back(e.to); });
  test::run_co(io, [&]() -> asio::awaitable<void> {
    co_await c->async_create(root(), "", use_awaitable);
    create_options ephemeral;
    ephemeral.mode = create_mode::ephemeral;
    co_await c->async_create(root() + "/e", "", ephemeral, use_awaitable);
    co_await c->async_get(
        root(),
        [&](const watch_event& e) {
          if (e.error) ++watch_final;
        },
        use_awaitable);
  }());

  cluster().pause(0);
  std::this_thread::sleep_for(4s);  // twice the session timeout
  cluster().resume(0);
  std::this_thread::sleep_for(1s);  // the server's session tracker expires the session and drops the connection

  const auto start = std::chrono::steady_clock::now();
  test::run_co(io, [&]() -> asio::awaitable<void> {
    auto [connect_ec] = co_await c->async_connect(tuple_awaitable);
    EXPECT_EQ(connect_ec, make_error_code(client_error::session_expired));
  }());
  EXPECT_LT(std::chrono::steady_clock::now() - start, 5s);
  EXPECT_EQ(c->state(), session_state::expired);
  EXPECT_NE(std::find(states.begin(), states.end(), session_state::suspended), states.end());
  EXPECT_EQ(states.back(), session_state::expired);

  // Later calls fail fast, and every watch got its final delivery.
  test::run_co(io, [&]() -> asio::awaitable<void> {
    const auto before = std::chrono::steady_clock::now();
    auto [ec, unused] = co_await c->async_get(root(), tuple_awaitable);
    EXPECT_TRUE(is_session_fatal(ec)) << ec.message();
    EXPECT_LT(std::chrono::steady_clock::now() - before, 100ms);
  }());
  EXPECT_EQ(watch_final, 1);

  // The same client starts a new session; the server removed the ephemeral node with the old one.
  const auto old_session = c->session_id();
  test::run_co(io, [&]() -> asio::awaitable<void> {
    co_await c->async_new_session(use_awaitable);
    EXPECT_EQ(c->state(), session_state::connected);
    EXPECT_NE(c->session_id(), old_session);
    EXPECT_NE(c->session_id(), 0);
    EXPECT_FALSE((co_await c->async_exists(root() + "/e", use_awaitable)).has_value());
  }());
  EXPECT_EQ(states.back(), session_state::connected);
}

// While no server answers, the client moves from suspended to lost once the session timeout (plus the server's
// tick) has passed since it last wrote on an established connection: by then the server cannot have kept the
// session. What happens after the server comes back is the server's business (a paused server may still revive
// the session from a handshake queued in its socket), so only the timing of `lost` is asserted.
TEST_F(client_expiry_test, ANonAnsweringServerMakesTheSessionLostAfterTheTimeout) {
  test::loop_thread loop;
  state_log states;
  std::unique_ptr<client> c;
  constexpr auto timeout = 2000ms;
  loop.on_loop([&] {
    c = std::make_unique<client>(loop.io().get_executor(), test::client_options_for(connect_string(), timeout));
    c->set_state_listener([&](const state_event& e) { states.add(e.to); });
  });
  loop.on_loop([&] { return c->async_connect(asio::use_future); }).get();
  const auto last_answered = loop.on_loop([&] { return c->last_answered_send_time(); });
  ASSERT_TRUE(last_answered.has_value());

  cluster().pause(0);
  ASSERT_TRUE(states.wait_for(session_state::suspended, timeout + 2s)) << states.text();
  ASSERT_TRUE(states.wait_for(session_state::lost, timeout + 4s)) << states.text();
  const auto lost_after = std::chrono::steady_clock::now() - *last_answered;
  const bool expired_while_paused = states.contains(session_state::expired);
  cluster().resume(0);  // the server may now expire the session at once: only what came before is asserted
  // Pings keep the last write within T/3 of the last answer; lost comes T + 1 s after the last write.
  EXPECT_GE(lost_after, timeout);
  EXPECT_LT(lost_after, timeout + timeout / 3 + 3s);
  EXPECT_FALSE(expired_while_paused) << "expiry is only known from a server";
  loop.on_loop([&] { c.reset(); });
}

TEST_F(client_expiry_test, AClientThatStopsTalkingIsExpired) {
  asio::io_context io;
  client c(io.get_executor(), test::client_options_for(connect_string(), 1000ms));
  std::vector<session_state> states;
  c.set_state_listener([&](const state_event& e) { states.push_back(e.to); });
  test::run_co(io, [&]() -> asio::awaitable<void> { co_await c.async_connect(use_awaitable); }());
  // Nobody runs the loop: no pings, so the server expires the session.
  std::this_thread::sleep_for(3s);
  test::run_co(io, [&]() -> asio::awaitable<void> {
    auto [ec, unused] = co_await c.async_get("/", tuple_awaitable);
    // Whatever was in flight when the client woke up, the session ends expired.
    (void)ec;
    auto [connect_ec] = co_await c.async_connect(tuple_awaitable);
    EXPECT_EQ(connect_ec, make_error_code(client_error::session_expired));
  }());
  EXPECT_EQ(c.state(), session_state::expired);
  EXPECT_NE(std::find(states.begin(), states.end(), session_state::expired), states.end());
}

class client_ensemble_test : public test::ensemble_test {};

TEST_F(client_ensemble_test, KillingTheConnectedMemberMovesTheSession) {
  test::loop_thread loop;
  state_log states;
  std::unique_ptr<client> c;
  loop.on_loop([&] {
    c = std::make_unique<client>(loop.io().get_executor(), test::client_options_for(connect_string(), 8000ms));
    c->set_state_listener([&](const state_event& e) { states.add(e.to); });
  });
  loop.on_loop([&] { return c->async_create(root(), "", asio::use_future); }).get();
  create_options ephemeral;
  ephemeral.mode = create_mode::ephemeral;
  const auto eph = loop.on_loop([&] { return c->async_create(root() + "/e", "", ephemeral, asio::use_future); }).get();
  const auto session = loop.on_loop([&] { return c->session_id(); });
  const auto host = loop.on_loop([&] { return c->connected_host(); });
  ASSERT_TRUE(host.has_value());
  std::size_t member = cluster().member_count();
  for (std::size_t i = 0; i < cluster().member_count(); ++i) {
    if (cluster().client_port(i) == host->port) member = i;
  }
  ASSERT_LT(member, cluster().member_count());

  // Put many requests in flight, then crash their server.
  constexpr int in_flight = 2000;
  std::atomic<int> completed{0};
  std::atomic<int> succeeded{0};
  std::atomic<int> lost{0};
  std::atomic<int> other{0};
  std::vector<std::atomic<int>> per_op(in_flight);
  loop.on_loop([&] {
    for (int i = 0; i < in_flight; ++i) {
      c->async_set(root(), std::to_string(i), any_version, [&, i](std::error_code ec, const stat&) {
        ++per_op[static_cast<std::size_t>(i)];
        ++completed;
        if (!ec) {
          ++succeeded;
        } else if (is_connection_loss(ec)) {
          ++lost;
        } else {
          ++other;
        }
      });
    }
  });
  cluster().kill9(member);

  ASSERT_TRUE(states.wait_for(session_state::suspended, 10s)) << states.text();
  loop.on_loop([&] { return c->async_connect(asio::use_future); }).get();
  EXPECT_EQ(loop.on_loop([&] { return c->session_id(); }), session);
  const auto new_host = loop.on_loop([&] { return c->connected_host(); });
  ASSERT_TRUE(new_host.has_value());
  EXPECT_NE(new_host->port, host->port);

  const auto deadline = std::chrono::steady_clock::now() + 10s;
  while (completed.load() < in_flight && std::chrono::steady_clock::now() < deadline) std::this_thread::sleep_for(10ms);
  EXPECT_EQ(completed.load(), in_flight);
  EXPECT_EQ(other.load(), 0);
  EXPECT_GT(lost.load(), 0) << "no request was in flight when the member died";
  for (const auto& n : per_op) EXPECT_EQ(n.load(), 1);

  // The ephemeral node is still ours, and new requests succeed.
  const auto st = loop.on_loop([&] { return c->async_exists(eph.path, asio::use_future); }).get();
  ASSERT_TRUE(st.has_value());
  EXPECT_EQ(st->ephemeral_owner, session);
  loop.on_loop([&] { return c->async_set(root(), "after", any_version, asio::use_future); }).get();
  EXPECT_EQ(loop.on_loop([&] { return c->async_get(root(), asio::use_future); }).get().data, "after");
  EXPECT_FALSE(states.contains(session_state::expired));
  loop.on_loop([&] { c.reset(); });
}

// Watches set on one member are re-armed on another after a failover, and changes made while the client was
// away arrive as catch-up events: the server compares SetWatches' relative zxid with each node's zxids.
TEST_F(client_ensemble_test, WatchesCatchUpAfterFailover) {
  const auto leader = cluster().leader_index();
  ASSERT_TRUE(leader.has_value());
  std::vector<std::size_t> followers;
  for (std::size_t i = 0; i < cluster().member_count(); ++i) {
    if (i != *leader) followers.push_back(i);
  }
  ASSERT_EQ(followers.size(), 2U);
  const auto member_address = [&](std::size_t i) { return "127.0.0.1:" + std::to_string(cluster().client_port(i)); };
  // The watcher starts on a follower, so stopping it keeps the quorum; the writer avoids that follower.
  auto watcher_options = test::client_options_for(
      member_address(followers[0]) + "," + member_address(followers[1]) + "," + member_address(*leader), 4000ms);
  watcher_options.shuffle_hosts = false;
  const auto writer_options =
      test::client_options_for(member_address(followers[1]) + "," + member_address(*leader), 8000ms);

  test::loop_thread loop;
  std::unique_ptr<client> watcher;
  std::unique_ptr<client> writer;
  std::mutex mutex;
  std::vector<std::string> events;  // "type path"
  const auto record = [&](const watch_event& e) {
    const std::lock_guard lock(mutex);
    events.push_back(std::string(proto::event_type_name(e.type)) + " " + e.path);
  };
  loop.on_loop([&] {
    watcher = std::make_unique<client>(loop.io().get_executor(), watcher_options);
    writer = std::make_unique<client>(loop.io().get_executor(), writer_options);
  });
  const std::string data_node = root() + "/data";
  const std::string absent_node = root() + "/absent";
  loop.on_loop([&] { return writer->async_create(root(), "", asio::use_future); }).get();
  loop.on_loop([&] { return writer->async_create(data_node, "v1", asio::use_future); }).get();
  loop.on_loop([&] { return watcher->async_sync(root(), asio::use_future); }).get();
  const auto session = loop.on_loop([&] { return watcher->session_id(); });
  ASSERT_EQ(loop.on_loop([&] { return watcher->connected_host(); })->port, cluster().client_port(followers[0]));
  loop.on_loop([&] { return watcher->async_get(data_node, record, asio::use_future); }).get();
  loop.on_loop([&] { return watcher->async_exists(absent_node, record, asio::use_future); }).get();
  loop.on_loop([&] { return watcher->async_get_children(root(), record, asio::use_future); }).get();

  // The watcher's member stops answering; the others change all three nodes; then the member dies.
  cluster().pause(followers[0]);
  loop.on_loop([&] { return writer->async_set(data_node, "v2", any_version, asio::use_future); }).get();
  loop.on_loop([&] { return writer->async_create(absent_node, "", asio::use_future); }).get();
  cluster().kill9(followers[0]);

  const auto deadline = std::chrono::steady_clock::now() + 10s;
  for (;;) {
    {
      const std::lock_guard lock(mutex);
      if (events.size() >= 3 || std::chrono::steady_clock::now() > deadline) break;
    }
    std::this_thread::sleep_for(20ms);
  }
  std::this_thread::sleep_for(200ms);  // a duplicate delivery would show up now
  {
    const std::lock_guard lock(mutex);
    std::sort(events.begin(), events.end());
    EXPECT_EQ(events, (std::vector<std::string>{"NodeChildrenChanged " + root(), "NodeCreated " + absent_node,
                                                "NodeDataChanged " + data_node}));
  }
  EXPECT_EQ(loop.on_loop([&] { return watcher->session_id(); }), session);
  EXPECT_NE(loop.on_loop([&] { return watcher->connected_host(); })->port, cluster().client_port(followers[0]));
  loop.on_loop([&] {
    watcher.reset();
    writer.reset();
  });
}

}  // namespace
}  // namespace zkwire
