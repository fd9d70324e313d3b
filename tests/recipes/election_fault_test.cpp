// The election recipe through the fault-injection proxy (faults/): a leader cut off until its session expires
// reports the loss (by the safety margin, before the expiry lets another participant lead), joins again in a new
// session behind the new leader and leads later with a larger token; a candidate whose session expires joins
// again; a node of another session at our node's path is never led on; a lost create reply is recovered with
// exactly one node; the next in line leads on its predecessor's deletion without listing again, but lists again
// when its connection was lost meanwhile (the events a reconnect replays come in another order).

#include <gtest/gtest.h>

#include <asio/io_context.hpp>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "lock_test_support.hpp"
#include "proxy_test_support.hpp"
#include "support/zk_test.hpp"
#include "zkwire/faults/proxy.hpp"
#include "zkwire/recipes/election.hpp"

namespace zkwire {
namespace {

using asio::use_awaitable;
using recipes::election;
using recipes::election_options;
using recipes::election_state;
using recipes::leadership_change;
using recipes::leadership_event;
using recipes::lock_errc;
using test::run_co;
using namespace std::chrono_literals;

class election_fault_test : public test::proxied_directory_test {
 protected:
  election_fault_test() : proxied_directory_test("election") {}
  // Counts the listings of the election directory that pass the proxy.
  [[nodiscard]] std::function<std::uint64_t()> listing_counter() {
    const auto rule = proxy_->add_rule("request op=getChildren2 path=" + dir_ + " action=pass");
    EXPECT_TRUE(rule.has_value());
    return [this, rule] { return rule ? proxy_->counters(*rule)->matched : 0; };
  }
  // `leader` leads, then `next` (on client `c`, through the proxy) joins and waits behind it after one listing.
  static asio::awaitable<void> queue_behind(election& leader, election& next, client& c,
                                            const std::function<std::uint64_t()>& listed) {
    co_await leader.async_await_leadership(10s, use_awaitable);
    co_await next.async_join(use_awaitable);
    co_await test::settle(c);
    EXPECT_EQ(listed(), 1U);
  }
};

TEST_F(election_fault_test, ALeaderCutOffPastExpiryReportsTheLossFirstAndLeadsAgainLater) {
  auto& proxy = *proxy_;
  auto cut_client = test::new_client(io_, proxy.address(), 2000ms);
  election a(*cut_client, dir_, election_options::with_id("a"));
  election b(*admin_, dir_, election_options::with_id("b"));
  std::vector<leadership_event> a_events;
  int leaders = 0;
  int most_at_once = 0;
  const auto count = [&](const leadership_event& e) {
    leaders += e.change == leadership_change::gained ? 1 : -1;
    most_at_once = std::max(most_at_once, leaders);
  };
  a.set_listener([&](const leadership_event& e) {
    a_events.push_back(e);
    count(e);
  });
  b.set_listener(count);
  run_co(
      io_,
      [&]() -> asio::awaitable<void> {
        co_await a.async_await_leadership(10s, use_awaitable);
        const std::int64_t first_session = cut_client->session_id();
        co_await b.async_join(use_awaitable);
        // Silence a's connection and keep it from reconnecting until the server expired its session.
        const auto refused = proxy.refuse_connections(120s);
        proxy.cut_connections(faults::cut_kind::blackhole);
        ZKWIRE_CO_ASSERT(co_await test::co_eventually([&] { return b.has_leadership(); }, 60s));
        EXPECT_FALSE(a.has_leadership());
        EXPECT_TRUE(a.joined());  // still in the election: it joins again once it can
        const std::int64_t b_token = b.fencing_token();

        proxy.remove_rule(refused);
        ZKWIRE_CO_ASSERT(co_await test::wait_for_children(*admin_, dir_, 2, 60s));
        co_await test::settle(*cut_client);
        EXPECT_EQ(a.state(), election_state::candidate);  // queued behind b, not leading
        EXPECT_NE(cut_client->session_id(), first_session);
        auto listed = co_await recipes::async_participants(*admin_, dir_, use_awaitable);
        ZKWIRE_CO_ASSERT(listed.size() == 2);
        EXPECT_EQ(listed[1].id, "a");
        EXPECT_EQ(listed[1].session, cut_client->session_id());  // its new node, of its new session

        co_await b.async_leave(use_awaitable);
        ZKWIRE_CO_ASSERT(co_await test::co_eventually([&] { return a.has_leadership(); }, 30s));
        EXPECT_GT(a.fencing_token(), b_token);
        EXPECT_EQ(a.session_id(), cut_client->session_id());
        EXPECT_EQ(a.rejoins(), 1U);
        co_await a.async_leave(use_awaitable);
        EXPECT_TRUE((co_await test::children_of(*admin_, dir_)).empty());
      }(),
      180s);
  EXPECT_EQ(most_at_once, 1);
  // a: gained, lost (the safety margin passes before the server expires the session), gained again, lost (left).
  ASSERT_EQ(a_events.size(), 4U);
  EXPECT_EQ(a_events[0].change, leadership_change::gained);
  EXPECT_EQ(a_events[1].change, leadership_change::lost);
  EXPECT_EQ(a_events[1].reason, lock_errc::safety_margin_passed) << a_events[1].reason.message();
  EXPECT_EQ(a_events[1].fencing_token, a_events[0].fencing_token);
  EXPECT_EQ(a_events[2].change, leadership_change::gained);
  EXPECT_GT(a_events[2].fencing_token, a_events[0].fencing_token);
  EXPECT_EQ(a_events[3].reason, lock_errc::relinquished);
}

TEST_F(election_fault_test, ACandidateWhoseSessionExpiresJoinsAgain) {
  auto& proxy = *proxy_;
  auto cut_client = test::new_client(io_, proxy.address(), 2000ms);
  election leader(*admin_, dir_, election_options::with_id("leader"));
  election candidate(*cut_client, dir_, election_options::with_id("candidate"));
  run_co(
      io_,
      [&]() -> asio::awaitable<void> {
        co_await leader.async_await_leadership(10s, use_awaitable);
        co_await candidate.async_join(use_awaitable);
        const std::int64_t first_session = cut_client->session_id();
        const auto refused = proxy.refuse_connections(120s);
        proxy.cut_connections(faults::cut_kind::blackhole);
        ZKWIRE_CO_ASSERT(co_await test::wait_for_children(*admin_, dir_, 1, 60s));  // expired: its node is gone
        proxy.remove_rule(refused);
        ZKWIRE_CO_ASSERT(co_await test::wait_for_children(*admin_, dir_, 2, 60s));  // joined again
        EXPECT_NE(cut_client->session_id(), first_session);
        EXPECT_EQ(candidate.state(), election_state::candidate);
        co_await leader.async_leave(use_awaitable);
        ZKWIRE_CO_ASSERT(co_await test::co_eventually([&] { return candidate.has_leadership(); }, 30s));
        EXPECT_EQ(candidate.session_id(), cut_client->session_id());
        co_await candidate.async_leave(use_awaitable);
      }(),
      180s);
}

// While the leader is disconnected, its node is swapped for a node of another session at the same path. After the
// reconnect it must not lead on that node: it loses leadership (session_changed) and leads again only on a new node
// of its own session. (The lost lock also deletes the node at its old path, whoever owns it now: a delete cannot
// check the owner. Not asserted here.)
TEST_F(election_fault_test, NeverLeadsOnANodeOfAnotherSession) {
  auto& proxy = *proxy_;
  auto c = test::new_client(io_, proxy.address());
  election e(*c, dir_, election_options::with_id("e"));
  std::vector<leadership_event> events;
  e.set_listener([&](const leadership_event& ev) { events.push_back(ev); });
  std::int64_t impostor_token = 0;
  run_co(io_, [&]() -> asio::awaitable<void> {
    co_await e.async_await_leadership(10s, use_awaitable);
    const std::string node = e.node_path();
    const auto refused = proxy.refuse_connections(60s);  // no reconnect until the swap is done
    proxy.cut_connections(faults::cut_kind::rst);
    co_await admin_->async_remove(node, any_version, use_awaitable);
    create_options ephemeral;
    ephemeral.mode = create_mode::ephemeral;
    auto impostor = co_await admin_->async_create(node, "impostor", ephemeral, use_awaitable);
    impostor_token = impostor.stat.czxid;
    proxy.remove_rule(refused);
    ZKWIRE_CO_ASSERT(co_await test::co_eventually([&] { return events.size() >= 3; }, 30s));
    EXPECT_EQ(events[1].change, leadership_change::lost);
    EXPECT_EQ(events[1].reason, lock_errc::session_changed) << events[1].reason.message();
    EXPECT_EQ(events[2].change, leadership_change::gained);
    ZKWIRE_CO_ASSERT(e.has_leadership());
    EXPECT_NE(e.node_path(), node);
    auto [ec, data] = co_await admin_->async_get(e.node_path(), test::tuple_awaitable);
    EXPECT_FALSE(ec) << ec.message();
    EXPECT_EQ(data.stat.ephemeral_owner, c->session_id());
    EXPECT_EQ(data.stat.czxid, e.fencing_token());
    co_await e.async_leave(use_awaitable);
  }());
  for (const auto& ev : events) {
    if (ev.change == leadership_change::gained) {
      EXPECT_NE(ev.fencing_token, impostor_token);
    }
  }
  EXPECT_EQ(events.size(), 4U);  // gained, lost, gained on a node of its own, lost (left)
}

TEST_F(election_fault_test, LostCreateRepliesAreRecoveredWithExactlyOneNode) {
  auto& proxy = *proxy_;
  auto c = test::new_client(io_, proxy.address());
  election e(*c, dir_, election_options::with_id("e"));
  const auto session = run_co(io_, [&]() -> asio::awaitable<std::int64_t> {
    co_await c->async_connect(use_awaitable);
    co_return c->session_id();
  }());
  for (int round = 0; round < 10; ++round) {
    std::string error;
    const auto rule = proxy.add_rule("reply op=create2 path=" + dir_ + "/* nth=1 action=drop-then-rst", &error);
    ASSERT_TRUE(rule.has_value()) << error;
    run_co(io_, [&]() -> asio::awaitable<void> {
      co_await e.async_await_leadership(20s, use_awaitable);
      EXPECT_EQ((co_await test::children_of(*admin_, dir_)).size(), 1U) << "round " << round;
      EXPECT_EQ(e.session_id(), session);
      co_await e.async_leave(use_awaitable);
    }());
    EXPECT_EQ(proxy.counters(*rule)->fired, 1U) << "round " << round;
    proxy.remove_rule(*rule);
  }
  EXPECT_EQ(c->session_id(), session);  // every node was adopted, none recreated in another session
}

TEST_F(election_fault_test, TheNextInLineLeadsWithoutListingAgain) {
  const auto listed = listing_counter();
  auto c = test::new_client(io_, proxy_->address());
  election leader(*admin_, dir_, election_options::with_id("leader"));
  election next(*c, dir_, election_options::with_id("next"));
  run_co(io_, [&]() -> asio::awaitable<void> {
    co_await queue_behind(leader, next, *c, listed);
    const std::int64_t token = leader.fencing_token();
    co_await leader.async_leave(use_awaitable);
    ZKWIRE_CO_ASSERT(co_await test::co_eventually([&] { return next.has_leadership(); }));
    EXPECT_GT(next.fencing_token(), token);
    EXPECT_EQ(listed(), 1U) << "listed again after the only participant ahead left";
    co_await next.async_leave(use_awaitable);
  }());
}

TEST_F(election_fault_test, AfterAReconnectTheNextInLineListsAgain) {
  const auto listed = listing_counter();
  auto c = test::new_client(io_, proxy_->address());
  election leader(*admin_, dir_, election_options::with_id("leader"));
  election next(*c, dir_, election_options::with_id("next"));
  run_co(io_, [&]() -> asio::awaitable<void> {
    co_await queue_behind(leader, next, *c, listed);
    // Cut off, the next in line misses a sibling that LeaderLatch's order puts first (the whole name "0" sorts
    // before any "latch-" sequence number) and the leader's leaving. On the reconnect the server replays what its
    // watches missed, the leader node's NodeDeleted before the directory's NodeChildrenChanged.
    const auto refused = proxy_->refuse_connections(60s);
    proxy_->cut_connections(faults::cut_kind::rst);
    auto sibling = co_await admin_->async_create(dir_ + "/0", "", use_awaitable);
    co_await leader.async_leave(use_awaitable);
    proxy_->remove_rule(refused);
    // The replayed deletion woke it (the positive signal), and what it sent in turn has been answered.
    ZKWIRE_CO_ASSERT(co_await test::co_eventually([&] { return next.metrics()->snapshot().wakeups >= 1; }));
    co_await test::settle(*c);
    EXPECT_EQ(next.state(), election_state::candidate) << "led on the replayed deletion alone";
    EXPECT_EQ(listed(), 2U);
    co_await admin_->async_remove(sibling.path, any_version, use_awaitable);
    ZKWIRE_CO_ASSERT(co_await test::co_eventually([&] { return next.has_leadership(); }));
    co_await next.async_leave(use_awaitable);
  }());
}

}  // namespace
}  // namespace zkwire
