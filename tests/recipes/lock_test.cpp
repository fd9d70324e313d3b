// zkwire::recipes::lock against a real standalone ZooKeeper: acquire/release, the mutual-exclusion oracle, FIFO
// and no herd with 50 waiters, timeout/cancel at every step, reentrancy, fencing and guarded writes, loss on
// deletion, revocation, introspection, and waiting on other libraries' nodes.

#include <gtest/gtest.h>

#include <asio/bind_cancellation_slot.hpp>
#include <asio/cancellation_signal.hpp>
#include <asio/steady_timer.hpp>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "lock_test_support.hpp"
#include "support/zk_test.hpp"

namespace zkwire {
namespace {

using asio::use_awaitable;
using recipes::lock;
using recipes::lock_errc;
using recipes::lock_state;
using test::run_co;
using test::set_ops;
using test::tuple_awaitable;
using namespace std::chrono_literals;

class lock_test : public test::standalone_test {
 protected:
  std::string dir() const { return root() + "/locks/job"; }
};

TEST_F(lock_test, AcquiresOnAMissingDirectoryAndReleasesWithOneDelete) {
  asio::io_context io;
  auto c = test::new_client(io, connect_string());
  lock l(*c, dir());
  std::vector<lock_state> states;
  l.set_listener([&](const recipes::lock_event& e) { states.push_back(e.to); });
  EXPECT_EQ(l.state(), lock_state::released);
  run_co(io, [&]() -> asio::awaitable<void> {
    co_await l.async_acquire(5s, use_awaitable);
    EXPECT_EQ(l.state(), lock_state::held);
    EXPECT_EQ(l.hold_count(), 1U);
    const auto children = co_await test::children_of(*c, dir());
    ZKWIRE_CO_ASSERT(children.size() == 1);
    EXPECT_EQ(l.node_path(), dir() + "/" + children[0]);
    const auto n = recipes::parse_node_name(children[0]);
    EXPECT_EQ(n.family, recipes::node_family::curator);
    EXPECT_EQ(n.kind, recipes::contender_kind::exclusive);
    auto got = co_await c->async_get(l.node_path(), use_awaitable);
    EXPECT_EQ(got.data, recipes::default_lock_data());
    EXPECT_EQ(got.stat.ephemeral_owner, c->session_id());
    EXPECT_EQ(l.session_id(), c->session_id());
    EXPECT_EQ(l.fencing_token(), got.stat.czxid);
    co_await l.async_release(use_awaitable);
    EXPECT_EQ(l.state(), lock_state::released);
    EXPECT_TRUE((co_await test::children_of(*c, dir())).empty());
    EXPECT_EQ(l.node_path(), "");
    // The directory and its parent were made as containers: the server reaps them once empty.
    EXPECT_TRUE(co_await test::wait_for_children(*c, root(), 0, 15s));
  }());
  EXPECT_EQ(states, (std::vector<lock_state>{lock_state::acquiring, lock_state::held, lock_state::released}));
}

TEST_F(lock_test, TryLockFailsWhileHeldAndLeavesNothing) {
  asio::io_context io;
  auto c = test::new_client(io, connect_string());
  lock holder(*c, dir());
  lock other(*c, dir());
  run_co(io, [&]() -> asio::awaitable<void> {
    co_await holder.async_acquire(0ms, use_awaitable);
    auto [ec] = co_await other.async_acquire(0ms, tuple_awaitable);
    EXPECT_EQ(ec, lock_errc::timeout);
    EXPECT_EQ(other.state(), lock_state::released);
    EXPECT_TRUE(co_await test::wait_for_children(*c, dir(), 1));
    co_await holder.async_release(use_awaitable);
    co_await other.async_acquire(0ms, use_awaitable);
    co_await other.async_release(use_awaitable);
  }());
}

TEST_F(lock_test, ReentrantAcquireCountsUpAndReleasesAtZero) {
  asio::io_context io;
  auto c = test::new_client(io, connect_string());
  recipes::lock_options options;
  options.reentrant = true;
  lock l(*c, dir(), options);
  run_co(io, [&]() -> asio::awaitable<void> {
    co_await l.async_acquire(use_awaitable);
    const auto node = l.node_path();
    co_await l.async_acquire(0ms, use_awaitable);
    EXPECT_EQ(l.hold_count(), 2U);
    EXPECT_EQ(l.node_path(), node);
    co_await l.async_release(use_awaitable);
    EXPECT_EQ(l.hold_count(), 1U);
    EXPECT_TRUE((co_await c->async_exists(node, use_awaitable)).has_value());
    co_await l.async_release(use_awaitable);
    EXPECT_FALSE((co_await c->async_exists(node, use_awaitable)).has_value());
    auto [ec] = co_await l.async_release(tuple_awaitable);
    EXPECT_EQ(ec, lock_errc::not_held);
  }());
}

// Without lock_options::reentrant (the default) a second acquire of a held object is refused, whether it comes
// from the holder itself or from another coroutine sharing the object: never a silent second holder.
TEST_F(lock_test, AcquiringAHeldObjectIsRefusedUnlessReentrant) {
  asio::io_context io;
  auto c = test::new_client(io, connect_string());
  lock l(*c, dir());
  bool second_refused = false;
  run_co(io, [&]() -> asio::awaitable<void> {
    co_await l.async_acquire(use_awaitable);
    const auto node = l.node_path();
    const auto token = l.fencing_token();
    for (const auto timeout : {0ms, 5000ms, -1ms}) {
      auto again = l.async_acquire(timeout, tuple_awaitable);
      auto [ec] = co_await std::move(again);
      EXPECT_EQ(ec, lock_errc::already_held) << ec.message();
    }
    // A second coroutine sharing the object is refused too, while the first one goes on holding.
    auto second = [&]() -> asio::awaitable<void> {
      auto attempt = l.async_acquire(5s, tuple_awaitable);
      auto [ec] = co_await std::move(attempt);
      second_refused = ec == lock_errc::already_held;
    };
    co_await asio::co_spawn(io, second(), use_awaitable);
    EXPECT_TRUE(second_refused);
    EXPECT_EQ(l.state(), lock_state::held);
    EXPECT_EQ(l.hold_count(), 1U);
    EXPECT_EQ(l.node_path(), node);
    EXPECT_EQ(l.fencing_token(), token);
    // One release ends the hold: the node is gone.
    co_await l.async_release(use_awaitable);
    EXPECT_EQ(l.state(), lock_state::released);
    EXPECT_FALSE((co_await c->async_exists(node, use_awaitable)).has_value());
  }());
}

TEST_F(lock_test, FencingTokensGrowWithEveryGrant) {
  asio::io_context io;
  auto c = test::new_client(io, connect_string());
  lock l(*c, dir());
  run_co(io, [&]() -> asio::awaitable<void> {
    std::int64_t last = 0;
    for (int i = 0; i < 3; ++i) {
      co_await l.async_acquire(use_awaitable);
      EXPECT_GT(l.fencing_token(), last);
      last = l.fencing_token();
      co_await l.async_release(use_awaitable);
      EXPECT_EQ(l.fencing_token(), 0);
    }
  }());
}

// The oracle does not trust the lock: each holder reads a counter znode, sleeps, and writes it back plus one.
// Overlapping holders would lose updates.
TEST_F(lock_test, MutualExclusionOracleLosesNoUpdate) {
  constexpr int clients = 4;
  constexpr int locks_per_client = 2;
  constexpr int iterations = 50;  // 400 acquisitions in all
  asio::io_context io;
  std::vector<std::unique_ptr<client>> cs;
  for (int i = 0; i < clients; ++i) cs.push_back(test::new_client(io, connect_string()));
  const std::string counter = root() + "-counter";
  run_co(io, [&]() -> asio::awaitable<void> { co_await cs[0]->async_create(counter, "0", use_awaitable); }());

  int holders = 0;
  int overlaps = 0;
  std::vector<asio::awaitable<void>> workers;
  for (int i = 0; i < clients * locks_per_client; ++i) {
    workers.push_back([](client& c, std::string lock_dir, std::string counter_path, int seed, int& holders_now,
                         int& overlaps_seen) -> asio::awaitable<void> {
      std::mt19937 random(static_cast<unsigned>(seed));
      lock l(c, lock_dir);
      for (int n = 0; n < iterations; ++n) {
        co_await l.async_acquire(30s, use_awaitable);
        if (++holders_now > 1) ++overlaps_seen;
        auto got = co_await c.async_get(counter_path, use_awaitable);
        co_await test::sleep_for(std::chrono::milliseconds(random() % 3));
        co_await c.async_set(counter_path, std::to_string(std::stoi(got.data) + 1), any_version, use_awaitable);
        --holders_now;
        co_await l.async_release(use_awaitable);
      }
    }(*cs[static_cast<std::size_t>(i % clients)], dir(), counter, i, holders, overlaps));
  }
  test::run_all(io, std::move(workers));
  run_co(io, [&]() -> asio::awaitable<void> {
    auto got = co_await cs[0]->async_get(counter, use_awaitable);
    EXPECT_EQ(got.data, std::to_string(clients * locks_per_client * iterations));
    EXPECT_TRUE((co_await test::children_of(*cs[0], dir())).empty());
  }());
  EXPECT_EQ(overlaps, 0);
}

// 50 waiters queued behind one holder: each release wakes exactly one waiter, grants follow the queue order, and
// the server's watch table shows no watch on the directory and one watch per waiting node.
TEST_F(lock_test, FiftyWaitersAreGrantedInOrderWithoutAHerd) {
  constexpr std::size_t clients = 5;
  constexpr std::size_t waiters = 50;
  asio::io_context io;
  std::vector<std::unique_ptr<client>> cs;
  for (std::size_t i = 0; i < clients; ++i) cs.push_back(test::new_client(io, connect_string()));
  lock holder(*cs[0], dir());
  std::vector<std::unique_ptr<lock>> locks;
  for (std::size_t i = 0; i < waiters; ++i) locks.push_back(std::make_unique<lock>(*cs[i % clients], dir()));
  run_co(io, [&]() -> asio::awaitable<void> { co_await holder.async_acquire(use_awaitable); }());

  std::vector<std::int32_t> grant_order;
  std::vector<asio::awaitable<void>> tasks;
  for (auto& l : locks) {
    tasks.push_back([](lock& w, std::vector<std::int32_t>& order) -> asio::awaitable<void> {
      co_await w.async_acquire(60s, use_awaitable);
      order.push_back(recipes::parse_node_name(test::name_of(w.node_path())).sequence);
      co_await w.async_release(use_awaitable);
    }(*l, grant_order));
  }
  // A named closure: the coroutine refers to its captures, so it must outlive run_all.
  const auto check_and_release = [&]() -> asio::awaitable<void> {
    EXPECT_TRUE(co_await test::wait_for_children(*cs[0], dir(), waiters + 1));
    // Every waiter has set its watch once each client has settled: their listings were answered before the
    // second round trip, and the watching getData each of them sends then went out before it.
    for (auto& client_of_waiters : cs) co_await test::settle(*client_of_waiters);
    for (auto& client_of_waiters : cs) co_await test::settle(*client_of_waiters);
    const auto watches = test::parse_wchp(cluster().four_letter(0, "wchp"));
    EXPECT_EQ(watches.count(dir()), 0U) << "a watch on the lock directory";
    std::size_t lock_node_watches = 0;
    for (const auto& [path, sessions] : watches) {
      if (path.rfind(dir() + "/", 0) != 0) continue;
      lock_node_watches += sessions.size();
      if (path == holder.node_path()) {
        EXPECT_LE(sessions.size(), 2U) << path;  // its successor, and the holder watching its own node
      } else {
        EXPECT_EQ(sessions.size(), 1U) << path;  // only its successor
      }
    }
    EXPECT_GE(lock_node_watches, waiters);
    EXPECT_LE(lock_node_watches, waiters + 1);
    co_await holder.async_release(use_awaitable);
  };
  tasks.push_back(check_and_release());
  test::run_all(io, std::move(tasks));

  ASSERT_EQ(grant_order.size(), waiters);
  for (std::size_t i = 1; i < grant_order.size(); ++i) {
    EXPECT_TRUE(recipes::sequence_before(grant_order[i - 1], grant_order[i])) << "grant " << i << " out of order";
  }
  for (const auto& l : locks) EXPECT_EQ(l->wakeups(), 1U);
  run_co(io, [&]() -> asio::awaitable<void> { EXPECT_TRUE((co_await test::children_of(*cs[0], dir())).empty()); }());
}

// A waiter that gives up at any point — cancelled before its first reply, with its create or listing in
// flight, while waiting, by timeout, by try-lock, or by destroying the lock object — leaves no node behind.
TEST_F(lock_test, GivingUpAtEveryStepLeavesNoNode) {
  asio::io_context io;
  auto c = test::new_client(io, connect_string());
  lock holder(*c, dir());
  run_co(io, [&]() -> asio::awaitable<void> { co_await holder.async_acquire(use_awaitable); }());
  const auto only_holder_left = [&] {
    return run_co(io, [&]() -> asio::awaitable<bool> { co_return co_await test::wait_for_children(*c, dir(), 1); }());
  };

  // Cancel after k turns of the event loop: k = 0 is before anything was sent, later ones hit the create and the
  // listing in flight, their replies, the watch being set, and the wait.
  for (int k = 0; k < 12; ++k) {
    lock waiter(*c, dir());
    asio::cancellation_signal cancel;
    std::optional<std::error_code> result;
    waiter.async_acquire(asio::bind_cancellation_slot(cancel.slot(), [&](std::error_code ec) { result = ec; }));
    for (int turn = 0; turn < k; ++turn) io.run_one_for(1s);
    cancel.emit(asio::cancellation_type::terminal);
    ASSERT_TRUE(test::run_until(
        io, [&] { return result.has_value(); }, 5s));
    EXPECT_EQ(*result, lock_errc::cancelled) << "k=" << k;
    EXPECT_TRUE(only_holder_left()) << "k=" << k;
  }

  {  // cancelled while surely waiting
    lock waiter(*c, dir());
    asio::cancellation_signal cancel;
    std::optional<std::error_code> result;
    waiter.async_acquire(asio::bind_cancellation_slot(cancel.slot(), [&](std::error_code ec) { result = ec; }));
    EXPECT_TRUE(
        run_co(io, [&]() -> asio::awaitable<bool> { co_return co_await test::wait_for_children(*c, dir(), 2); }()));
    EXPECT_EQ(waiter.state(), lock_state::acquiring);
    cancel.emit(asio::cancellation_type::terminal);
    ASSERT_TRUE(test::run_until(
        io, [&] { return result.has_value(); }, 5s));
    EXPECT_EQ(*result, lock_errc::cancelled);
    EXPECT_EQ(waiter.state(), lock_state::released);
    EXPECT_TRUE(only_holder_left());
  }
  {  // timeout
    lock waiter(*c, dir());
    const auto start = std::chrono::steady_clock::now();
    run_co(io, [&]() -> asio::awaitable<void> {
      auto [ec] = co_await waiter.async_acquire(300ms, tuple_awaitable);
      EXPECT_EQ(ec, lock_errc::timeout);
    }());
    EXPECT_GE(std::chrono::steady_clock::now() - start, 300ms);
    EXPECT_LT(std::chrono::steady_clock::now() - start, 3s);
    EXPECT_TRUE(only_holder_left());
  }
  {  // try-lock
    lock waiter(*c, dir());
    run_co(io, [&]() -> asio::awaitable<void> {
      auto [ec] = co_await waiter.async_acquire(0ms, tuple_awaitable);
      EXPECT_EQ(ec, lock_errc::timeout);
    }());
    EXPECT_TRUE(only_holder_left());
  }
  {  // the lock object is destroyed while waiting
    std::optional<std::error_code> result;
    {
      lock waiter(*c, dir());
      waiter.async_acquire([&](std::error_code ec) { result = ec; });
      EXPECT_TRUE(
          run_co(io, [&]() -> asio::awaitable<bool> { co_return co_await test::wait_for_children(*c, dir(), 2); }()));
    }
    ASSERT_TRUE(test::run_until(
        io, [&] { return result.has_value(); }, 5s));
    EXPECT_EQ(*result, lock_errc::cancelled);
    EXPECT_TRUE(only_holder_left());
  }
  {  // a second acquire on the same object while one is pending is refused
    lock waiter(*c, dir());
    std::optional<std::error_code> first;
    waiter.async_acquire(2s, [&](std::error_code ec) { first = ec; });
    run_co(io, [&]() -> asio::awaitable<void> {
      auto [ec] = co_await waiter.async_acquire(tuple_awaitable);
      EXPECT_EQ(ec, lock_errc::acquire_in_progress);
    }());
    ASSERT_TRUE(test::run_until(
        io, [&] { return first.has_value(); }, 5s));
    EXPECT_EQ(*first, lock_errc::timeout);
    EXPECT_TRUE(only_holder_left());
  }
  run_co(io, [&]() -> asio::awaitable<void> {
    co_await holder.async_release(use_awaitable);
    EXPECT_TRUE(co_await test::wait_for_children(*c, dir(), 0));
  }());
}

// Someone else deletes our node: lost is signalled three ways, a guarded write fails, the next waiter gets it.
TEST_F(lock_test, DeletedNodeIsLostAndGuardedWritesFail) {
  asio::io_context io;
  auto c = test::new_client(io, connect_string());
  auto admin = test::new_client(io, connect_string());
  const std::string data = root() + "-data";
  lock l(*c, dir());
  lock next(*admin, dir());
  std::vector<recipes::lock_event> events;
  l.set_listener([&](const recipes::lock_event& e) { events.push_back(e); });
  std::optional<std::error_code> lost_wait;
  bool work_cancelled = false;
  asio::steady_timer guarded_work(io, std::chrono::hours(1));

  run_co(io, [&]() -> asio::awaitable<void> {
    co_await admin->async_create(data, "0", use_awaitable);
    auto [not_held, none] = co_await l.async_guarded_multi(set_ops(data, "x"), tuple_awaitable);
    EXPECT_EQ(not_held, lock_errc::not_held);
    co_await l.async_acquire(use_awaitable);
    auto results = co_await l.async_guarded_multi(set_ops(data, "1"), use_awaitable);
    ZKWIRE_CO_ASSERT(results.size() == 1);
    EXPECT_EQ(results[0].type, op_code::set_data);
  }());
  l.async_wait_lost([&](std::error_code ec) { lost_wait = ec; });
  guarded_work.async_wait(asio::bind_cancellation_slot(
      l.lost_slot(), [&](std::error_code ec) { work_cancelled = ec == asio::error::operation_aborted; }));
  std::optional<std::error_code> next_result;
  next.async_acquire([&](std::error_code ec) { next_result = ec; });

  run_co(io, [&]() -> asio::awaitable<void> {
    EXPECT_TRUE(co_await test::wait_for_children(*admin, dir(), 2));
    co_await admin->async_remove(l.node_path(), any_version, use_awaitable);
    // Whether or not our client has seen the deletion yet, the write must not happen.
    auto [ec, unused] = co_await l.async_guarded_multi(set_ops(data, "stale"), tuple_awaitable);
    EXPECT_TRUE(ec == lock_errc::lock_lost || ec == lock_errc::not_held) << ec.message();
    EXPECT_EQ((co_await admin->async_get(data, use_awaitable)).data, "1");
  }());
  ASSERT_TRUE(test::run_until(
      io, [&] { return lost_wait.has_value() && next_result.has_value(); }, 10s));
  EXPECT_EQ(*lost_wait, lock_errc::lock_lost);
  EXPECT_TRUE(work_cancelled);
  EXPECT_EQ(*next_result, std::error_code{});
  EXPECT_EQ(l.state(), lock_state::lost);
  ASSERT_FALSE(events.empty());
  EXPECT_EQ(events.back().to, lock_state::lost);
  EXPECT_EQ(events.back().reason, lock_errc::node_deleted);
  run_co(io, [&]() -> asio::awaitable<void> {
    auto [acquire_ec] = co_await l.async_acquire(0ms, tuple_awaitable);
    EXPECT_EQ(acquire_ec, lock_errc::lock_lost);  // reset it first
    auto [release_ec] = co_await l.async_release(tuple_awaitable);
    EXPECT_EQ(release_ec, lock_errc::lock_lost);
    EXPECT_EQ(l.state(), lock_state::released);
    co_await next.async_release(use_awaitable);
  }());
}

TEST_F(lock_test, RevocationReachesTheHolder) {
  asio::io_context io;
  auto c = test::new_client(io, connect_string());
  auto other = test::new_client(io, connect_string());
  lock holder(*c, dir());
  lock waiter(*other, dir());
  std::vector<std::string> requests;
  holder.set_revocation_handler([&](const std::string& request) {
    requests.push_back(request);
    holder.async_release([](std::error_code) {});
  });
  // (Lists outside the coroutines: GCC 12 miscompiles a braced list in a range-for inside a coroutine.)
  const std::vector<recipes::revoke_request> kinds{recipes::revoke_request::curator,
                                                   recipes::revoke_request::zookeeper};
  run_co(io, [&]() -> asio::awaitable<void> {
    for (const auto request : kinds) {
      co_await holder.async_acquire(use_awaitable);
      std::optional<std::error_code> granted;
      waiter.async_acquire(10s, [&](std::error_code ec) { granted = ec; });
      co_await recipes::async_revoke(*other, holder.node_path(), request, use_awaitable);
      while (!granted) co_await test::sleep_for(10ms);
      EXPECT_EQ(*granted, std::error_code{});
      co_await waiter.async_release(use_awaitable);
    }
    auto [ec, unused] = co_await recipes::async_revoke(*other, dir() + "/nobody-0000000001", tuple_awaitable);
    EXPECT_EQ(ec, server_error::no_node);
  }());
  EXPECT_EQ(requests, (std::vector<std::string>{"__REVOKE__", "unlock"}));
}

TEST_F(lock_test, ContendersListsEveryChildInLockOrder) {
  asio::io_context io;
  auto c = test::new_client(io, connect_string());
  auto admin = test::new_client(io, connect_string());
  recipes::lock_options kazoo;
  kazoo.name_format = recipes::naming::kazoo;
  kazoo.data = "kazoo-style waiter";
  lock holder(*c, dir());
  lock waiter(*admin, dir(), kazoo);
  run_co(io, [&]() -> asio::awaitable<void> {
    co_await holder.async_acquire(use_awaitable);
    waiter.async_acquire([](std::error_code) {});
    EXPECT_TRUE(co_await test::wait_for_children(*c, dir(), 2));
    create_options ephemeral_sequential;
    ephemeral_sequential.mode = create_mode::ephemeral_sequential;
    co_await admin->async_create(dir() + "/x-123-", "zk recipe", ephemeral_sequential, use_awaitable);
    co_await admin->async_create(dir() + "/readme", "not a lock", use_awaitable);

    auto list = co_await recipes::async_contenders(*c, dir(), use_awaitable);
    ZKWIRE_CO_ASSERT(list.size() == 4);
    EXPECT_EQ(list[0].path, holder.node_path());
    EXPECT_TRUE(list[0].holder);
    EXPECT_EQ(list[0].kind, recipes::contender_kind::exclusive);
    EXPECT_EQ(list[0].family, recipes::node_family::curator);
    EXPECT_EQ(list[0].session, c->session_id());
    EXPECT_EQ(list[0].czxid, holder.fencing_token());
    EXPECT_EQ(list[0].data, recipes::default_lock_data());
    EXPECT_GT(list[0].ctime, 0);
    EXPECT_EQ(list[1].family, recipes::node_family::kazoo);
    EXPECT_NE(list[1].node.find("__lock__"), std::string::npos);
    EXPECT_EQ(list[1].data, "kazoo-style waiter");
    EXPECT_EQ(list[1].session, admin->session_id());
    EXPECT_FALSE(list[1].holder);
    EXPECT_EQ(list[2].family, recipes::node_family::zookeeper_recipe);
    EXPECT_FALSE(list[2].holder);
    EXPECT_EQ(list[3].node, "readme");
    EXPECT_EQ(list[3].kind, recipes::contender_kind::foreign);
    EXPECT_EQ(list[3].session, 0);
    EXPECT_FALSE(list[3].holder);
    EXPECT_TRUE(recipes::sequence_before(list[0].sequence, list[1].sequence));

    auto [ec, none] = co_await recipes::async_contenders(*c, root() + "/missing", tuple_awaitable);
    EXPECT_EQ(ec, server_error::no_node);
    co_await admin->async_remove(dir() + "/readme", any_version, use_awaitable);
    co_await holder.async_release(use_awaitable);
  }());
}

// Nodes of other libraries in the same directory are contenders we wait for; unknown siblings are not.
TEST_F(lock_test, WaitsForOtherLibrariesNodesAndIgnoresForeignOnes) {
  asio::io_context io;
  auto c = test::new_client(io, connect_string());
  auto admin = test::new_client(io, connect_string());
  lock l(*c, dir());
  const std::vector<std::string> prefixes{"0123456789abcdef0123456789abcdef__lock__",
                                          "_c_0123456789abcdef0123456789abcdef-lock-", "x-72057594037927936-"};
  run_co(io, [&]() -> asio::awaitable<void> {
    create_options ephemeral_sequential;
    ephemeral_sequential.mode = create_mode::ephemeral_sequential;
    co_await admin->async_create(root(), "", use_awaitable);
    co_await admin->async_create(root() + "/locks", "", use_awaitable);
    co_await admin->async_create(dir(), "", use_awaitable);
    co_await admin->async_create(dir() + "/aaa-not-a-lock", "", use_awaitable);
    for (const auto& prefix : prefixes) {
      auto created = co_await admin->async_create(dir() + "/" + prefix, "", ephemeral_sequential, use_awaitable);
      auto [ec] = co_await l.async_acquire(0ms, tuple_awaitable);
      EXPECT_EQ(ec, lock_errc::timeout) << prefix;
      co_await admin->async_remove(created.path, any_version, use_awaitable);
      co_await l.async_acquire(0ms, use_awaitable);  // the foreign sibling does not block
      co_await l.async_release(use_awaitable);
    }
  }());
}

}  // namespace
}  // namespace zkwire
