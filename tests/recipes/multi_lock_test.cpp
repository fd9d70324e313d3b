// multi_lock against a real server: opposite orders neither deadlock nor overlap, a timeout or a cancellation on
// the second lock gives the first back (the server shows no node of ours), losing one member loses the whole, and
// every member has its own fencing token.

#include <gtest/gtest.h>

#include <asio/bind_cancellation_slot.hpp>
#include <asio/cancellation_signal.hpp>
#include <memory>
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
using recipes::multi_lock;
using test::run_co;
using test::tuple_awaitable;
using namespace std::chrono_literals;

class multi_lock_test : public test::standalone_test {
 protected:
  [[nodiscard]] std::string a() const { return root() + "/locks/a"; }
  [[nodiscard]] std::string b() const { return root() + "/locks/b"; }
};

// The overlap oracle: who is inside the section guarded by both locks.
struct section {
  int inside = 0;
  int overlaps = 0;
  int entries = 0;
};

asio::awaitable<void> take_turns(multi_lock& m, section& s, int rounds, std::vector<std::error_code>& errors) {
  for (int i = 0; i < rounds; ++i) {
    // A deadlock (each holding one lock and waiting for the other) shows as a timeout.
    auto acquire = m.async_acquire(10s, tuple_awaitable);
    auto [ec] = co_await std::move(acquire);
    if (ec) {
      errors.push_back(ec);
      co_return;
    }
    if (++s.inside != 1) ++s.overlaps;
    ++s.entries;
    co_await test::sleep_for(2ms);  // suspended inside: the other side runs meanwhile
    --s.inside;
    auto release = m.async_release(tuple_awaitable);
    auto [release_ec] = co_await std::move(release);
    if (release_ec) errors.push_back(release_ec);
  }
}

TEST_F(multi_lock_test, OppositeOrdersNeitherDeadlockNorOverlap) {
  asio::io_context io;
  auto c1 = test::new_client(io, connect_string());
  auto c2 = test::new_client(io, connect_string());
  multi_lock forward(*c1, {a(), b()});
  multi_lock backward(*c2, {b(), a()});
  EXPECT_EQ(backward.directories(), (std::vector<std::string>{a(), b()}));
  section s;
  std::vector<std::error_code> errors;
  std::vector<asio::awaitable<void>> tasks;
  tasks.push_back(take_turns(forward, s, 40, errors));
  tasks.push_back(take_turns(backward, s, 40, errors));
  test::run_all(io, std::move(tasks), 300s);
  for (const auto& ec : errors) ADD_FAILURE() << "acquire/release failed: " << ec.message();
  EXPECT_EQ(s.entries, 80);
  EXPECT_EQ(s.overlaps, 0);
}

// Another client holds B: acquiring {A,B} times out, and the node it had taken under A is deleted.
TEST_F(multi_lock_test, TimeoutOnTheSecondLockGivesTheFirstBack) {
  asio::io_context io;
  auto holder_client = test::new_client(io, connect_string());
  auto c = test::new_client(io, connect_string());
  lock holder(*holder_client, b());
  multi_lock m(*c, {b(), a()});
  run_co(io, [&]() -> asio::awaitable<void> {
    co_await holder.async_acquire(5s, use_awaitable);
    auto acquire = m.async_acquire(1500ms, tuple_awaitable);
    auto [ec] = co_await std::move(acquire);
    EXPECT_EQ(ec, lock_errc::timeout);
    EXPECT_EQ(m.state(), lock_state::released);
    EXPECT_EQ(m.fencing_token(a()), 0);
    // A was ours during the wait (the server listed our node there): now nothing of ours is left under A or B.
    const bool a_empty = co_await test::co_eventually([&] { return m.member(a())->node_path().empty(); });
    EXPECT_TRUE(a_empty);
    EXPECT_TRUE(co_await test::wait_for_children(*holder_client, a(), 0));
    EXPECT_TRUE(co_await test::wait_for_children(*holder_client, b(), 1));
    EXPECT_EQ((co_await test::children_of(*holder_client, b())).front(), test::name_of(holder.node_path()));
    // And the multi_lock takes both once B is free.
    co_await holder.async_release(use_awaitable);
    co_await m.async_acquire(5s, use_awaitable);
    EXPECT_TRUE(m.owns_lock());
    co_await m.async_release(use_awaitable);
  }());
}

// Cancelled while waiting for B with A taken: cancelled, and nothing of ours is left on the server.
TEST_F(multi_lock_test, CancellationWhileWaitingGivesEverythingBack) {
  asio::io_context io;
  auto holder_client = test::new_client(io, connect_string());
  auto c = test::new_client(io, connect_string());
  lock holder(*holder_client, b());
  multi_lock m(*c, {a(), b()});
  asio::cancellation_signal cancel;
  std::error_code result = make_error_code(lock_errc::not_held);
  bool done = false;
  run_co(io, [&]() -> asio::awaitable<void> {
    co_await holder.async_acquire(5s, use_awaitable);
    m.async_acquire(asio::bind_cancellation_slot(cancel.slot(), [&](std::error_code ec) {
      result = ec;
      done = true;
    }));
    // Waiting: our node under A (held) and behind the holder's under B.
    EXPECT_TRUE(co_await test::wait_for_children(*holder_client, a(), 1));
    EXPECT_TRUE(co_await test::wait_for_children(*holder_client, b(), 2));
    EXPECT_EQ(m.state(), lock_state::acquiring);
    cancel.emit(asio::cancellation_type::terminal);
    EXPECT_TRUE(co_await test::co_eventually([&] { return done; }));
    EXPECT_EQ(result, lock_errc::cancelled);
    EXPECT_EQ(m.state(), lock_state::released);
    EXPECT_TRUE(co_await test::wait_for_children(*holder_client, a(), 0));
    EXPECT_TRUE(co_await test::wait_for_children(*holder_client, b(), 1));
  }());
}

