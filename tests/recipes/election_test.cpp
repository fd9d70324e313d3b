// The election recipe (recipes/election.hpp) against a real server: leadership in turn through relinquish and
// leave, awaiting with a time limit or a cancellation that leaves no node, the peers' node names and ids, the
// participants listing without joining, waiting behind a contender of another naming, a sibling made while the
// next in line waits, a node deleted by someone else, the loss signals and guarded writes, metrics, and the blocking
// form. A log fed by every participant's listener checks that at most one leads at a time and that tokens only grow.

#include <gtest/gtest.h>

#include <asio/bind_cancellation_slot.hpp>
#include <asio/cancellation_signal.hpp>
#include <asio/io_context.hpp>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "lock_test_support.hpp"
#include "support/zk_test.hpp"
#include "zkwire/client/blocking_client.hpp"
#include "zkwire/recipes/blocking_election.hpp"
#include "zkwire/recipes/election.hpp"

namespace zkwire {
namespace {

using asio::use_awaitable;
using recipes::election;
using recipes::election_naming;
using recipes::election_options;
using recipes::election_state;
using recipes::leadership_change;
using recipes::leadership_event;
using recipes::lock_errc;
using test::run_co;
using test::tuple_awaitable;
using namespace std::chrono_literals;

// Every participant's leadership events in the order the listeners heard them (one thread runs them all).
struct leadership_log {
  struct entry {
    std::string who;
    leadership_event event;
  };
  std::vector<entry> events;
  int leaders = 0;
  int most_at_once = 0;
  std::int64_t last_token = 0;
  bool tokens_grow = true;

  void attach(election& e, std::string who) {
    e.set_listener([this, who = std::move(who)](const leadership_event& ev) { on_event(who, ev); });
  }
  void on_event(const std::string& who, const leadership_event& ev) {
    events.push_back({who, ev});
    if (ev.change == leadership_change::gained) {
      most_at_once = std::max(most_at_once, ++leaders);
      tokens_grow = tokens_grow && ev.fencing_token > last_token;
      last_token = ev.fencing_token;
    } else {
      --leaders;
    }
  }
  // Who gained leadership, in order.
  [[nodiscard]] std::vector<std::string> gains() const {
    std::vector<std::string> out;
    for (const auto& e : events) {
      if (e.event.change == leadership_change::gained) out.push_back(e.who);
    }
    return out;
  }
};

std::vector<std::string> ids_of(const std::vector<recipes::participant>& list) {
  std::vector<std::string> ids;
  for (const auto& p : list) ids.push_back(p.id);
  return ids;
}

class election_test : public test::standalone_test {
 protected:
  void SetUp() override {
    standalone_test::SetUp();
    admin_ = test::new_client(io_, connect_string());
    dir_ = root() + "/election";
    run_co(io_, [&]() -> asio::awaitable<void> { co_await admin_->async_create(root(), "", use_awaitable); }());
  }
  void TearDown() override { admin_.reset(); }

  // A participant on a client of its own.
  std::unique_ptr<client> new_client() { return test::new_client(io_, connect_string()); }

