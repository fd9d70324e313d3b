// Watches through zkwire::client against a real ZooKeeper 3.8 server: one-shot watches (callbacks and awaitable
// watch objects) fire exactly once per registration, persistent and recursive watches keep firing until removed,
// and a standalone server restart keeps the session and re-arms every watch.

#include <gtest/gtest.h>

#include <asio/bind_cancellation_slot.hpp>
#include <asio/cancellation_signal.hpp>
#include <asio/io_context.hpp>
#include <asio/use_awaitable.hpp>
#include <asio/use_future.hpp>
#include <string>
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

class client_watch_test : public test::standalone_test {
 protected:
  client make_client(std::chrono::milliseconds timeout = std::chrono::seconds(10)) {
    return client(io_.get_executor(), test::client_options_for(connect_string(), timeout));
  }
  template <class T>
  T run(asio::awaitable<T> co) {
    return test::run_co(io_, std::move(co));
  }
  // Waits until every event that could still arrive has: arms a watch on a fresh marker node beside root() (outside
  // any watched subtree), creates the marker and waits for that watch. The server sends this session's events in
  // order and the client delivers them in order, so an event that should not have fired would be in by then.
  asio::awaitable<void> settle(client& c) {
    const std::string marker = root() + "-marker-" + std::to_string(++markers_);
    auto [missing, marker_watch] = co_await c.async_exists_watch(marker, use_awaitable);
    EXPECT_FALSE(missing.has_value());
    co_await c.async_create(marker, "", use_awaitable);
    const watch_event e = co_await marker_watch.async_wait(use_awaitable);
    EXPECT_EQ(e.type, event_type::node_created);
    co_await c.async_remove(marker, any_version, use_awaitable);
  }

  asio::io_context io_;
  int markers_ = 0;
};

TEST_F(client_watch_test, OneShotDataWatchFiresExactlyOnce) {
  client c = make_client();
  std::vector<watch_event> events;
  run([&]() -> asio::awaitable<void> {
    co_await c.async_create(root(), "0", use_awaitable);
    co_await c.async_get(
        root(), [&](const watch_event& e) { events.push_back(e); }, use_awaitable);
    co_await c.async_set(root(), "1", any_version, use_awaitable);
    co_await c.async_set(root(), "2", any_version, use_awaitable);
    co_await settle(c);
  }());
  ASSERT_EQ(events.size(), 1U);
  EXPECT_EQ(events[0].type, event_type::node_data_changed);
  EXPECT_EQ(events[0].path, root());
  EXPECT_FALSE(events[0].error);
}

TEST_F(client_watch_test, EveryRegistrationFiresOnceEvenOnOnePath) {
  client c = make_client();
  int first = 0;
  int second = 0;
  int children = 0;
  run([&]() -> asio::awaitable<void> {
    co_await c.async_create(root(), "", use_awaitable);
    co_await c.async_get(
        root(), [&](const watch_event&) { ++first; }, use_awaitable);
    co_await c.async_exists(
        root(), [&](const watch_event&) { ++second; }, use_awaitable);
    co_await c.async_get_children(
        root(),
        [&](const watch_event& e) {
          EXPECT_EQ(e.type, event_type::node_children_changed);
          ++children;
        },
        use_awaitable);
    co_await c.async_create(root() + "/a", "", use_awaitable);
    co_await c.async_set(root(), "x", any_version, use_awaitable);
    co_await c.async_create(root() + "/b", "", use_awaitable);
    co_await c.async_set(root(), "y", any_version, use_awaitable);
    co_await settle(c);
  }());
  EXPECT_EQ(first, 1);
  EXPECT_EQ(second, 1);
  EXPECT_EQ(children, 1);
}

