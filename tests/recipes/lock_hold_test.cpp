// zkwire::recipes::lock_hold (lock::async_acquire_hold) against a real standalone ZooKeeper: a coroutine that
// throws while holding releases the lock (another session then gets it), an explicit release empties the hold, a
// hold of an earlier grant does not release a later one, and moving a hold moves the ownership.

#include <gtest/gtest.h>

#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "lock_test_support.hpp"
#include "support/zk_test.hpp"

namespace zkwire {
namespace {

using asio::use_awaitable;
using recipes::lock;
using recipes::lock_errc;
using recipes::lock_hold;
using recipes::lock_state;
using test::run_co;
using test::tuple_awaitable;
using namespace std::chrono_literals;

class lock_hold_test : public test::standalone_test {
 protected:
  [[nodiscard]] std::string dir() const { return root() + "/locks/hold"; }
};

TEST_F(lock_hold_test, ACoroutineThatThrowsWhileHoldingReleasesTheLock) {
  asio::io_context io;
  auto c = test::new_client(io, connect_string());
  auto other_client = test::new_client(io, connect_string());
  lock l(*c, dir());
  lock other(*other_client, dir());
  std::string node;
  const auto work = [&]() -> asio::awaitable<void> {
    auto acquire = l.async_acquire_hold(5s, tuple_awaitable);
    auto [ec, hold] = co_await std::move(acquire);
    EXPECT_FALSE(ec) << ec.message();
    EXPECT_TRUE(hold.owns_lock());
    node = l.node_path();
    co_await test::settle(*c);
    throw std::runtime_error("the guarded work failed");
  };
  bool threw = false;
  try {
    run_co(io, work());
  } catch (const std::runtime_error&) {
    threw = true;
  }
  EXPECT_TRUE(threw);
  EXPECT_FALSE(node.empty());
  EXPECT_EQ(l.state(), lock_state::released);
  run_co(io, [&]() -> asio::awaitable<void> {
    // The release happened: another session is granted, and our node is gone.
    co_await other.async_acquire(10s, use_awaitable);
    EXPECT_FALSE((co_await c->async_exists(node, use_awaitable)).has_value());
    co_await other.async_release(use_awaitable);
  }());
}

TEST_F(lock_hold_test, ExplicitReleaseEmptiesTheHoldAndStaleHoldsReleaseNothing) {
  asio::io_context io;
  auto c = test::new_client(io, connect_string());
  lock l(*c, dir());
  run_co(io, [&]() -> asio::awaitable<void> {
    auto first = co_await l.async_acquire_hold(5s, use_awaitable);
    EXPECT_TRUE(first.owns_lock());
    co_await first.async_release(use_awaitable);
    EXPECT_FALSE(first.owns_lock());
    EXPECT_EQ(l.state(), lock_state::released);
    auto [again_ec] = co_await first.async_release(tuple_awaitable);
    EXPECT_EQ(again_ec, lock_errc::not_held);

    // A hold of grant 2, released through the lock; grant 3 is then held by the lock itself.
    std::optional<lock_hold> stale(co_await l.async_acquire_hold(5s, use_awaitable));
    co_await l.async_release(use_awaitable);
    EXPECT_FALSE(stale->owns_lock());
    co_await l.async_acquire(5s, use_awaitable);
    const auto node = l.node_path();
    stale.reset();  // must not release grant 3
    co_await test::settle(*c);
    EXPECT_EQ(l.state(), lock_state::held);
    EXPECT_TRUE((co_await c->async_exists(node, use_awaitable)).has_value());
    co_await l.async_release(use_awaitable);
  }());
}

TEST_F(lock_hold_test, MovingAHoldMovesTheOwnership) {
  asio::io_context io;
  auto c = test::new_client(io, connect_string());
  lock l(*c, dir());
  run_co(io, [&]() -> asio::awaitable<void> {
    auto source = std::make_unique<lock_hold>(co_await l.async_acquire_hold(5s, use_awaitable));
    const auto node = l.node_path();
    auto target = std::make_unique<lock_hold>(std::move(*source));
    EXPECT_FALSE(source->owns_lock());
    EXPECT_TRUE(target->owns_lock());
    source.reset();
    co_await test::settle(*c);
    EXPECT_EQ(l.state(), lock_state::held);
    target.reset();  // releases in the background
    EXPECT_EQ(l.state(), lock_state::released);
    co_await test::settle(*c);  // the background delete was sent before these
    EXPECT_FALSE((co_await c->async_exists(node, use_awaitable)).has_value());
  }());
}

}  // namespace
}  // namespace zkwire
