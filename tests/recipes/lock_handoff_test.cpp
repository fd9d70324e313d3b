// zkwire::recipes::lock handed around quickly by several lock objects on several sessions (what `zkwire bench
// --ops lock` does), with and without short timeouts: every successful acquire leaves the object held with one
// hold and the release succeeds; a failed acquire (timeout) leaves it released; no two objects hold at once; no
// acquire hangs and no node is left behind.

#include <gtest/gtest.h>

#include <memory>
#include <random>
#include <string>
#include <vector>

#include "lock_test_support.hpp"
#include "support/zk_test.hpp"

namespace zkwire {
namespace {

using recipes::lock;
using recipes::lock_errc;
using recipes::lock_state;
using test::run_co;
using test::tuple_awaitable;
using namespace std::chrono_literals;

class lock_handoff_test : public test::standalone_test {
 protected:
  [[nodiscard]] std::string dir() const { return root() + "/locks/handoff"; }
};

struct tally {
  int target = 0;      // grants to reach, over all objects
  int grants = 0;      // successful acquires
  int timeouts = 0;    // acquires that ended with lock_errc::timeout
  int holders = 0;     // objects holding right now
  int overlaps = 0;    // grants while another object held
  int violations = 0;  // anything else that went wrong (reported with ADD_FAILURE)
};

void violation(tally& t, const std::string& what) {
  ++t.violations;
  ADD_FAILURE() << what;
}

// One contender: acquire (timeout from `timeouts`, cycling; negative: none), check, release at once.
asio::awaitable<void> contender(client& c, std::string dir, std::vector<std::chrono::milliseconds> timeouts,
                                unsigned seed, tally& t) {
  lock l(c, dir);
  lock_state last_event = lock_state::released;
  l.set_listener([&last_event](const recipes::lock_event& e) { last_event = e.to; });
  std::mt19937 random(seed);
  while (t.grants < t.target && t.violations == 0) {
    const auto timeout = timeouts[random() % timeouts.size()];
    auto acquire = l.async_acquire(timeout, tuple_awaitable);
    auto [ec] = co_await std::move(acquire);
    if (ec == lock_errc::timeout) {
      ++t.timeouts;
      if (l.state() != lock_state::released || l.hold_count() != 0) {
        violation(t, "after a timeout: state " + std::string(recipes::lock_state_name(l.state())));
      }
      continue;
    }
    if (ec) {
      violation(t, "acquire failed: " + ec.message());
      co_return;
    }
    ++t.grants;
    if (++t.holders > 1) ++t.overlaps;
    // Hold across a server round trip: the other contenders run meanwhile, so a second holder would be counted.
    auto inside = c.async_exists(l.node_path(), tuple_awaitable);
    auto [inside_ec, inside_stat] = co_await std::move(inside);
    if (inside_ec || !inside_stat) violation(t, "our node is gone while held");
    if (l.state() != lock_state::held || l.hold_count() != 1 || last_event != lock_state::held ||
        l.node_path().empty()) {
      violation(t, "acquired, but state " + std::string(recipes::lock_state_name(l.state())) + ", hold count " +
                       std::to_string(l.hold_count()) + ", last event " +
                       std::string(recipes::lock_state_name(last_event)));
    }
    --t.holders;
    auto release = l.async_release(tuple_awaitable);
    auto [release_ec] = co_await std::move(release);
    if (release_ec) {
      violation(t, "release failed: " + release_ec.message());
      co_return;
    }
    if (l.state() != lock_state::released || last_event != lock_state::released) {
      violation(t, "released, but state " + std::string(recipes::lock_state_name(l.state())));
    }
  }
}

void run_handoff(const std::string& servers, const std::string& dir, std::size_t clients, std::size_t locks_per_client,
                 int grants, const std::vector<std::chrono::milliseconds>& timeouts, tally& t) {
  asio::io_context io;
  std::vector<std::unique_ptr<client>> cs;
  for (std::size_t i = 0; i < clients; ++i) cs.push_back(test::new_client(io, servers));
  t.target = grants;
  std::vector<asio::awaitable<void>> tasks;
  for (std::size_t i = 0; i < clients * locks_per_client; ++i) {
    tasks.push_back(contender(*cs[i % clients], dir, timeouts, static_cast<unsigned>(i + 1), t));
  }
  test::run_all(io, std::move(tasks), 60s);
  EXPECT_EQ(t.violations, 0);
  EXPECT_EQ(t.overlaps, 0);
  EXPECT_GE(t.grants, grants);
  // Nothing left behind: every node is deleted (in the background for the timed-out acquires).
  const bool empty = run_co(io, test::wait_for_children(*cs[0], dir, 0, 10s));
  EXPECT_TRUE(empty);
}

TEST_F(lock_handoff_test, HandsTheLockAroundWithoutTimeouts) {
  tally t;
  const std::vector<std::chrono::milliseconds> forever(1, std::chrono::milliseconds(-1));
  run_handoff(connect_string(), dir(), 3, 1, 1000, forever, t);
}

TEST_F(lock_handoff_test, HandsTwoObjectsPerSessionAround) {
  tally t;
  const std::vector<std::chrono::milliseconds> forever(1, std::chrono::milliseconds(-1));
  run_handoff(connect_string(), dir(), 2, 2, 800, forever, t);
}

// Short timeouts race the grants: some acquires time out while their node is about to be (or was just) granted.
TEST_F(lock_handoff_test, HandsTheLockAroundWithShortTimeouts) {
  tally t;
  std::vector<std::chrono::milliseconds> mixed;
  for (const int ms : {-1, 0, 1, 1, 2, 3, 5}) mixed.emplace_back(ms);
  run_handoff(connect_string(), dir(), 4, 1, 800, mixed, t);
  EXPECT_GT(t.timeouts, 0);
}

}  // namespace
}  // namespace zkwire