TEST_F(client_watch_test, AKeyedWatcherIsOneWatcherAndRemovingItLeavesTheOthers) {
  client c = make_client();
  std::vector<std::string> calls;
  const watcher_key one{1, 1};
  const watcher_key two{2, 0};
  auto record = [&](const char* name) {
    return [&calls, name](const watch_event& e) {
      calls.push_back(std::string(name) + " " + std::to_string(static_cast<int>(e.type)));
    };
  };
  run([&]() -> asio::awaitable<void> {
    co_await c.async_create(root(), "", use_awaitable);
    // Three reads of `one` (data and child tables) make one watcher: one call per event; its first callback stays.
    co_await c.async_get(root(), one, record("one"), use_awaitable);
    co_await c.async_exists(root(), one, record("one again"), use_awaitable);
    co_await c.async_get_children(root(), one, record("one again"), use_awaitable);
    co_await c.async_exists(root(), two, record("two"), use_awaitable);
    EXPECT_EQ(c.watcher_keys(), (std::vector<watcher_key>{one, two}));
    EXPECT_TRUE(c.watching(root(), watcher_type::children, one));
    EXPECT_FALSE(c.watching(root(), watcher_type::children, two));
    co_await c.async_remove(root(), any_version, use_awaitable);
    co_await settle(c);
    EXPECT_EQ(calls, (std::vector<std::string>{"one 2", "two 2"}));
    EXPECT_TRUE(c.watcher_keys().empty());

    // Removing `two` (checkWatches) leaves `one` its watch on the same path, which the server still holds.
    calls.clear();
    co_await c.async_create(root(), "", use_awaitable);
    co_await c.async_exists(root(), one, record("one"), use_awaitable);
    co_await c.async_exists(root(), two, record("two"), use_awaitable);
    co_await c.async_remove_watcher(root(), watcher_type::data, two, use_awaitable);
    EXPECT_EQ(calls, std::vector<std::string>{"two 5"}) << "its removal event, before the completion";
    auto [missing] = co_await c.async_remove_watcher(root(), watcher_type::data, two, tuple_awaitable);
    EXPECT_EQ(missing, make_error_code(server_error::no_watcher)) << "nothing of `two` left there";
    auto [unknown] = co_await c.async_remove_watcher(root(), watcher_type::data, watcher_key{3, 3}, tuple_awaitable);
    EXPECT_EQ(unknown, make_error_code(server_error::no_watcher));
    co_await c.async_set(root(), "x", any_version, use_awaitable);
    co_await settle(c);
    EXPECT_EQ(calls, (std::vector<std::string>{"two 5", "one 3"}));

    // Locally: the same, without a request.
    calls.clear();
    co_await c.async_get_children(root(), one, record("one"), use_awaitable);
    co_await c.async_get_children(root(), two, record("two"), use_awaitable);
    EXPECT_FALSE(c.remove_local_watcher(root(), watcher_type::data, two));
    EXPECT_TRUE(c.remove_local_watcher(root(), watcher_type::children, two));
    co_await c.async_create(root() + "/child", "", use_awaitable);
    co_await settle(c);
    EXPECT_EQ(calls, (std::vector<std::string>{"two 6", "one 4"}));
    EXPECT_EQ(c.watch_count(), 0U) << "every watcher fired or was removed: nothing kept";
  }());
}

TEST_F(client_watch_test, ExistsWatchOnMissingNodeSeesItsCreation) {
  client c = make_client();
  client other = make_client();
  run([&]() -> asio::awaitable<void> {
    auto [missing, w] = co_await c.async_exists_watch(root(), use_awaitable);
    EXPECT_FALSE(missing.has_value());
    EXPECT_TRUE(w.armed());
    EXPECT_FALSE(w.fired());
    co_await other.async_create(root(), "", use_awaitable);
    const watch_event e = co_await w.async_wait(use_awaitable);
    EXPECT_EQ(e.type, event_type::node_created);
    EXPECT_EQ(e.path, root());
    EXPECT_TRUE(w.fired());
    // Waiting again gives the same event at once.
    const watch_event again = co_await w.async_wait(use_awaitable);
    EXPECT_EQ(again.type, event_type::node_created);
  }());
}

TEST_F(client_watch_test, AwaitableWatchesOnDataAndChildren) {
  client c = make_client();
  run([&]() -> asio::awaitable<void> {
    co_await c.async_create(root(), "", use_awaitable);
    auto [got, data_watch] = co_await c.async_get_watch(root(), use_awaitable);
    auto [kids, child_watch] = co_await c.async_get_children_watch(root(), use_awaitable);
    EXPECT_TRUE(kids.children.empty());
    co_await c.async_create(root() + "/k", "", use_awaitable);
    const auto child_event = co_await child_watch.async_wait(use_awaitable);
    EXPECT_EQ(child_event.type, event_type::node_children_changed);
    co_await c.async_remove(root() + "/k", any_version, use_awaitable);
    co_await c.async_remove(root(), any_version, use_awaitable);
    const auto data_event = co_await data_watch.async_wait(use_awaitable);
    EXPECT_EQ(data_event.type, event_type::node_deleted);

    // A read that fails arms nothing.
    auto [ec, failed] = co_await c.async_get_watch(root(), tuple_awaitable);
    EXPECT_EQ(ec, make_error_code(server_error::no_node));
    EXPECT_FALSE(failed.watch.armed());
    auto [wait_ec, unused] = co_await failed.watch.async_wait(tuple_awaitable);
    EXPECT_EQ(wait_ec, make_error_code(client_errc::no_watch));
  }());
}

