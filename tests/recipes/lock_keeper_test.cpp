// lock_keeper against a real server through the fault-injection proxy (faults/): the keeper's session expires while
// it holds, another contender queued behind it gets the lock, and the keeper queues again in a new session and is
// granted after it with a larger fencing token; the application sees `lost` and then `held`, never `held` in
// between. And a loss by the safety margin on a session that survives: the old node is deleted, one new node held.
// An oracle fed by both holders' listeners counts overlapping holds.

#include <gtest/gtest.h>

#include <asio/io_context.hpp>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "lock_test_support.hpp"
#include "proxy_test_support.hpp"
#include "support/zk_test.hpp"
#include "zkwire/faults/proxy.hpp"
#include "zkwire/recipes/lock_keeper.hpp"

namespace zkwire {
namespace {

using asio::use_awaitable;
using recipes::lock;
using recipes::lock_event;
using recipes::lock_keeper;
using recipes::lock_state;
using test::run_co;
using namespace std::chrono_literals;

bool holding(lock_state s) { return s == lock_state::held || s == lock_state::uncertain; }

// Counts the holders the listeners claim at each moment (everything runs on one thread, in listener order).
struct hold_oracle {
  int holders = 0;
  int overlaps = 0;
  void on_event(const lock_event& e) {
    if (!holding(e.from) && holding(e.to)) {
      if (++holders > 1) ++overlaps;
    } else if (holding(e.from) && !holding(e.to)) {
      --holders;
    }
  }
};

class lock_keeper_test : public test::proxied_directory_test {
 protected:
  lock_keeper_test() : proxied_directory_test("lock") {}
};

TEST_F(lock_keeper_test, ReacquiresAfterSessionExpiryBehindTheContenderQueuedAhead) {
  auto& proxy = *proxy_;
  auto& admin = *admin_;
  const std::string& dir = dir_;
  auto keeper_client = test::new_client(io_, proxy.address(), 2000ms);
  lock_keeper k(*keeper_client, dir);
  lock waiter(admin, dir);
  hold_oracle oracle;
  std::vector<lock_event> events;
  k.set_listener([&](const lock_event& e) {
    events.push_back(e);
    oracle.on_event(e);
  });
  waiter.set_listener([&](const lock_event& e) { oracle.on_event(e); });
  std::optional<std::error_code> waiter_acquired;
  run_co(
      io_,
      [&]() -> asio::awaitable<void> {
        co_await k.async_acquire(10s, use_awaitable);
        const std::int64_t first_token = k.fencing_token();
        const std::int64_t first_session = keeper_client->session_id();
        waiter.async_acquire(120s, [&](std::error_code ec) { waiter_acquired = ec; });
        ZKWIRE_CO_ASSERT(co_await test::wait_for_children(admin, dir, 2));

        // Silence the keeper's connection and keep it from reconnecting until the server expired its session: the
        // server deletes its node, and the waiter queued behind it is granted.
        const auto refused = proxy.refuse_connections(120s);
        proxy.cut_connections(faults::cut_kind::blackhole);
        ZKWIRE_CO_ASSERT(co_await test::co_eventually([&] { return waiter_acquired.has_value(); }, 60s));
        ZKWIRE_CO_ASSERT(!*waiter_acquired);
        EXPECT_EQ(k.state(), lock_state::lost);
        const std::int64_t waiter_token = waiter.fencing_token();

        // Let the keeper reconnect: its session is gone, it starts another and queues behind the waiter.
        proxy.remove_rule(refused);
        ZKWIRE_CO_ASSERT(co_await test::wait_for_children(admin, dir, 2, 60s));
        co_await test::settle(*keeper_client);   // whatever the keeper's client was told has been handled
        EXPECT_EQ(k.state(), lock_state::lost);  // queued, not granted: the waiter still holds
        EXPECT_EQ(k.fencing_token(), 0);
        EXPECT_NE(keeper_client->session_id(), first_session);

        co_await waiter.async_release(use_awaitable);
        ZKWIRE_CO_ASSERT(co_await test::co_eventually([&] { return k.state() == lock_state::held; }, 30s));
        EXPECT_GT(k.fencing_token(), waiter_token);
        EXPECT_GT(waiter_token, first_token);
        EXPECT_EQ(k.reacquisitions(), 1U);
        EXPECT_EQ(k.get_lock().session_id(), keeper_client->session_id());
        co_await test::expect_sole_child(admin, dir, k.node_path());
        co_await k.async_release(use_awaitable);
        EXPECT_TRUE((co_await test::children_of(admin, dir)).empty());
      }(),
      180s);
  EXPECT_EQ(oracle.overlaps, 0);
  // After the first `lost`: exactly one more event, lost -> held (nothing in between), then the release.
  std::size_t lost_at = events.size();
  for (std::size_t i = 0; i < events.size(); ++i) {
    if (events[i].to == lock_state::lost) {
      lost_at = i;
      break;
    }
  }
  ASSERT_LT(lost_at + 2, events.size());
  EXPECT_EQ(events[lost_at + 1].from, lock_state::lost);
  EXPECT_EQ(events[lost_at + 1].to, lock_state::held);
  EXPECT_EQ(events[lost_at + 2].to, lock_state::released);
  EXPECT_EQ(events.size(), lost_at + 3);
}

// Lost by the safety margin while the session survives (the connection is silent for longer than the margin
// allows, shorter than the session timeout): the old node still exists in the same session; the keeper deletes it
// and holds a new one.
TEST_F(lock_keeper_test, ALossWhoseSessionSurvivesLeavesOneNewNode) {
  auto& proxy = *proxy_;
  auto& admin = *admin_;
  const std::string& dir = dir_;
  auto keeper_client = test::new_client(io_, proxy.address(), 8000ms);
  recipes::lock_options options;
  options.safety_margin = 5000ms;  // lost 3 s after the last answer; the client reconnects after its read timeout
  lock_keeper k(*keeper_client, dir, options);
  std::vector<lock_event> events;
  k.set_listener([&](const lock_event& e) { events.push_back(e); });
  run_co(
      io_,
      [&]() -> asio::awaitable<void> {
        co_await k.async_acquire(10s, use_awaitable);
        const std::int64_t first_token = k.fencing_token();
        const std::string first_node = k.node_path();
        const std::int64_t session = keeper_client->session_id();
        proxy.cut_connections(faults::cut_kind::blackhole);
        ZKWIRE_CO_ASSERT(co_await test::co_eventually([&] { return k.state() == lock_state::lost; }, 30s));
        ZKWIRE_CO_ASSERT(co_await test::co_eventually([&] { return k.state() == lock_state::held; }, 30s));
        EXPECT_EQ(keeper_client->session_id(), session);  // the same session throughout
        EXPECT_GT(k.fencing_token(), first_token);
        EXPECT_NE(k.node_path(), first_node);
        co_await test::expect_sole_child(admin, dir, k.node_path());
        co_await k.async_release(use_awaitable);
      }(),
      120s);
  ASSERT_FALSE(events.empty());
  bool lost_seen = false;
  for (const auto& e : events) {
    if (e.to == lock_state::lost) {
      EXPECT_EQ(e.reason, recipes::lock_errc::safety_margin_passed) << e.reason.message();
      lost_seen = true;
    } else if (lost_seen && e.to != lock_state::released) {
      EXPECT_EQ(e.from, lock_state::lost);  // the next event after `lost` is `held`
      EXPECT_EQ(e.to, lock_state::held);
    }
  }
  EXPECT_TRUE(lost_seen);
}

// Released while re-acquiring: the application hears lost -> released, the release says lock_lost, nothing is left.
TEST_F(lock_keeper_test, ReleaseWhileReacquiringStopsAndLeavesNothing) {
  auto& proxy = *proxy_;
  auto& admin = *admin_;
  const std::string& dir = dir_;
  auto keeper_client = test::new_client(io_, proxy.address(), 2000ms);
  lock_keeper k(*keeper_client, dir);
  lock holder(admin, dir);
  std::vector<lock_event> events;
  k.set_listener([&](const lock_event& e) { events.push_back(e); });
  run_co(
      io_,
      [&]() -> asio::awaitable<void> {
        co_await k.async_acquire(10s, use_awaitable);
        const auto refused = proxy.refuse_connections(120s);
        proxy.cut_connections(faults::cut_kind::blackhole);
        ZKWIRE_CO_ASSERT(co_await test::wait_for_children(admin, dir, 0, 60s));  // expired on the server
        co_await holder.async_acquire(10s, use_awaitable);
        proxy.remove_rule(refused);
        ZKWIRE_CO_ASSERT(co_await test::wait_for_children(admin, dir, 2, 60s));  // the keeper queued again
        auto [ec] = co_await k.async_release(test::tuple_awaitable);
        EXPECT_EQ(ec, recipes::lock_errc::lock_lost);
        EXPECT_EQ(k.state(), lock_state::released);
        ZKWIRE_CO_ASSERT(co_await test::wait_for_children(admin, dir, 1));  // only the holder's node
        co_await holder.async_release(use_awaitable);
        co_await test::settle(*keeper_client);
        EXPECT_EQ(k.state(), lock_state::released);  // the holder's release granted the keeper nothing
      }(),
      180s);
  ASSERT_GE(events.size(), 2U);
  EXPECT_EQ(events.back().from, lock_state::lost);
  EXPECT_EQ(events.back().to, lock_state::released);
}

}  // namespace
}  // namespace zkwire
