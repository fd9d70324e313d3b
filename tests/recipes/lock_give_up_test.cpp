// Acquires that give up while waiting leave no watch behind: 1,000 timed-out attempts against a lock held all
// along leave neither a server watch nor a client watcher on the holder's node (a try-lock loop must not grow the
// client without bound), and another holder of the same client keeps watching its own node after a waiter of that
// client removed the client's watches on it.

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
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

  // Whether the server's watch table shows `session` watching `path`.
  [[nodiscard]] bool server_watches(const std::string& path, std::int64_t session) const {
    const auto table = test::parse_wchp(cluster().four_letter(0, "wchp"));
    const auto it = table.find(path);
    if (it == table.end()) return false;
    std::ostringstream hex;
    hex << "0x" << std::hex << session;
    return std::find(it->second.begin(), it->second.end(), hex.str()) != it->second.end();
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
  // Server side: the waiters' session stops watching the holder's node once the removals went through.
  const auto session = c->session_id();
  const bool removed = run_co(io, test::eventually([&] { return !server_watches(held_node, session); }, 30s));
  EXPECT_TRUE(removed) << "the waiters' session still watches " << held_node;
  // Every timed-out node is gone too (deleted in the background after each timeout), and the events those
  // deletions fired for the other waiters have been delivered: the wakeups counted so far are final.
  EXPECT_TRUE(run_co(io, test::wait_for_children(*c, dir(), 1, 30s)));
  run_co(io, test::settle(*c));
  std::uint64_t wakeups_before = 0;
  for (const auto& w : waiters) wakeups_before += w->wakeups();

  // Client side: a watcher left in the client would fire when the holder's node is deleted and count a wakeup
  // on its lock object. The release's delete is ordered before our create, so that event reaches the waiters'
  // client before the reply that grants the next acquire.
  run_co(io, [&]() -> asio::awaitable<void> {
    co_await holder.async_release(use_awaitable);
    co_await waiters[0]->async_acquire(10s, use_awaitable);
    co_await waiters[0]->async_release(use_awaitable);
  }());
  std::uint64_t wakeups_after = 0;
  for (const auto& w : waiters) wakeups_after += w->wakeups();
  EXPECT_EQ(wakeups_after, wakeups_before) << "watchers of timed-out attempts were still registered";
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
    EXPECT_TRUE(co_await test::eventually([&] { return holder.state() == lock_state::lost; }));
    auto [ec] = co_await holder.async_release(tuple_awaitable);
    EXPECT_EQ(ec, lock_errc::lock_lost);
  }());
  ASSERT_FALSE(states.empty());
  EXPECT_NE(std::find(states.begin(), states.end(), lock_state::lost), states.end());
}

}  // namespace
}  // namespace zkwire