TEST_F(client_watch_test, WatchWaitCanBeCancelledAndRetried) {
  client c = make_client();
  run([&]() -> asio::awaitable<void> {
    co_await c.async_create(root(), "", use_awaitable);
    auto [got, w] = co_await c.async_get_watch(root(), use_awaitable);
    asio::cancellation_signal cancel;
    std::error_code first_ec;
    bool first_done = false;
    w.async_wait(asio::bind_cancellation_slot(cancel.slot(), [&](std::error_code ec, const watch_event&) {
      first_ec = ec;
      first_done = true;
    }));
    co_await c.async_sync("/", use_awaitable);  // a round trip: nothing happened to the node meanwhile
    EXPECT_FALSE(first_done);
    cancel.emit(asio::cancellation_type::terminal);
    co_await c.async_sync("/", use_awaitable);  // the cancelled wait's completion is posted before this reply
    EXPECT_TRUE(first_done);
    EXPECT_EQ(first_ec, make_error_code(client_error::cancelled));
    co_await c.async_set(root(), "x", any_version, use_awaitable);
    const auto e = co_await w.async_wait(use_awaitable);  // still armed
    EXPECT_EQ(e.type, event_type::node_data_changed);
  }());
}

TEST_F(client_watch_test, PersistentWatchKeepsFiringUntilRemoved) {
  client c = make_client();
  std::vector<watch_event> events;
  run([&]() -> asio::awaitable<void> {
    co_await c.async_create(root(), "", use_awaitable);
    co_await c.async_add_watch(
        root(), add_watch_mode::persistent, [&](const watch_event& e) { events.push_back(e); }, use_awaitable);
    for (int i = 0; i < 3; ++i) co_await c.async_set(root(), std::to_string(i), any_version, use_awaitable);
    co_await c.async_create(root() + "/child", "", use_awaitable);
    co_await c.async_set(root() + "/child", "not watched", any_version, use_awaitable);
    co_await settle(c);
    ZKWIRE_CO_ASSERT(events.size() == 4U);
    for (int i = 0; i < 3; ++i) EXPECT_EQ(events[static_cast<std::size_t>(i)].type, event_type::node_data_changed);
    EXPECT_EQ(events[3].type, event_type::node_children_changed);

    co_await c.async_remove_watches(root(), watcher_type::any, use_awaitable);
    ZKWIRE_CO_ASSERT(events.size() == 5U);
    EXPECT_EQ(events[4].type, event_type::persistent_watch_removed);
    co_await c.async_set(root(), "after", any_version, use_awaitable);
    co_await settle(c);
    EXPECT_EQ(events.size(), 5U);
    auto [none] = co_await c.async_remove_watches(root(), watcher_type::any, tuple_awaitable);
    EXPECT_EQ(none, make_error_code(server_error::no_watcher));
  }());
}

TEST_F(client_watch_test, RecursiveWatchSeesTheWholeSubtree) {
  client c = make_client();
  std::vector<watch_event> events;
  run([&]() -> asio::awaitable<void> {
    co_await c.async_create(root(), "", use_awaitable);
    co_await c.async_add_watch(
        root(), add_watch_mode::persistent_recursive, [&](const watch_event& e) { events.push_back(e); },
        use_awaitable);
    co_await c.async_create(root() + "/a", "", use_awaitable);
    co_await c.async_create(root() + "/a/b", "", use_awaitable);
    co_await c.async_set(root() + "/a/b", "x", any_version, use_awaitable);
    co_await c.async_remove(root() + "/a/b", any_version, use_awaitable);
    co_await settle(c);
  }());
  ASSERT_EQ(events.size(), 4U);
  EXPECT_EQ(events[0].type, event_type::node_created);
  EXPECT_EQ(events[0].path, root() + "/a");
  EXPECT_EQ(events[1].type, event_type::node_created);
  EXPECT_EQ(events[1].path, root() + "/a/b");
  EXPECT_EQ(events[2].type, event_type::node_data_changed);
  EXPECT_EQ(events[3].type, event_type::node_deleted);
  for (const auto& e : events) EXPECT_NE(e.type, event_type::node_children_changed);
}