// A is taken, then lost (another client deletes our node there) while we wait behind the holder of B. When B comes
// to us we do not hold both: the acquire fails with lock_lost, the multi_lock is released (not held, not lost), and
// the node it got under B is given back too, so nothing of ours is left under either.
TEST_F(multi_lock_test, MemberLostWhileWaitingForALaterOneFailsAndGivesEverythingBack) {
  asio::io_context io;
  auto holder_client = test::new_client(io, connect_string());
  auto c = test::new_client(io, connect_string());
  lock holder(*holder_client, b());
  multi_lock m(*c, {a(), b()});
  std::error_code result = make_error_code(lock_errc::not_held);
  bool done = false;
  run_co(io, [&]() -> asio::awaitable<void> {
    co_await holder.async_acquire(5s, use_awaitable);
    m.async_acquire(30s, [&](std::error_code ec) {
      result = ec;
      done = true;
    });
    // Waiting: our node under A (held) and behind the holder's under B.
    EXPECT_TRUE(co_await test::wait_for_children(*holder_client, a(), 1));
    EXPECT_TRUE(co_await test::wait_for_children(*holder_client, b(), 2));
    ZKWIRE_CO_ASSERT(m.member(a())->owns_lock());
    const std::string a_node = m.member(a())->node_path();
    co_await holder_client->async_remove(a_node, any_version, use_awaitable);
    // A's loss is seen (by A's own watch) before B comes free: B is then granted with A already gone.
    EXPECT_TRUE(co_await test::co_eventually([&] { return m.member(a())->state() == lock_state::lost; }));
    co_await holder.async_release(use_awaitable);
    EXPECT_TRUE(co_await test::co_eventually([&] { return done; }));
    EXPECT_EQ(result, lock_errc::lock_lost);
    EXPECT_EQ(m.state(), lock_state::released);
    EXPECT_FALSE(m.owns_lock());
    EXPECT_TRUE(co_await test::wait_for_children(*holder_client, a(), 0));
    EXPECT_TRUE(co_await test::wait_for_children(*holder_client, b(), 0));
    EXPECT_EQ(co_await test::children_of(*holder_client, a()), std::vector<std::string>{});
    EXPECT_EQ(co_await test::children_of(*holder_client, b()), std::vector<std::string>{});
    // Usable again: both taken.
    co_await m.async_acquire(5s, use_awaitable);
    EXPECT_TRUE(m.owns_lock());
    co_await m.async_release(use_awaitable);
  }());
}

// Someone deletes our node under B: the multi_lock is lost (listener, wait_lost, lost_slot), and A is given back.
TEST_F(multi_lock_test, LosingOneMemberLosesTheWhole) {
  asio::io_context io;
  auto admin = test::new_client(io, connect_string());
  auto c = test::new_client(io, connect_string());
  multi_lock m(*c, {a(), b()});
  std::vector<lock_state> states;
  m.set_listener([&](const recipes::lock_event& e) { states.push_back(e.to); });
  bool slot_fired = false;
  m.lost_slot().assign([&](asio::cancellation_type) { slot_fired = true; });
  run_co(io, [&]() -> asio::awaitable<void> {
    co_await m.async_acquire(5s, use_awaitable);
    ZKWIRE_CO_ASSERT(m.owns_lock());
    // Per-path fencing tokens: each member's own node, distinct.
    const auto token_a = m.fencing_token(a());
    const auto token_b = m.fencing_token(b());
    EXPECT_GT(token_a, 0);
    EXPECT_GT(token_b, 0);
    EXPECT_NE(token_a, token_b);
    EXPECT_EQ(token_a, m.member(a())->fencing_token());
    EXPECT_EQ(m.fencing_token(root() + "/locks/none"), 0);
    std::error_code waited;
    bool wait_done = false;
    m.async_wait_lost([&](std::error_code ec) {
      waited = ec;
      wait_done = true;
    });
    const std::string a_node = m.member(a())->node_path();
    co_await admin->async_remove(m.member(b())->node_path(), any_version, use_awaitable);
    EXPECT_TRUE(co_await test::co_eventually([&] { return wait_done; }));
    EXPECT_EQ(waited, lock_errc::lock_lost);
    EXPECT_EQ(m.state(), lock_state::lost);
    EXPECT_TRUE(slot_fired);
    ZKWIRE_CO_ASSERT(!states.empty());
    EXPECT_EQ(states.back(), lock_state::lost);
    // The member still held is given back at once, without waiting for async_release.
    EXPECT_TRUE(co_await test::wait_for_children(*admin, a(), 0));
    auto [exists_ec, st] = co_await admin->async_exists(a_node, tuple_awaitable);
    EXPECT_FALSE(exists_ec);
    EXPECT_FALSE(st.has_value());
    auto release = m.async_release(tuple_awaitable);
    auto [release_ec] = co_await std::move(release);
    EXPECT_EQ(release_ec, lock_errc::lock_lost);
    EXPECT_EQ(m.state(), lock_state::released);
    // Usable again.
    co_await m.async_acquire(5s, use_awaitable);
    EXPECT_TRUE(m.owns_lock());
    co_await m.async_release(use_awaitable);
  }());
}

}  // namespace
}  // namespace zkwire
