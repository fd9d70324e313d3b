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
#include "support/eventually.hpp"
#include "support/state_recorder.hpp"
#include "support/zk_test.hpp"
#include "zkwire/client/client.hpp"

namespace zkwire {
namespace {

using asio::use_awaitable;
using test::tuple_awaitable;
using namespace std::chrono_literals;

// True once `path` is gone as seen by a second client of the suite's servers: the server removes a session's
// ephemeral nodes when it expires the session, so this is the server-side sign of expiry.
bool node_gone(asio::io_context& io, client& observer, const std::string& path) {
  return test::run_co(io, [&]() -> asio::awaitable<bool> {
    co_return !(co_await observer.async_exists(path, use_awaitable)).has_value();
  }());
}

class client_expiry_test : public test::standalone_test {};

// The client's loop is not run while the server is paused and for a moment after it resumes. Otherwise the
// race is real ZooKeeper behaviour, not the client's: a reconnect attempt made during the pause leaves a
// ConnectRequest in the paused server's socket, and if the server reads it before its session tracker runs, the
// session is revived (seen as connecting, connected, suspended, lost, connected).
TEST_F(client_expiry_test, PausingTheServerLongerThanTheSessionTimeoutExpiresTheSession) {
  asio::io_context io;
  const auto states = test::state_recorder::make();
  int watch_final = 0;
  auto c = std::make_unique<client>(io.get_executor(), test::client_options_for(connect_string(), 2000ms));
  c->set_state_listener(states->listener());
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

  // The fault: the server stops for twice the session timeout (this sleep is the length of the fault, not a wait).
  cluster().pause(0);
  std::this_thread::sleep_for(4s);
  cluster().resume(0);
  // The server's session tracker expires the session (and removes its ephemeral node) once it runs again; a second
  // client, on a loop of its own, watches for that.
  {
    asio::io_context observer_io;
    client observer(observer_io.get_executor(), test::client_options_for(connect_string()));
    ASSERT_TRUE(test::eventually([&] { return node_gone(observer_io, observer, root() + "/e"); }, 30s,
                                 "the server expired the paused session"));
  }

  test::run_co(io, [&]() -> asio::awaitable<void> {
    auto [connect_ec] = co_await c->async_connect(tuple_awaitable);
    EXPECT_EQ(connect_ec, make_error_code(client_error::session_expired));
  }());
  EXPECT_EQ(c->state(), session_state::expired);
  EXPECT_TRUE(states->contains(session_state::suspended)) << states->text();
  EXPECT_EQ(states->last(), session_state::expired) << states->text();

  // Later calls fail without asking a server: with the server stopped again they still complete at once (a call
  // that went to the server would wait for run_co's deadline), and every watch got its final delivery.
  cluster().pause(0);
  bool failed_at_once = false;
  try {
    test::run_co(
        io,
        [&]() -> asio::awaitable<void> {
          auto [ec, unused] = co_await c->async_get(root(), tuple_awaitable);
          EXPECT_TRUE(is_session_fatal(ec)) << ec.message();
        }(),
        10s);
    failed_at_once = true;
  } catch (const std::exception& e) {
    ADD_FAILURE() << "a call on an expired session waited for the server: " << e.what();
  }
  cluster().resume(0);
  EXPECT_TRUE(failed_at_once);
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
  EXPECT_EQ(states->last(), session_state::connected) << states->text();
}

// While no server answers, the client moves from suspended to lost once the session timeout (plus the server's
// tick) has passed since it last wrote on an established connection: by then the server cannot have kept the
// session. What happens after the server comes back is the server's business (a paused server may still revive
// the session from a handshake queued in its socket), so only the timing of `lost` is asserted.
TEST_F(client_expiry_test, ANonAnsweringServerMakesTheSessionLostAfterTheTimeout) {
  test::loop_thread loop;
  const auto states = test::state_recorder::make();
  std::unique_ptr<client> c;
  constexpr auto timeout = 2000ms;
  loop.on_loop([&] {
    c = std::make_unique<client>(loop.io().get_executor(), test::client_options_for(connect_string(), timeout));
    c->set_state_listener(states->listener());
  });
  loop.on_loop([&] { return c->async_connect(asio::use_future); }).get();
  const auto last_answered = loop.on_loop([&] { return c->last_answered_send_time(); });
  ASSERT_TRUE(last_answered.has_value());

  cluster().pause(0);
  ASSERT_TRUE(states->reaches(session_state::suspended, timeout * 3));
  ASSERT_TRUE(states->reaches(session_state::lost, timeout * 5));
  // The time the client's own listener saw `lost`, not when this thread noticed it.
  const auto lost_after = *states->entered(session_state::lost) - *last_answered;
  const bool expired_while_paused = states->contains(session_state::expired);
  cluster().resume(0);  // the server may now expire the session at once: only what came before is asserted
  // Pings keep the last write within T/3 of the last answer; lost comes T + 1 s after the last write. The lower
  // bound is the safety property (never lost while the server may still hold the session) and has no margin; the
  // upper one is that deadline, T + T/3 + 1 s, plus 2 s for timers firing late on a loaded machine.
  EXPECT_GE(lost_after, timeout);
  EXPECT_LT(lost_after, timeout + timeout / 3 + 1s + 2s);
  EXPECT_FALSE(expired_while_paused) << "expiry is only known from a server: " << states->text();
  loop.on_loop([&] { c.reset(); });
}

TEST_F(client_expiry_test, AClientThatStopsTalkingIsExpired) {
  asio::io_context io;
  client c(io.get_executor(), test::client_options_for(connect_string(), 1000ms));
  const auto states = test::state_recorder::make();
  c.set_state_listener(states->listener());
  test::run_co(io, [&]() -> asio::awaitable<void> {
    co_await c.async_create(root(), "", use_awaitable);
    create_options ephemeral;
    ephemeral.mode = create_mode::ephemeral;
    co_await c.async_create(root() + "/e", "", ephemeral, use_awaitable);
  }());
  // Nobody runs the client's loop: no pings, so the server expires the session and removes its ephemeral node,
  // which a second client on a loop of its own watches for.
  {
    asio::io_context observer_io;
    client observer(observer_io.get_executor(), test::client_options_for(connect_string()));
    ASSERT_TRUE(test::eventually([&] { return node_gone(observer_io, observer, root() + "/e"); }, 30s,
                                 "the server expired the silent session"));
  }
  test::run_co(io, [&]() -> asio::awaitable<void> {
    auto [ec, unused] = co_await c.async_get("/", tuple_awaitable);
    // Whatever was in flight when the client woke up, the session ends expired.
    (void)ec;
    auto [connect_ec] = co_await c.async_connect(tuple_awaitable);
    EXPECT_EQ(connect_ec, make_error_code(client_error::session_expired));
  }());
  EXPECT_EQ(c.state(), session_state::expired);
  EXPECT_TRUE(states->contains(session_state::expired)) << states->text();
}

class client_ensemble_test : public test::ensemble_test {};

TEST_F(client_ensemble_test, KillingTheConnectedMemberMovesTheSession) {
  test::loop_thread loop;
  const auto states = test::state_recorder::make();
  std::unique_ptr<client> c;
  loop.on_loop([&] {
    c = std::make_unique<client>(loop.io().get_executor(), test::client_options_for(connect_string(), 8000ms));
    c->set_state_listener(states->listener());
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

  // Put many requests in flight, then crash their server. It is stopped first, so none of them can be answered
  // before it dies: they are all in flight, whatever the machine's speed.
  cluster().pause(member);
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

  ASSERT_TRUE(states->reaches(session_state::suspended, 20s));
  loop.on_loop([&] { return c->async_connect(asio::use_future); }).get();
  EXPECT_EQ(loop.on_loop([&] { return c->session_id(); }), session);
  const auto new_host = loop.on_loop([&] { return c->connected_host(); });
  ASSERT_TRUE(new_host.has_value());
  EXPECT_NE(new_host->port, host->port);

  EXPECT_TRUE(test::eventually([&] { return completed.load() >= in_flight; }, 30s, "every request completed",
                               [&] { return std::to_string(completed.load()) + " completed"; }));
  EXPECT_EQ(completed.load(), in_flight);
  EXPECT_EQ(other.load(), 0);
  EXPECT_GT(lost.load(), 0) << "no request failed with connection loss when its member died";
  for (const auto& n : per_op) EXPECT_EQ(n.load(), 1);

  // The ephemeral node is still ours, and new requests succeed.
  const auto st = loop.on_loop([&] { return c->async_exists(eph.path, asio::use_future); }).get();
  ASSERT_TRUE(st.has_value());
  EXPECT_EQ(st->ephemeral_owner, session);
  loop.on_loop([&] { return c->async_set(root(), "after", any_version, asio::use_future); }).get();
  EXPECT_EQ(loop.on_loop([&] { return c->async_get(root(), asio::use_future); }).get().data, "after");
  EXPECT_FALSE(states->contains(session_state::expired)) << states->text();
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

  const auto recorded = [&] {
    const std::lock_guard lock(mutex);
    std::string text;
    for (const auto& e : events) text += e + "; ";
    return text;
  };
  const auto has = [&](const std::string& event) {
    const std::lock_guard lock(mutex);
    return std::find(events.begin(), events.end(), event) != events.end();
  };
  EXPECT_TRUE(test::eventually(
      [&] {
        const std::lock_guard lock(mutex);
        return events.size() >= 3;
      },
      30s, "three catch-up events", recorded));
  // A duplicate delivery would come before the event of a later change: arm one more watch, fire it, and wait
  // for it; only then is the list complete.
  const std::string marker = root() + "/marker";
  loop.on_loop([&] { return watcher->async_exists(marker, record, asio::use_future); }).get();
  loop.on_loop([&] { return writer->async_create(marker, "", asio::use_future); }).get();
  EXPECT_TRUE(test::eventually([&] { return has("NodeCreated " + marker); }, 30s, "the marker's event", recorded));
  {
    const std::lock_guard lock(mutex);
    std::sort(events.begin(), events.end());
    EXPECT_EQ(events, (std::vector<std::string>{"NodeChildrenChanged " + root(), "NodeCreated " + absent_node,
                                                "NodeCreated " + marker, "NodeDataChanged " + data_node}));
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