TEST_F(client_watch_test, ClosingEndsEveryWatchWithAFinalDelivery) {
  client c = make_client();
  std::vector<watch_event> persistent;
  run([&]() -> asio::awaitable<void> {
    co_await c.async_create(root(), "", use_awaitable);
    auto [got, w] = co_await c.async_get_watch(root(), use_awaitable);
    co_await c.async_add_watch(
        root() + "/p", add_watch_mode::persistent, [&](const watch_event& e) { persistent.push_back(e); },
        use_awaitable);
    co_await c.async_close(use_awaitable);
    auto [ec, e] = co_await w.async_wait(tuple_awaitable);
    EXPECT_TRUE(ec);
    EXPECT_EQ(e.type, event_type::none);
    EXPECT_EQ(e.state, keeper_state::closed);
  }());
  ASSERT_EQ(persistent.size(), 1U);
  EXPECT_EQ(persistent[0].type, event_type::none);
  EXPECT_TRUE(persistent[0].error);
}

TEST_F(client_watch_test, DestroyingTheClientEndsWatchesAndPendingOperations) {
  auto c = std::make_unique<client>(make_client());
  std::error_code pending_error;
  bool pending_done = false;
  watch w;
  run([&]() -> asio::awaitable<void> {
    co_await c->async_create(root(), "", use_awaitable);
    auto got = co_await c->async_get_watch(root(), use_awaitable);
    w = got.watch;
  }());
  c->async_sync(root(), [&](std::error_code ec) {
    pending_error = ec;
    pending_done = true;
  });
  c.reset();
  EXPECT_FALSE(pending_done);  // completions are posted, never run inside the destructor
  ASSERT_TRUE(test::run_until(io_, [&] { return pending_done; }));
  EXPECT_EQ(pending_error, make_error_code(client_error::closed));
  EXPECT_TRUE(w.fired());
  run([&]() -> asio::awaitable<void> {
    auto [ec, e] = co_await w.async_wait(tuple_awaitable);
    EXPECT_EQ(ec, make_error_code(client_error::closed));
  }());
}

TEST_F(client_watch_test, ServerRestartKeepsTheSessionAndReArmsWatches) {
  test::loop_thread loop;
  auto options = test::client_options_for(connect_string(), std::chrono::seconds(20));
  std::unique_ptr<client> c;
  const auto states = test::state_recorder::make();
  std::atomic<int> one_shot{0};
  std::atomic<int> persistent{0};
  loop.on_loop([&] {
    c = std::make_unique<client>(loop.io().get_executor(), options);
    c->set_state_listener(states->listener());
  });
  loop.on_loop([&] { return c->async_create(root(), "", asio::use_future); }).get();
  loop.on_loop([&] { return c->async_create(root() + "/p", "", asio::use_future); }).get();
  const auto session = loop.on_loop([&] { return c->session_id(); });
  loop.on_loop([&] {
        return c->async_get(
            root(), [&](const watch_event&) { ++one_shot; }, asio::use_future);
      })
      .get();
  loop.on_loop([&] {
        return c->async_add_watch(
            root() + "/p", add_watch_mode::persistent,
            [&](const watch_event& e) {
              if (!e.error) ++persistent;
            },
            asio::use_future);
      })
      .get();

  cluster().restart(0);
  ASSERT_TRUE(cluster().wait_ready());

  // The client reconnects by itself; a request made now waits for the connection.
  loop.on_loop([&] { return c->async_connect(asio::use_future); }).get();
  EXPECT_EQ(loop.on_loop([&] { return c->session_id(); }), session);
  EXPECT_TRUE(states->contains(session_state::suspended)) << states->text();
  EXPECT_EQ(states->last(), session_state::connected) << states->text();

  loop.on_loop([&] { return c->async_set(root(), "a", any_version, asio::use_future); }).get();
  loop.on_loop([&] { return c->async_set(root(), "b", any_version, asio::use_future); }).get();
  loop.on_loop([&] { return c->async_set(root() + "/p", "a", any_version, asio::use_future); }).get();
  loop.on_loop([&] { return c->async_set(root() + "/p", "b", any_version, asio::use_future); }).get();
  // A later watch, fired by a later change: every event of the sets above is delivered before it.
  std::atomic<bool> marker_fired{false};
  const std::string marker = root() + "/marker";
  loop.on_loop([&] {
        return c->async_exists(
            marker, [&](const watch_event&) { marker_fired = true; }, asio::use_future);
      })
      .get();
  loop.on_loop([&] { return c->async_create(marker, "", asio::use_future); }).get();
  ASSERT_TRUE(test::eventually([&] { return marker_fired.load(); }, std::chrono::seconds(30), "the marker's watch"));
  EXPECT_EQ(one_shot.load(), 1);
  EXPECT_EQ(persistent.load(), 2);
  loop.on_loop([&] { c.reset(); });
}

}  // namespace
}  // namespace zkwire
