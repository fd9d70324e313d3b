// Acquires that give up while waiting leave no watch behind: after 1,000 timed-out attempts against a lock held
// all along, the server's watch table shows no watch of the waiters' session on the holder's node (the client
// has no accessor for its own watch registry; a successful removeWatches empties the client's watchers of the
// path too, so a try-lock loop no longer grows the client), and another holder of the same client keeps watching its
// own node after a waiter of that client removed the client's watches on it. Also: a client destroyed under its lock
// objects ends their acquires and holds, the lock objects outlive it safely, and a lock that held does not keep a
// closed client's event loop running.

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <optional>
#include <sstream>
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
using test::tuple_awaitable;
using namespace std::chrono_literals;

class lock_give_up_test : public test::standalone_test {
 protected:
  [[nodiscard]] std::string dir() const { return root() + "/locks/give-up"; }

  // The sessions the server's watch table shows watching `path` ("0x..." ids); empty when the path is not listed.
  [[nodiscard]] std::vector<std::string> server_watchers(const std::string& path) const {
    const auto table = test::parse_wchp(cluster().four_letter(0, "wchp"));
    const auto it = table.find(path);
    return it == table.end() ? std::vector<std::string>{} : it->second;
  }
  // Closes `c` and runs `io` until it has nothing left to do: how long that took (the close must succeed).
  static std::chrono::steady_clock::duration close_and_run(asio::io_context& io, client& c) {
    std::optional<std::error_code> closed;
    c.async_close([&](std::error_code ec) { closed = ec; });
    const auto start = std::chrono::steady_clock::now();
    io.restart();
    io.run();
    const auto elapsed = std::chrono::steady_clock::now() - start;
    EXPECT_EQ(closed.value_or(make_error_code(std::errc::timed_out)), std::error_code{}) << "the close failed";
    return elapsed;
  }
  static std::string session_hex(std::int64_t session) {
    std::ostringstream hex;
    hex << "0x" << std::hex << session;
    return hex.str();
  }
};

TEST_F(lock_give_up_test, ThousandTimedOutAttemptsLeaveNoWatchBehind) {
  asio::io_context io;
  auto holder_client = test::new_client(io, connect_string());
  auto c = test::new_client(io, connect_string());
  lock holder(*holder_client, dir());
  std::vector<std::unique_ptr<lock>> waiters;
  for (int i = 0; i < 4; ++i) waiters.push_back(std::make_unique<lock>(*c, dir()));
  run_co(io, [&]() -> asio::awaitable<void> {
    co_await holder.async_acquire(5s, use_awaitable);
    co_await c->async_connect(use_awaitable);
  }());
  const std::string held_node = holder.node_path();

  int timeouts = 0;
  int other = 0;
  std::vector<asio::awaitable<void>> tasks;
  for (auto& w : waiters) {
    tasks.push_back([](lock& l, int& timed_out, int& failed) -> asio::awaitable<void> {
      for (int i = 0; i < 250; ++i) {
        // Long enough to get past the create and the listing to the watch on most attempts.
        auto attempt = l.async_acquire(std::chrono::milliseconds(10 + i % 20), tuple_awaitable);
        auto [ec] = co_await std::move(attempt);
        if (ec == lock_errc::timeout) {
          ++timed_out;
        } else {
          ++failed;
        }
      }
    }(*w, timeouts, other));
  }
  test::run_all(io, std::move(tasks), 300s);
  EXPECT_EQ(timeouts, 1000);
  EXPECT_EQ(other, 0);
  // The waiters' session stops watching the holder's node once the removals went through. The holder itself
  // watches its node all along: its entry shows the table was read (an empty reply proves nothing).
  const auto waiters_session = session_hex(c->session_id());
  const auto holder_session = session_hex(holder_client->session_id());
  const bool removed = run_co(io, test::co_eventually(
                                      [&] {
                                        const auto watchers = server_watchers(held_node);
                                        const auto has = [&](const std::string& s) {
                                          return std::find(watchers.begin(), watchers.end(), s) != watchers.end();
                                        };
                                        return has(holder_session) && !has(waiters_session);
                                      },
                                      30s));
  EXPECT_TRUE(removed) << "the waiters' session still watches " << held_node << " (or the table was not read)";
  // Every timed-out node is gone too (deleted in the background after each timeout).
  EXPECT_TRUE(run_co(io, test::wait_for_children(*c, dir(), 1, 30s)));
}

// Removing the client's watches on the holder's node (a waiter of the same client gave up) must not blind the
// holder: it watches its node again, so a deletion is still seen as a loss.
TEST_F(lock_give_up_test, AHolderOfTheSameClientKeepsWatchingItsNode) {
  asio::io_context io;
  auto c = test::new_client(io, connect_string());
  auto admin = test::new_client(io, connect_string());
  lock holder(*c, dir());
  lock waiter(*c, dir());
  std::vector<lock_state> states;
  holder.set_listener([&](const recipes::lock_event& e) { states.push_back(e.to); });
  run_co(io, [&]() -> asio::awaitable<void> {
    co_await holder.async_acquire(5s, use_awaitable);
    for (int i = 0; i < 5; ++i) {
      auto attempt = waiter.async_acquire(200ms, tuple_awaitable);
      auto [ec] = co_await std::move(attempt);
      EXPECT_EQ(ec, lock_errc::timeout);
    }
    EXPECT_TRUE(co_await test::wait_for_children(*c, dir(), 1));
    co_await test::settle(*c);
    EXPECT_EQ(holder.state(), lock_state::held);
    co_await admin->async_remove(holder.node_path(), any_version, use_awaitable);
    EXPECT_TRUE(co_await test::co_eventually([&] { return holder.state() == lock_state::lost; }));
    auto [ec] = co_await holder.async_release(tuple_awaitable);
    EXPECT_EQ(ec, lock_errc::lock_lost);
  }());
  ASSERT_FALSE(states.empty());
  EXPECT_NE(std::find(states.begin(), states.end(), lock_state::lost), states.end());
}

