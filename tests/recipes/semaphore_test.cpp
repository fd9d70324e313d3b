// zkwire::recipes::semaphore against a real standalone ZooKeeper: the at-most-N oracle, Curator's layout, k leases
// all or none, try-once/timeout/cancel/destruction leave nothing, loss on deletion and when no server answers.

#include <gtest/gtest.h>

#include <algorithm>
#include <asio/bind_cancellation_slot.hpp>
#include <asio/cancellation_signal.hpp>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "lock_test_support.hpp"
#include "support/zk_test.hpp"

namespace zkwire {
namespace {

using asio::use_awaitable;
using recipes::lock_errc;
using recipes::lock_state;
using recipes::semaphore;
using test::run_co;
using test::tuple_awaitable;
using namespace std::chrono_literals;

class semaphore_test : public test::standalone_test {
 protected:
  std::string path() const { return root() + "/semaphores/workers"; }
  std::string leases() const { return path() + "/leases"; }
  std::string locks() const { return path() + "/locks"; }
};

// Holders count themselves in a shared counter while they hold, and hold until the counter reaches N: it must never
// exceed N, and must reach N (so the oracle can see an overlap at all).
TEST_F(semaphore_test, AtMostNHoldersAtOnce) {
  constexpr int max_leases = 2;
  constexpr int clients = 3;
  constexpr int workers_count = 6;
  constexpr int iterations = 12;
  asio::io_context io;
  std::vector<std::unique_ptr<client>> cs;
  for (int i = 0; i < clients; ++i) cs.push_back(test::new_client(io, connect_string()));
  int holders = 0;
  int most = 0;
  int entries = 0;
  std::vector<asio::awaitable<void>> workers;
  for (int i = 0; i < workers_count; ++i) {
    workers.push_back([](client& c, std::string dir, int seed, int& holders_now, int& most_seen,
                         int& entered) -> asio::awaitable<void> {
      std::mt19937 random(static_cast<unsigned>(seed));
      semaphore s(c, dir, max_leases);
      for (int n = 0; n < iterations; ++n) {
        co_await s.async_acquire(60s, use_awaitable);
        ++entered;
        most_seen = std::max(most_seen, ++holders_now);
        // Hold until all N leases are taken (or 500 ms passed): a hold shorter than another contender's acquire,
        // which is several round trips, would let the oracle miss an overlap.
        for (int waited = 0; holders_now < max_leases && waited < 100; ++waited) {
          co_await test::sleep_for(std::chrono::milliseconds(5));
        }
        // Then a little longer, so that a contender granted a lease too many would show as one holder too many.
        co_await test::sleep_for(std::chrono::milliseconds(20 + random() % 20));
        --holders_now;
        co_await s.async_release(use_awaitable);
      }
    }(*cs[static_cast<std::size_t>(i % clients)], path(), i, holders, most, entries));
  }
  test::run_all(io, std::move(workers));
  EXPECT_EQ(entries, workers_count * iterations);
  EXPECT_LE(most, max_leases);
  EXPECT_EQ(most, max_leases) << "the oracle never saw N holders at once";
  run_co(io, [&]() -> asio::awaitable<void> {
    EXPECT_TRUE((co_await test::children_of(*cs[0], leases())).empty());
    EXPECT_TRUE((co_await test::children_of(*cs[0], locks())).empty());
  }());
}

TEST_F(semaphore_test, UsesCuratorsLayoutAndReleasesTheMutex) {
  asio::io_context io;
  auto c = test::new_client(io, connect_string());
  semaphore s(*c, path(), 3);
  std::vector<lock_state> states;
  s.set_listener([&](const recipes::lock_event& e) { states.push_back(e.to); });
  run_co(io, [&]() -> asio::awaitable<void> {
    co_await s.async_acquire(5s, use_awaitable);
    EXPECT_EQ(s.state(), lock_state::held);
    const auto names = co_await test::children_of(*c, leases());
    ZKWIRE_CO_ASSERT(names.size() == 1);
    ZKWIRE_CO_ASSERT(s.lease_paths().size() == 1);
    EXPECT_EQ(s.lease_paths()[0], leases() + "/" + names[0]);
    // _c_<uuid 36>-lease-<10 digits>
    EXPECT_EQ(names[0].rfind("_c_", 0), 0U) << names[0];
    EXPECT_EQ(names[0].size(), 3 + 36 + 7 + 10) << names[0];
    EXPECT_EQ(names[0].substr(39, 7), "-lease-") << names[0];
    auto got = co_await c->async_get(s.lease_paths()[0], use_awaitable);
    EXPECT_EQ(got.stat.ephemeral_owner, c->session_id());
    EXPECT_EQ(s.fencing_token(), got.stat.czxid);
    EXPECT_EQ(s.session_id(), c->session_id());
    EXPECT_TRUE((co_await test::children_of(*c, locks())).empty()) << "the mutex is held only while grabbing";
    auto [again] = co_await s.async_acquire(0ms, tuple_awaitable);
    EXPECT_EQ(again, lock_errc::already_held);
    co_await s.async_release(use_awaitable);
    EXPECT_TRUE((co_await test::children_of(*c, leases())).empty());
    auto [twice] = co_await s.async_release(tuple_awaitable);
    EXPECT_EQ(twice, lock_errc::not_held);
    auto [too_many] = co_await s.async_acquire(4, 0ms, tuple_awaitable);
    EXPECT_EQ(too_many, lock_errc::invalid_lease_count);
  }());
  EXPECT_EQ(states, (std::vector<lock_state>{lock_state::acquiring, lock_state::held, lock_state::released}));
}

// k leases are all or none: a request for more than are free times out and returns the ones it took.
TEST_F(semaphore_test, SeveralLeasesAreAllOrNone) {
  asio::io_context io;
  auto c = test::new_client(io, connect_string());
  semaphore holder(*c, path(), 3);
  semaphore other(*c, path(), 3);
  run_co(io, [&]() -> asio::awaitable<void> {
    co_await holder.async_acquire(2, 5s, use_awaitable);
    EXPECT_EQ(holder.lease_paths().size(), 2U);
    EXPECT_EQ((co_await test::children_of(*c, leases())).size(), 2U);
    auto [ec] = co_await other.async_acquire(2, 300ms, tuple_awaitable);
    EXPECT_EQ(ec, lock_errc::timeout);
    EXPECT_EQ(other.state(), lock_state::released);
    EXPECT_TRUE(co_await test::wait_for_children(*c, leases(), 2));
    EXPECT_TRUE(co_await test::wait_for_children(*c, locks(), 0));
    auto [one] = co_await other.async_acquire(1, 0ms, tuple_awaitable);
    EXPECT_FALSE(one) << one.message();
    co_await other.async_release(use_awaitable);
    co_await holder.async_release(use_awaitable);
    co_await other.async_acquire(3, 5s, use_awaitable);
    EXPECT_EQ((co_await test::children_of(*c, leases())).size(), 3U);
    co_await other.async_release(use_awaitable);
    EXPECT_TRUE((co_await test::children_of(*c, leases())).empty());
  }());
}

// A contender that gives up — try-once, timeout, cancellation at every step, destruction — leaves no lease node
// and no mutex node behind; a waiter is granted once a holder releases.
TEST_F(semaphore_test, GivingUpLeavesNothing) {
  asio::io_context io;
  auto c = test::new_client(io, connect_string());
  semaphore a(*c, path(), 2);
  semaphore b(*c, path(), 2);
  run_co(io, [&]() -> asio::awaitable<void> {
    co_await a.async_acquire(5s, use_awaitable);
    co_await b.async_acquire(5s, use_awaitable);
  }());
  const auto only_holders_left = [&] {
    return run_co(io, [&]() -> asio::awaitable<bool> {
      const bool leases_ok = co_await test::wait_for_children(*c, leases(), 2);
      const bool locks_ok = co_await test::wait_for_children(*c, locks(), 0);
      co_return leases_ok&& locks_ok;
    }());
  };
  {
    semaphore waiter(*c, path(), 2);
    auto ec = run_co(io, [&]() -> asio::awaitable<std::error_code> {
      auto [e] = co_await waiter.async_acquire(0ms, tuple_awaitable);
      co_return e;
    }());
    EXPECT_EQ(ec, lock_errc::timeout);
    EXPECT_TRUE(only_holders_left());
    ec = run_co(io, [&]() -> asio::awaitable<std::error_code> {
      auto [e] = co_await waiter.async_acquire(200ms, tuple_awaitable);
      co_return e;
    }());
    EXPECT_EQ(ec, lock_errc::timeout);
    EXPECT_TRUE(only_holders_left());
  }
  // Cancel after k turns of the event loop: before anything was sent, with the mutex, the create or the listing
  // in flight, and while waiting.
  for (int k = 0; k < 16; ++k) {
    semaphore waiter(*c, path(), 2);
    asio::cancellation_signal cancel;
    std::optional<std::error_code> result;
    waiter.async_acquire(30s, asio::bind_cancellation_slot(cancel.slot(), [&](std::error_code ec) { result = ec; }));
    for (int turn = 0; turn < k; ++turn) io.run_one_for(1s);
    cancel.emit(asio::cancellation_type::terminal);
    ASSERT_TRUE(test::run_until(
        io, [&] { return result.has_value(); }, 5s));
    EXPECT_EQ(*result, lock_errc::cancelled) << "k=" << k;
    EXPECT_EQ(waiter.state(), lock_state::released);
    EXPECT_TRUE(only_holders_left()) << "k=" << k;
  }
  {  // destroyed while surely waiting (its lease node exists, it holds the mutex)
    std::optional<std::error_code> result;
    {
      semaphore waiter(*c, path(), 2);
      waiter.async_acquire(30s, [&](std::error_code ec) { result = ec; });
      EXPECT_TRUE(run_co(
          io, [&]() -> asio::awaitable<bool> { co_return co_await test::wait_for_children(*c, leases(), 3); }()));
    }
    ASSERT_TRUE(test::run_until(
        io, [&] { return result.has_value(); }, 5s));
    EXPECT_EQ(*result, lock_errc::cancelled);
    EXPECT_TRUE(only_holders_left());
  }
  {  // a waiter is granted when a holder releases, and the mutex is then free
    semaphore waiter(*c, path(), 2);
    std::optional<std::error_code> result;
    waiter.async_acquire(30s, [&](std::error_code ec) { result = ec; });
    EXPECT_TRUE(
        run_co(io, [&]() -> asio::awaitable<bool> { co_return co_await test::wait_for_children(*c, leases(), 3); }()));
    EXPECT_FALSE(result.has_value());
    run_co(io, [&]() -> asio::awaitable<void> { co_await a.async_release(use_awaitable); }());
    ASSERT_TRUE(test::run_until(
        io, [&] { return result.has_value(); }, 10s));
    EXPECT_FALSE(*result) << result->message();
    EXPECT_TRUE(only_holders_left());
    run_co(io, [&]() -> asio::awaitable<void> { co_await waiter.async_release(use_awaitable); }());
  }
  {  // destroying a holder returns its lease
    { semaphore gone(*c, path(), 2); }
    run_co(io, [&]() -> asio::awaitable<void> { co_await b.async_release(use_awaitable); }());
    auto holder = std::make_unique<semaphore>(*c, path(), 2);
    run_co(io, [&]() -> asio::awaitable<void> { co_await holder->async_acquire(5s, use_awaitable); }());
    holder.reset();
    EXPECT_TRUE(
        run_co(io, [&]() -> asio::awaitable<bool> { co_return co_await test::wait_for_children(*c, leases(), 0); }()));
  }
}

// Someone deletes our lease node: lost is signalled (listener and async_wait_lost), release reports it.
TEST_F(semaphore_test, DeletedLeaseIsLost) {
  asio::io_context io;
  auto c = test::new_client(io, connect_string());
  auto other = test::new_client(io, connect_string());
  semaphore s(*c, path(), 2);
  std::vector<recipes::lock_event> events;
  s.set_listener([&](const recipes::lock_event& e) { events.push_back(e); });
  run_co(io, [&]() -> asio::awaitable<void> { co_await s.async_acquire(2, 5s, use_awaitable); }());
  std::optional<std::error_code> lost;
  s.async_wait_lost([&](std::error_code ec) { lost = ec; });
  const std::string victim = s.lease_paths().at(1);
  run_co(io, [&]() -> asio::awaitable<void> { co_await other->async_remove(victim, any_version, use_awaitable); }());
  ASSERT_TRUE(test::run_until(
      io, [&] { return lost.has_value(); }, 10s));
  EXPECT_EQ(*lost, lock_errc::lock_lost);
  EXPECT_EQ(s.state(), lock_state::lost);
  ASSERT_FALSE(events.empty());
  EXPECT_EQ(events.back().reason, lock_errc::node_deleted);
  run_co(io, [&]() -> asio::awaitable<void> {
    // The remaining lease goes too: a lost holder must not keep counting against the others.
    EXPECT_TRUE(co_await test::wait_for_children(*c, leases(), 0));
    auto [ec] = co_await s.async_release(tuple_awaitable);
    EXPECT_EQ(ec, lock_errc::lock_lost);
    EXPECT_EQ(s.state(), lock_state::released);
  }());
}

// No server answers: the holder gives its lease up by its own clock (the safety margin), before the server could
// expire the session.
TEST_F(semaphore_test, LostWhenNoServerAnswers) {
  asio::io_context io;
  auto c = test::new_client(io, connect_string(), 2000ms);
  semaphore s(*c, path(), 2);
  std::vector<recipes::lock_event> events;
  s.set_listener([&](const recipes::lock_event& e) { events.push_back(e); });
  run_co(io, [&]() -> asio::awaitable<void> { co_await s.async_acquire(5s, use_awaitable); }());
  std::optional<std::error_code> lost;
  s.async_wait_lost([&](std::error_code ec) { lost = ec; });
  cluster().pause(0);
  const bool signalled = test::run_until(
      io, [&] { return lost.has_value(); }, 20s);
  cluster().resume(0);
  ASSERT_TRUE(signalled);
  EXPECT_EQ(*lost, lock_errc::lock_lost);
  EXPECT_EQ(s.state(), lock_state::lost);
  ASSERT_FALSE(events.empty());
  EXPECT_TRUE(events.back().reason == lock_errc::safety_margin_passed ||
              events.back().reason == client_error::session_expired)
      << events.back().reason.message();
}

}  // namespace
}  // namespace zkwire