  asio::io_context io_;
  std::unique_ptr<client> admin_;
  std::string dir_;
};

TEST_F(election_test, LeadsInTurnThroughRelinquishAndLeave) {
  auto ca = new_client();
  auto cb = new_client();
  auto cc = new_client();
  election a(*ca, dir_, election_options::with_id("a"));
  election b(*cb, dir_, election_options::with_id("b"));
  election c(*cc, dir_, election_options::with_id("c"));
  leadership_log log;
  log.attach(a, "a");
  log.attach(b, "b");
  log.attach(c, "c");
  run_co(io_, [&]() -> asio::awaitable<void> {
    co_await a.async_join(use_awaitable);
    ZKWIRE_CO_ASSERT(co_await test::co_eventually([&] { return a.has_leadership(); }));
    EXPECT_GT(a.fencing_token(), 0);
    co_await b.async_join(use_awaitable);  // queued behind a
    EXPECT_EQ(b.state(), election_state::candidate);
    c.async_await_leadership([](std::error_code ec) { EXPECT_FALSE(ec) << ec.message(); });
    ZKWIRE_CO_ASSERT(co_await test::wait_for_children(*admin_, dir_, 3));
    auto listed = co_await recipes::async_participants(*admin_, dir_, use_awaitable);
    EXPECT_EQ(ids_of(listed), (std::vector<std::string>{"a", "b", "c"}));
    EXPECT_TRUE(listed.at(0).leader);
    EXPECT_EQ(listed.at(0).naming, election_naming::latch);
    EXPECT_EQ(listed.at(0).czxid, a.fencing_token());

    // a steps down: the listener hears it at once; b leads; a queues again behind c.
    const std::int64_t a_token = a.fencing_token();
    co_await a.async_relinquish(use_awaitable);
    EXPECT_FALSE(a.has_leadership());
    EXPECT_TRUE(a.joined());
    ZKWIRE_CO_ASSERT(co_await test::co_eventually([&] { return b.has_leadership(); }));
    EXPECT_GT(b.fencing_token(), a_token);
    ZKWIRE_CO_ASSERT(co_await test::wait_for_children(*admin_, dir_, 3));
    listed = co_await b.async_participants(use_awaitable);
    EXPECT_EQ(ids_of(listed), (std::vector<std::string>{"b", "c", "a"}));

    co_await b.async_leave(use_awaitable);  // b out: c leads, then a
    EXPECT_EQ(b.state(), election_state::idle);
    ZKWIRE_CO_ASSERT(co_await test::co_eventually([&] { return c.has_leadership(); }));
    co_await c.async_leave(use_awaitable);
    ZKWIRE_CO_ASSERT(co_await test::co_eventually([&] { return a.has_leadership(); }));
    co_await test::expect_sole_child(*admin_, dir_, a.node_path());
    co_await a.async_leave(use_awaitable);
    EXPECT_TRUE((co_await test::children_of(*admin_, dir_)).empty());
  }());
  EXPECT_EQ(log.gains(), (std::vector<std::string>{"a", "b", "c", "a"}));
  EXPECT_EQ(log.most_at_once, 1);
  EXPECT_TRUE(log.tokens_grow);
  // Every leadership ended by its own participant: relinquished.
  for (const auto& e : log.events) {
    if (e.event.change == leadership_change::lost) {
      EXPECT_EQ(e.event.reason, lock_errc::relinquished) << e.who;
    }
  }
  EXPECT_EQ(log.leaders, 0);
}

TEST_F(election_test, AnAwaitThatJoinedLeavesNothingWhenItsTimeRunsOut) {
  auto ca = new_client();
  auto cb = new_client();
  election a(*ca, dir_, election_options::with_id("a"));
  election b(*cb, dir_, election_options::with_id("b"));
  run_co(io_, [&]() -> asio::awaitable<void> {
    co_await a.async_await_leadership(10s, use_awaitable);
    auto [timed_out] = co_await b.async_await_leadership(300ms, tuple_awaitable);
    EXPECT_EQ(timed_out, lock_errc::timeout) << timed_out.message();
    EXPECT_EQ(b.state(), election_state::idle);
    auto [asked_once] = co_await b.async_await_leadership(0ms, tuple_awaitable);  // one try
    EXPECT_EQ(asked_once, lock_errc::timeout) << asked_once.message();
    ZKWIRE_CO_ASSERT(co_await test::wait_for_children(*admin_, dir_, 1));  // b's nodes are deleted in the background
    co_await test::expect_sole_child(*admin_, dir_, a.node_path());

    // Joined first, the wait is b's own: it ends, b stays queued.
    co_await b.async_join(use_awaitable);
    auto [waited] = co_await b.async_await_leadership(200ms, tuple_awaitable);
    EXPECT_EQ(waited, lock_errc::timeout);
    EXPECT_EQ(b.state(), election_state::candidate);
    EXPECT_EQ((co_await test::children_of(*admin_, dir_)).size(), 2U);
    co_await a.async_leave(use_awaitable);
    auto [led] = co_await b.async_await_leadership(10s, tuple_awaitable);
    EXPECT_FALSE(led) << led.message();
    co_await b.async_leave(use_awaitable);
    EXPECT_TRUE((co_await test::children_of(*admin_, dir_)).empty());
  }());
}

TEST_F(election_test, ACancelledJoinOrAwaitLeavesNothing) {
  auto ca = new_client();
  auto cb = new_client();
  election a(*ca, dir_, election_options::with_id("a"));
  election b(*cb, dir_, election_options::with_id("b"));
  run_co(io_, [&]() -> asio::awaitable<void> {
    co_await a.async_join(use_awaitable);
    ZKWIRE_CO_ASSERT(co_await test::co_eventually([&] { return a.has_leadership(); }));
    for (const bool join : {false, true}) {
      asio::cancellation_signal stop;
      std::optional<std::error_code> result;
      auto handler = asio::bind_cancellation_slot(stop.slot(), [&](std::error_code ec) { result = ec; });
      if (join) {
        // Cancelled before it is answered: a join is answered once our node is queued, so cancel at once.
        b.async_join(std::move(handler));
      } else {
        b.async_await_leadership(std::move(handler));
        ZKWIRE_CO_ASSERT(co_await test::wait_for_children(*admin_, dir_, 2));  // queued
      }
      stop.emit(asio::cancellation_type::terminal);
      ZKWIRE_CO_ASSERT(co_await test::co_eventually([&] { return result.has_value(); }));
      if (*result) {
        EXPECT_EQ(*result, lock_errc::cancelled) << result->message();
        EXPECT_EQ(b.state(), election_state::idle);
      } else {
        EXPECT_TRUE(join);  // the join was answered (queued) before the cancellation: leave instead
        co_await b.async_leave(use_awaitable);
      }
      ZKWIRE_CO_ASSERT(co_await test::wait_for_children(*admin_, dir_, 1));
      co_await test::settle(*cb);
      co_await test::expect_sole_child(*admin_, dir_, a.node_path());
    }
    co_await a.async_leave(use_awaitable);
  }());
}

TEST_F(election_test, EachNamingCreatesItsPeersNamesWithTheIdAsData) {
  auto c = new_client();
  for (const auto naming : {election_naming::latch, election_naming::lock, election_naming::kazoo}) {
    election_options options = election_options::with_naming(naming);
    options.id = std::string("id-") + std::string(recipes::election_naming_name(naming)) + std::string("\0\x01", 2);
    election e(*c, dir_, options);
    EXPECT_EQ(e.naming(), naming);
    run_co(io_, [&]() -> asio::awaitable<void> {
      co_await e.async_await_leadership(10s, use_awaitable);
      const std::string node = test::name_of(e.node_path());
      EXPECT_EQ(recipes::election_naming_of(node), naming) << node;
      auto [ec, data] = co_await admin_->async_get(e.node_path(), tuple_awaitable);
      EXPECT_EQ(data.data, options.id);
      EXPECT_EQ(data.stat.ephemeral_owner, c->session_id());
      EXPECT_EQ(data.stat.czxid, e.fencing_token());
      co_await e.async_leave(use_awaitable);
    }());
  }
  election defaults(*c, dir_);
  EXPECT_EQ(defaults.id(), recipes::default_lock_data());  // <hostname>:<pid>
  EXPECT_EQ(defaults.naming(), election_naming::latch);
}

TEST_F(election_test, ParticipantsAreListedWithoutJoiningPeersIncluded) {
  auto c = new_client();
  election z(*c, dir_, election_options::with_id("zkwire"));
  run_co(io_, [&]() -> asio::awaitable<void> {
    auto [missing, none] = co_await recipes::async_participants(*admin_, dir_, tuple_awaitable);
    EXPECT_EQ(missing, server_error::no_node);
    co_await z.async_join(use_awaitable);
    // Nodes as the peers name theirs, made by hand, with their ids as data; and a sibling that is no participant.
    create_options ephemeral_sequential;
    ephemeral_sequential.mode = create_mode::ephemeral_sequential;
    co_await admin_->async_create(dir_ + "/_c_0b6b5a60-3d3a-4b0e-9d8a-6b2f1c2d3e4f-latch-", "curator-latch",
                                  ephemeral_sequential, use_awaitable);
    co_await admin_->async_create(dir_ + "/0123456789abcdef0123456789abcdef__lock__", "kazoo", ephemeral_sequential,
                                  use_awaitable);
    co_await admin_->async_create(dir_ + "/config", "x", use_awaitable);
    auto listed = co_await recipes::async_participants(*admin_, dir_, use_awaitable);
    EXPECT_EQ(ids_of(listed), (std::vector<std::string>{"zkwire", "curator-latch", "kazoo"}));
    ZKWIRE_CO_ASSERT(listed.size() == 3);
    EXPECT_TRUE(listed[0].leader);
    EXPECT_FALSE(listed[1].leader || listed[1].also_leading);  // LeaderLatch's rule agrees: our latch node first
    // Kazoo's Election ignores the latch nodes: its participant leads beside ours.
    EXPECT_TRUE(listed[2].also_leading);
    EXPECT_EQ(listed[2].naming, election_naming::kazoo);
    EXPECT_EQ(listed[2].session, admin_->session_id());
    EXPECT_EQ(listed[0].session, c->session_id());
    co_await z.async_leave(use_awaitable);
  }());
}

TEST_F(election_test, WaitsBehindAContenderOfAnotherNaming) {
  auto c = new_client();
  election z(*c, dir_, election_options::with_id("zkwire"));
  run_co(io_, [&]() -> asio::awaitable<void> {
    co_await admin_->async_create(dir_, "", use_awaitable);
    create_options ephemeral_sequential;
    ephemeral_sequential.mode = create_mode::ephemeral_sequential;
    auto kazoo = co_await admin_->async_create(dir_ + "/0123456789abcdef0123456789abcdef__lock__", "kazoo",
                                               ephemeral_sequential, use_awaitable);
    co_await z.async_join(use_awaitable);
    co_await test::settle(*c);  // z's listing and the watch it set are done
    // A LeaderLatch in our place would lead now (its rule ignores the Kazoo node); zkwire does not.
    EXPECT_EQ(z.state(), election_state::candidate);
    co_await admin_->async_remove(kazoo.path, any_version, use_awaitable);
    ZKWIRE_CO_ASSERT(co_await test::co_eventually([&] { return z.has_leadership(); }));
    EXPECT_GT(z.fencing_token(), kazoo.stat.czxid);
    co_await z.async_leave(use_awaitable);
  }());
}

// The next in line leads on its predecessor's deletion without listing again only when its listing's child watch
// shows the directory unchanged since that listing. Here a sibling that LeaderLatch's order puts first (the whole
// name "0" sorts before any "latch-" sequence number) appears after the listing: the participant must list again,
// see it, and wait for it rather than lead on the notification.
TEST_F(election_test, ASiblingMadeAfterTheListingIsSeenWhenTheLeaderLeaves) {
  auto leader_client = new_client();
  auto next_client = new_client();
  election leader(*leader_client, dir_, election_options::with_id("leader"));
  election next(*next_client, dir_, election_options::with_id("next"));
  run_co(io_, [&]() -> asio::awaitable<void> {
    co_await leader.async_await_leadership(use_awaitable);
    co_await next.async_join(use_awaitable);
    co_await test::settle(*next_client);  // its listing and its watch on the leader's node are done
    auto sibling = co_await admin_->async_create(dir_ + "/0", "", use_awaitable);
    co_await leader.async_leave(use_awaitable);
    // The deletion woke it (the positive signal), and what it sent in turn has been answered.
    ZKWIRE_CO_ASSERT(co_await test::co_eventually([&] { return next.metrics()->snapshot().wakeups >= 1; }));
    co_await test::settle(*next_client);
    EXPECT_EQ(next.state(), election_state::candidate);
    co_await admin_->async_remove(sibling.path, any_version, use_awaitable);
    ZKWIRE_CO_ASSERT(co_await test::co_eventually([&] { return next.has_leadership(); }));
    co_await next.async_leave(use_awaitable);
  }());
}

TEST_F(election_test, ALeaderWhoseNodeIsDeletedLosesAndJoinsAgain) {
  auto c = new_client();
  election again(*c, dir_, election_options::with_id("again"));
  election_options once_options = election_options::with_id("once");
  once_options.rejoin = false;
  auto c2 = new_client();
  election once(*c2, dir_ + "-once", once_options);
  leadership_log log;
  log.attach(again, "again");
  log.attach(once, "once");
  bool slot_cancelled = false;
  run_co(io_, [&]() -> asio::awaitable<void> {
    co_await again.async_await_leadership(10s, use_awaitable);
    const std::int64_t first = again.fencing_token();
    std::optional<std::error_code> waited;
    again.async_wait_lost([&](std::error_code ec) { waited = ec; });
    again.lost_slot().assign([&](asio::cancellation_type) { slot_cancelled = true; });
    co_await admin_->async_remove(again.node_path(), any_version, use_awaitable);
    ZKWIRE_CO_ASSERT(co_await test::co_eventually([&] { return waited.has_value(); }));
    EXPECT_EQ(*waited, lock_errc::lock_lost);
    EXPECT_TRUE(slot_cancelled);
    // Joins again on its own, with a new node and so a larger token.
    ZKWIRE_CO_ASSERT(co_await test::co_eventually([&] { return again.has_leadership(); }));
    EXPECT_GT(again.fencing_token(), first);
    EXPECT_EQ(again.rejoins(), 1U);
    co_await test::expect_sole_child(*admin_, dir_, again.node_path());
    co_await again.async_leave(use_awaitable);

    // With rejoin off the loss leaves the election.
    co_await once.async_await_leadership(10s, use_awaitable);
    co_await admin_->async_remove(once.node_path(), any_version, use_awaitable);
    ZKWIRE_CO_ASSERT(co_await test::co_eventually([&] { return once.state() == election_state::idle; }));
    EXPECT_EQ(once.last_error(), lock_errc::node_deleted);
    co_await test::settle(*c2);
    EXPECT_TRUE((co_await test::children_of(*admin_, dir_ + "-once")).empty());
  }());
  ASSERT_EQ(log.events.size(), 6U);  // again: gained, lost, gained, lost (left); once: gained, lost
  EXPECT_EQ(log.events[1].event.reason, lock_errc::node_deleted);
  EXPECT_EQ(log.events[1].event.fencing_token, log.events[0].event.fencing_token);
  EXPECT_EQ(log.events[3].event.reason, lock_errc::relinquished);
  EXPECT_EQ(log.events.back().who, "once");
  EXPECT_EQ(log.events.back().event.reason, lock_errc::node_deleted);
  EXPECT_TRUE(log.tokens_grow);
}

TEST_F(election_test, GuardedWritesNeedLeadership) {
  auto c = new_client();
  election e(*c, dir_, election_options::with_id("w"));
  run_co(io_, [&]() -> asio::awaitable<void> {
    co_await admin_->async_create(root() + "/register", "", use_awaitable);
    auto [refused, none] = co_await e.async_guarded_multi(test::set_ops(root() + "/register", "x"), tuple_awaitable);
    EXPECT_EQ(refused, lock_errc::not_held);
    co_await e.async_await_leadership(10s, use_awaitable);
    auto [ok, results] = co_await e.async_guarded_multi(test::set_ops(root() + "/register", "y"), tuple_awaitable);
    EXPECT_FALSE(ok) << ok.message();
    EXPECT_EQ(results.size(), 1U);
    auto [relinquished] = co_await e.async_relinquish(tuple_awaitable);  // alone: leads again at once
    EXPECT_FALSE(relinquished);
    ZKWIRE_CO_ASSERT(co_await test::co_eventually([&] { return e.has_leadership(); }));
    election idle(*c, dir_);
    auto [not_leading] = co_await idle.async_relinquish(tuple_awaitable);
    EXPECT_EQ(not_leading, lock_errc::not_held);
    co_await e.async_leave(use_awaitable);
    auto [left] = co_await e.async_leave(tuple_awaitable);
    EXPECT_EQ(left, lock_errc::not_held);
  }());
}

TEST_F(election_test, MetricsCountLeadershipsAndTheirEnds) {
  auto ca = new_client();
  auto cb = new_client();
  election a(*ca, dir_, election_options::with_id("a"));
  election b(*cb, dir_, election_options::with_id("b"));
  run_co(io_, [&]() -> asio::awaitable<void> {
    co_await a.async_await_leadership(10s, use_awaitable);
    co_await b.async_join(use_awaitable);
    co_await a.async_relinquish(use_awaitable);  // b leads, a waits again
    ZKWIRE_CO_ASSERT(co_await test::co_eventually([&] { return b.has_leadership(); }));
    co_await admin_->async_remove(b.node_path(), any_version, use_awaitable);  // b loses; a leads
    ZKWIRE_CO_ASSERT(co_await test::co_eventually([&] { return a.has_leadership(); }));
    co_await a.async_leave(use_awaitable);  // b, queued again behind a, leads
    ZKWIRE_CO_ASSERT(co_await test::co_eventually([&] { return b.has_leadership(); }));
    co_await b.async_leave(use_awaitable);
  }());
  const auto sa = a.metrics()->snapshot();
  EXPECT_EQ(sa.acquisitions, 2U);  // two leaderships
  EXPECT_EQ(sa.releases, 2U);      // relinquished, left
  EXPECT_EQ(sa.losses_total(), 0U);
  const auto sb = b.metrics()->snapshot();
  EXPECT_EQ(sb.acquisitions, 2U);
  EXPECT_EQ(sb.lost(recipes::loss_reason::node_deleted), 1U);
  EXPECT_EQ(sb.releases, 1U);
  EXPECT_EQ(sb.wait_time.count, sb.acquisitions);
  EXPECT_EQ(sb.hold_time.count, 2U);
  EXPECT_EQ(sb.queue_position.counts.at(1), 2U);  // b queued with a ahead, both times
}

TEST_F(election_test, BlockingElectionForThreads) {
  client_options options = test::client_options_for(connect_string());
  blocking_client c1(options);
  blocking_client c2(options);
  recipes::blocking_election a(c1, dir_, election_options::with_id("a"));
  recipes::blocking_election b(c2, dir_, election_options::with_id("b"));
  EXPECT_TRUE(a.await_leadership_for(10s));
  EXPECT_TRUE(a.has_leadership());
  EXPECT_GT(a.fencing_token(), 0);
  EXPECT_FALSE(b.await_leadership_for(200ms));
  EXPECT_EQ(b.state(), election_state::idle);
  b.join();
  const auto listed = b.participants();
  EXPECT_EQ(ids_of(listed), (std::vector<std::string>{"a", "b"}));
  std::thread leader([&] {
    a.relinquish();  // b leads; a queues again
  });
  b.await_leadership();
  leader.join();
  EXPECT_TRUE(b.has_leadership());
  EXPECT_FALSE(a.has_leadership());
  EXPECT_THROW(a.relinquish(), std::system_error);
  b.leave();
  EXPECT_TRUE(a.await_leadership_for(10s));
  a.leave();
  EXPECT_EQ(a.state(), election_state::idle);
}

}  // namespace
}  // namespace zkwire