// The lock objects of a client share one link to it, which its close marks gone. Destroying the client ends a waiting
// acquire with client_error::closed and a hold with lost; the objects then outlive the client without touching it
// (the sanitizer build would see a use after free). A new client made at the same address, while a lock object of
// the old one still holds the old link, gets a working link of its own.
TEST_F(lock_give_up_test, ADestroyedClientEndsItsLocksAndANewClientLocksAgain) {
  asio::io_context io;
  auto admin = test::new_client(io, connect_string());
  // A short session: the destroyed client's session (and its waiting node) stays until the server expires it.
  const auto options = test::client_options_for(connect_string(), 2000ms);
  std::optional<client> c(std::in_place, io.get_executor(), options);
  lock holder(*admin, dir());
  auto waiter = std::make_unique<lock>(*c, dir());
  lock other(*c, dir() + "-other");
  std::optional<std::error_code> waited;
  run_co(io, [&]() -> asio::awaitable<void> {
    co_await holder.async_acquire(5s, use_awaitable);
    co_await other.async_acquire(5s, use_awaitable);
    waiter->async_acquire([&](std::error_code ec) { waited = ec; });
    ZKWIRE_CO_ASSERT(co_await test::wait_for_children(*admin, dir(), 2));
  }());
  c.reset();
  run_co(io, [&]() -> asio::awaitable<void> {
    while (!waited) co_await test::sleep_for(10ms);
  }());
  EXPECT_EQ(*waited, client_error::closed) << waited->message();
  EXPECT_EQ(waiter->state(), lock_state::released);
  EXPECT_EQ(other.state(), lock_state::lost);
  run_co(io, [&]() -> asio::awaitable<void> {
    auto again = waiter->async_acquire(1s, tuple_awaitable);
    auto [ec] = co_await std::move(again);
    EXPECT_EQ(ec, client_error::closed) << ec.message();
  }());
  waiter.reset();

  c.emplace(io.get_executor(), options);  // the same address; `other` still holds the old link
  lock l(*c, dir());
  std::optional<std::error_code> acquired;
  l.async_acquire([&](std::error_code ec) { acquired = ec; });
  run_co(io, [&]() -> asio::awaitable<void> {
    co_await holder.async_release(use_awaitable);
    while (!acquired) co_await test::sleep_for(10ms);
    EXPECT_FALSE(*acquired) << acquired->message();
    EXPECT_EQ(l.state(), lock_state::held);
    co_await l.async_release(use_awaitable);
    EXPECT_TRUE((co_await test::children_of(*admin, dir())).empty());
    auto release = other.async_release(tuple_awaitable);
    auto [release_ec] = co_await std::move(release);
    EXPECT_EQ(release_ec, lock_errc::lock_lost) << release_ec.message();
  }());
}

// An acquire with a time limit (20 s) that is granted at once must not leave its limit's wakeup behind: after the
// close, io.run() returns, not when the 20 s are up.
TEST_F(lock_give_up_test, AClosedClientsLoopEndsDespiteAGrantedTimedAcquire) {
  asio::io_context io;
  auto c = test::new_client(io, connect_string(), 30s);
  lock l(*c, dir());
  run_co(io, [&]() -> asio::awaitable<void> { co_await l.async_acquire(20s, use_awaitable); }());
  ASSERT_EQ(l.state(), lock_state::held);
  const auto elapsed = close_and_run(io, *c);
  EXPECT_LT(elapsed, 5s) << "io.run() returned " << std::chrono::duration<double>(elapsed).count()
                         << " s after the close: the acquire's time limit outlived it";
}

// A hold arms a wakeup for its safety margin (session timeout - margin after the last answer) that a release leaves
// pending for the next hold. Once the client is closed nothing may keep the loop running: io.run() returns right
// after the close, not when that wakeup would have fired (22.5 s after the last answer with a 30 s session).
TEST_F(lock_give_up_test, AClosedClientsLoopEndsDespiteAnEarlierHold) {
  asio::io_context io;
  auto c = test::new_client(io, connect_string(), 30s);
  lock l(*c, dir());
  run_co(io, [&]() -> asio::awaitable<void> {
    co_await l.async_acquire(use_awaitable);
    co_await l.async_release(use_awaitable);
  }());
  EXPECT_LT(close_and_run(io, *c), 5s);  // one round trip, really, against the 22.5 s of a wakeup left pending

  // A lock made on the closed client refuses at once.
  lock late(*c, dir());
  std::optional<std::error_code> refused;
  late.async_acquire([&](std::error_code ec) { refused = ec; });
  io.restart();
  io.run();
  ASSERT_TRUE(refused.has_value());
  EXPECT_EQ(*refused, client_error::closed) << refused->message();
}

}  // namespace
}  // namespace zkwire
