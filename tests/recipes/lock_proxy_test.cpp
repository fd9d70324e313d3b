// Create-then-crash through the fault-injection proxy (faults/): the server applies our lock node's create, its
// reply is dropped and the connection reset, so the create's outcome is unknown to the client. The acquire must
// find its node again by its guid (owned by our session), never create a second one, and succeed; nothing may
// be left after the release. 100 rounds, plus one where the create never reaches the server. Also through the
// proxy: the directory reaped under a pending create, a node with our guid owned by another session, a holder's
// node made again by another session while it was cut off, a waiter's session expiring while it waits, the listing an
// uncontended acquire skips (and when it must not), and the one the next in line skips.

#include <gtest/gtest.h>

#include <asio/io_context.hpp>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "lock_test_support.hpp"
#include "proxy_test_support.hpp"
#include "support/zk_test.hpp"
#include "zkwire/faults/proxy.hpp"

namespace zkwire {
namespace {

using asio::use_awaitable;
using recipes::lock;
using recipes::lock_state;
using test::run_co;
using namespace std::chrono_literals;

// A proxy in front of the server, a connected client through it, an admin client straight to the server, and
// the lock directory root()/lock.
class lock_proxy_test : public test::proxied_directory_test {
 protected:
  lock_proxy_test() : proxied_directory_test("lock") {}
  void SetUp() override {
    proxied_directory_test::SetUp();
    if (HasFatalFailure()) return;
    client_ = test::new_client(io_, proxy_->address());
    run_co(io_, [&]() -> asio::awaitable<void> { co_await client_->async_connect(use_awaitable); }());
  }
  // Counts the listings of the lock directory that pass the proxy (those of client_'s locks).
  [[nodiscard]] std::function<std::uint64_t()> listing_counter() {
    const auto rule = proxy_->add_rule("request op=getChildren2 path=" + dir_ + " action=pass");
    EXPECT_TRUE(rule.has_value());
    return [this, rule] { return rule ? proxy_->counters(*rule)->matched : 0; };
  }
  void TearDown() override {
    client_.reset();
    proxied_directory_test::TearDown();
  }

  std::unique_ptr<client> client_;
};

TEST_F(lock_proxy_test, LostCreateRepliesAreRecoveredWithExactlyOneNode) {
  auto& io = io_;
  auto& proxy = *proxy_;
  auto& admin = admin_;
  auto& c = client_;
  const std::string& dir = dir_;
  lock l(*c, dir);
  const auto session = run_co(io, [&]() -> asio::awaitable<std::int64_t> {
    co_await c->async_connect(use_awaitable);
    co_return c->session_id();
  }());

  constexpr int rounds = 100;
  const std::uint64_t connections_before = proxy.accepted();
  for (int round = 0; round < rounds; ++round) {
    std::string error;
    const auto rule = proxy.add_rule("reply op=create2 path=" + dir + "/* nth=1 action=drop-then-rst", &error);
    ASSERT_TRUE(rule.has_value()) << error;
    run_co(io, [&]() -> asio::awaitable<void> {
      co_await l.async_acquire(20s, use_awaitable);
      const auto children = co_await test::children_of(*admin, dir);
      EXPECT_EQ(children.size(), 1U) << "round " << round;
      EXPECT_EQ(l.session_id(), session);
      co_await l.async_release(use_awaitable);
      EXPECT_TRUE((co_await test::children_of(*admin, dir)).empty()) << "round " << round;
    }());
    const auto counters = proxy.counters(*rule);
    ASSERT_TRUE(counters.has_value());
    EXPECT_EQ(counters->fired, 1U) << "round " << round;
    proxy.remove_rule(*rule);
  }
  EXPECT_GE(proxy.accepted() - connections_before, static_cast<std::uint64_t>(rounds));
  EXPECT_EQ(c->session_id(), session);  // one session throughout: every node was adopted, none recreated
}

TEST_F(lock_proxy_test, ACreateThatNeverArrivedIsSentAgain) {
  auto& io = io_;
  auto& proxy = *proxy_;
  auto& admin = admin_;
  auto& c = client_;
  const std::string& dir = dir_;
  lock l(*c, dir);
  const auto rule = proxy.add_rule("request op=create2 path=" + dir + "/* nth=1 action=drop-then-rst");
  ASSERT_TRUE(rule.has_value());
  run_co(io, [&]() -> asio::awaitable<void> {
    co_await l.async_acquire(20s, use_awaitable);
    EXPECT_EQ((co_await test::children_of(*admin, dir)).size(), 1U);
    co_await l.async_release(use_awaitable);
    EXPECT_TRUE((co_await test::children_of(*admin, dir)).empty());
  }());
  EXPECT_EQ(proxy.counters(*rule)->fired, 1U);
}

// The lock directory is a container: the server may reap it between our "ensure" and our create. The create's
// NONODE makes the acquire build the directory again and retry, not fail. The proxy proves that path ran: the
// first create was held until the directory was gone, the directory was created again, and the lock node's
// create was sent a second time.
TEST_F(lock_proxy_test, ADirectoryReapedBeforeTheCreateIsMadeAgain) {
  auto& io = io_;
  auto& proxy = *proxy_;
  auto& admin = admin_;
  auto& c = client_;
  const std::string& dir = dir_;
  lock l(*c, dir);
  // Hold our create in the proxy while the directory disappears (long enough for a loaded machine: the hold
  // ends the wait below at once, its length only bounds the admin's delete).
  const auto held = proxy.add_rule("request op=create2 path=" + dir + "/* nth=1 action=delay ms=3000");
  const auto creates = proxy.add_rule("request op=create2 path=" + dir + "/* action=pass");
  const auto directory_made = proxy.add_rule("request op=createContainer path=" + dir + " action=pass");
  ASSERT_TRUE(held && creates && directory_made);
  std::optional<std::error_code> acquired;
  l.async_acquire(30s, [&](std::error_code ec) { acquired = ec; });
  run_co(io, [&]() -> asio::awaitable<void> {
    while (proxy.counters(*held)->fired == 0) co_await test::sleep_for(5ms);
    co_await admin->async_remove(dir, any_version, use_awaitable);
    while (!acquired) co_await test::sleep_for(10ms);
    EXPECT_EQ(*acquired, std::error_code{});
    EXPECT_GE(proxy.counters(*directory_made)->fired, 1U);  // the directory was made again
    EXPECT_EQ(proxy.counters(*held)->fired, 1U);            // the first create (NONODE): one rule fires per frame
    EXPECT_EQ(proxy.counters(*creates)->fired, 1U);         // and the retry
    EXPECT_EQ((co_await test::children_of(*admin, dir)).size(), 1U);
    co_await l.async_release(use_awaitable);
  }());
}

// Recovery after an unknown create outcome finds a node with our guid that another session owns (here: the
// admin swapped our node for its own ephemeral node of the same name while we were disconnected). It must not be
// adopted: the acquire starts over with a new guid and waits behind that node like behind any contender.
TEST_F(lock_proxy_test, ANodeWithOurGuidOwnedByAnotherSessionIsNotAdopted) {
  auto& io = io_;
  auto& proxy = *proxy_;
  auto& admin = admin_;
  auto& c = client_;
  const std::string& dir = dir_;
  lock l(*c, dir);
  const auto session = run_co(io, [&]() -> asio::awaitable<std::int64_t> {
    co_await c->async_connect(use_awaitable);
    co_return c->session_id();
  }());
  const auto lost_reply = proxy.add_rule("reply op=create2 path=" + dir + "/* nth=1 action=drop-then-rst");
  ASSERT_TRUE(lost_reply.has_value());
  const auto refused = proxy.refuse_connections(60s);  // no reconnect until the swap is done
  std::optional<std::error_code> acquired;
  l.async_acquire(60s, [&](std::error_code ec) { acquired = ec; });
  std::string impostor;
  run_co(io, [&]() -> asio::awaitable<void> {
    ZKWIRE_CO_ASSERT(co_await test::wait_for_children(*admin, dir, 1));
    impostor = dir + "/" + (co_await test::children_of(*admin, dir)).front();
    co_await admin->async_remove(impostor, any_version, use_awaitable);
    create_options ephemeral;
    ephemeral.mode = create_mode::ephemeral;
    co_await admin->async_create(impostor, "impostor", ephemeral, use_awaitable);
    proxy.remove_rule(refused);
    // The acquire reconnects, refuses the impostor, creates a new node and waits behind the impostor.
    ZKWIRE_CO_ASSERT(co_await test::wait_for_children(*admin, dir, 2, 30s));
    EXPECT_FALSE(acquired.has_value());
    co_await admin->async_remove(impostor, any_version, use_awaitable);
    while (!acquired) co_await test::sleep_for(10ms);
    EXPECT_EQ(*acquired, std::error_code{});
    EXPECT_EQ(l.session_id(), session);
    EXPECT_NE(l.node_path(), impostor);
    const auto ours = recipes::parse_node_name(test::name_of(l.node_path()));
    const auto theirs = recipes::parse_node_name(test::name_of(impostor));
    EXPECT_NE(ours.guid, theirs.guid);
    EXPECT_EQ((co_await test::children_of(*admin, dir)).size(), 1U);
    co_await l.async_release(use_awaitable);
    EXPECT_TRUE((co_await test::children_of(*admin, dir)).empty());
  }());
  EXPECT_EQ(proxy.counters(*lost_reply)->fired, 1U);
}

// A holder cut off from the server while another session deletes its node and creates one of its own at the same
// path: back on its session, the holder finds a node at its path, but not its session's (ephemeralOwner). It is
// lost with session_changed, never held again (the check after a reconnect in hold_monitor.cpp; the simulation
// cannot reach it, since a client changes sessions only after the old one ended), and it leaves the other session's
// node alone: the cleanup of a lost hold reads the node's owner before it deletes (delete_own_until_gone).
TEST_F(lock_proxy_test, AHolderDoesNotTakeANodeRemadeByAnotherSessionAsItsOwn) {
  auto& io = io_;
  auto& proxy = *proxy_;
  auto& admin = admin_;
  const std::string& dir = dir_;
  lock l(*client_, dir);
  std::optional<std::error_code> lost;
  bool held_again = false;
  l.set_listener([&](const recipes::lock_event& e) {
    if (e.to == lock_state::lost) lost = e.reason;
    if (e.from == lock_state::uncertain && e.to == lock_state::held) held_again = true;
  });
  run_co(io, [&]() -> asio::awaitable<void> {
    co_await l.async_acquire(5s, use_awaitable);
    const std::string node = l.node_path();
    const auto refused = proxy.refuse_connections(60s);  // no reconnect until the swap is done
    proxy.cut_connections(faults::cut_kind::rst);
    while (l.state() == lock_state::held) co_await test::sleep_for(10ms);
    EXPECT_EQ(l.state(), lock_state::uncertain);
    co_await admin->async_remove(node, any_version, use_awaitable);
    create_options ephemeral;
    ephemeral.mode = create_mode::ephemeral;
    co_await admin->async_create(node, "impostor", ephemeral, use_awaitable);
    // The holder's exists and deletes of its node from now on: the check after the reconnect, then the lost hold's
    // cleanup (an exists that finds another owner, or a delete).
    const auto looked = proxy.add_rule("request op=exists path=" + node + " action=pass");
    const auto deleted = proxy.add_rule("request op=delete path=" + node + " action=pass");
    ZKWIRE_CO_ASSERT(looked.has_value() && deleted.has_value());
    const auto about_node = [&] { return proxy.counters(*looked)->matched + proxy.counters(*deleted)->matched; };
    proxy.remove_rule(refused);
    // Bounded: with the check gone the holder is held again and never lost.
    const auto deadline = std::chrono::steady_clock::now() + 20s;
    while (!lost && !held_again && std::chrono::steady_clock::now() < deadline) co_await test::sleep_for(10ms);
    EXPECT_FALSE(held_again) << "held again on a node of another session";
    ZKWIRE_CO_ASSERT(lost.has_value());
    EXPECT_EQ(*lost, recipes::lock_errc::session_changed) << lost->message();
    EXPECT_NE(l.state(), lock_state::held);
    // The cleanup's request (the second) answered, and nothing more pending: the impostor is still there (a delete
    // by path alone took it away).
    const auto cleanup_deadline = std::chrono::steady_clock::now() + 20s;
    while ((about_node() < 2 || client_->pending_requests() != 0) &&
           std::chrono::steady_clock::now() < cleanup_deadline) {
      co_await test::sleep_for(10ms);
    }
    EXPECT_GE(about_node(), 2U);
    const auto [gone, impostor] = co_await admin->async_get(node, test::tuple_awaitable);
    EXPECT_FALSE(gone) << "the lost holder deleted another session's node: " << gone.message();
    EXPECT_EQ(impostor.data, "impostor");
  }());
}

// A waiter whose session expires while it waits: the acquire fails with session_expired, its node went with the
// session, and the holder is untouched.
TEST_F(lock_proxy_test, AWaiterWhoseSessionExpiresFailsAndLeavesNothing) {
  auto& io = io_;
  auto& proxy = *proxy_;
  auto& admin = admin_;
  const std::string& dir = dir_;
  client_.reset();  // only the short-lived waiter goes through the proxy
  auto waiter_client = test::new_client(io, proxy.address(), 2000ms);
  lock holder(*admin, dir);
  lock waiter(*waiter_client, dir);
  std::optional<std::error_code> acquired;
  run_co(io, [&]() -> asio::awaitable<void> {
    co_await holder.async_acquire(5s, use_awaitable);
    waiter.async_acquire(60s, [&](std::error_code ec) { acquired = ec; });
    ZKWIRE_CO_ASSERT(co_await test::wait_for_children(*admin, dir, 2));
    // Silence the waiter's connection and keep it from reconnecting until the server expired its session
    // (the server deletes its node then).
    const auto refused = proxy.refuse_connections(120s);
    proxy.cut_connections(faults::cut_kind::blackhole);
    ZKWIRE_CO_ASSERT(co_await test::wait_for_children(*admin, dir, 1, 60s));
    proxy.remove_rule(refused);
    while (!acquired) co_await test::sleep_for(10ms);
    EXPECT_EQ(*acquired, client_error::session_expired) << acquired->message();
    EXPECT_EQ(waiter.state(), lock_state::released);
    EXPECT_EQ(holder.state(), lock_state::held);
    co_await test::expect_sole_child(*admin, dir, holder.node_path());
    co_await holder.async_release(use_awaitable);
  }());
}

// Where one client takes and releases a lock nobody else touches, the create's zxid proves the directory holds
// only our node, and once that was seen the acquire sends no listing (the proxy counts them). Any transaction
// between the release and the next create, here one of the admin client elsewhere, makes that acquire list on its
// own, and the next one pipeline its listing again until the proof holds once more.
TEST_F(lock_proxy_test, AnUncontendedAcquireListsOnlyAfterAForeignTransaction) {
  auto& io = io_;
  auto& admin = admin_;
  lock l(*client_, dir_);
  const auto listed = listing_counter();
  constexpr int rounds = 20;
  run_co(io, [&]() -> asio::awaitable<void> {
    for (int round = 0; round < rounds; ++round) co_await test::acquire_and_release(l);
  }());
  // The first acquire (nothing known), the second (its listing pipelined while the proof is checked once).
  EXPECT_EQ(listed(), 2U);
  run_co(io, [&]() -> asio::awaitable<void> {
    co_await admin->async_create(root() + "/elsewhere", "", use_awaitable);
    co_await test::acquire_and_release(l);
  }());
  EXPECT_EQ(listed(), 3U);
  run_co(io, [&]() -> asio::awaitable<void> {
    for (int round = 0; round < rounds; ++round) co_await test::acquire_and_release(l);
  }());
  EXPECT_EQ(listed(), 4U);  // one pipelined again, then none
  EXPECT_EQ(l.state(), lock_state::released);
}

// The case the skipped listing must never get wrong: another contender's create between our release and our next
// create. Our acquire must see it (and wait), not take the lock beside it.
TEST_F(lock_proxy_test, AContenderBetweenAReleaseAndTheNextCreateIsSeen) {
  auto& io = io_;
  auto& admin = admin_;
  const std::string& dir = dir_;
  lock l(*client_, dir);
  lock other(*admin, dir);
  run_co(io, [&]() -> asio::awaitable<void> {
    co_await test::acquire_and_release(l);
    co_await test::acquire_and_release(l);
    co_await other.async_acquire(5s, use_awaitable);
    auto attempt = l.async_acquire(0ms, test::tuple_awaitable);
    auto [ec] = co_await std::move(attempt);
    EXPECT_EQ(ec, recipes::lock_errc::timeout) << ec.message();
    EXPECT_EQ(l.state(), lock_state::released);
    co_await other.async_release(use_awaitable);
    // And the acquire after it holds, alone.
    co_await l.async_acquire(5s, use_awaitable);
    co_await test::expect_sole_child(*admin, dir, l.node_path());
    co_await l.async_release(use_awaitable);
  }());
}

// With one waiter behind the holder, a handoff is the holder's delete and the waiter's notification: the waiter's
// listing showed the holder as the only contender ahead, and a node created since sorts after ours, so it holds
// without listing again. With two ahead, the deletion of the one it watches (a waiter that gave up) is no grant
// while the holder still holds: it lists, watches the holder, and holds when the holder releases (listing no more:
// that listing showed one ahead).
TEST_F(lock_proxy_test, TheNextInLineHoldsWithoutListingAgain) {
  auto& io = io_;
  const auto listed = listing_counter();
  lock holder(*admin_, dir_);
  lock ahead(*admin_, dir_);  // gives up while it waits
  lock waiter(*client_, dir_);
  run_co(io, [&]() -> asio::awaitable<void> {
    // One ahead: the holder.
    co_await holder.async_acquire(5s, use_awaitable);
    std::optional<std::error_code> granted;
    waiter.async_acquire(20s, [&](std::error_code ec) { granted = ec; });
    ZKWIRE_CO_ASSERT(co_await test::wait_for_children(*admin_, dir_, 2));
    co_await test::settle(*client_);
    EXPECT_EQ(listed(), 1U);
    EXPECT_FALSE(granted.has_value());
    const auto holder_token = holder.fencing_token();
    co_await holder.async_release(use_awaitable);
    ZKWIRE_CO_ASSERT(co_await test::co_eventually([&] { return granted.has_value(); }));
    EXPECT_FALSE(*granted) << granted->message();
    EXPECT_EQ(waiter.state(), lock_state::held);
    EXPECT_GT(waiter.fencing_token(), holder_token);
    EXPECT_EQ(listed(), 1U) << "listed again after the only contender ahead was deleted";
    co_await waiter.async_release(use_awaitable);

    // Two ahead: the holder, and a waiter that gives up.
    co_await holder.async_acquire(5s, use_awaitable);
    std::optional<std::error_code> gave_up;
    ahead.async_acquire(1s, [&](std::error_code ec) { gave_up = ec; });
    ZKWIRE_CO_ASSERT(co_await test::wait_for_children(*admin_, dir_, 2));
    granted.reset();
    const auto before = listed();
    waiter.async_acquire(20s, [&](std::error_code ec) { granted = ec; });
    ZKWIRE_CO_ASSERT(co_await test::wait_for_children(*admin_, dir_, 3));
    ZKWIRE_CO_ASSERT(co_await test::co_eventually([&] { return gave_up.has_value(); }));
    EXPECT_EQ(*gave_up, recipes::lock_errc::timeout) << gave_up->message();
    // The watched node's deletion made the waiter list again (the positive signal), and not hold.
    ZKWIRE_CO_ASSERT(co_await test::co_eventually([&] { return listed() == before + 2; }));
    co_await test::settle(*client_);
    EXPECT_FALSE(granted.has_value()) << "held beside the holder";
    EXPECT_EQ(holder.state(), lock_state::held);
    co_await holder.async_release(use_awaitable);
    ZKWIRE_CO_ASSERT(co_await test::co_eventually([&] { return granted.has_value(); }));
    EXPECT_FALSE(*granted) << granted->message();
    EXPECT_EQ(listed(), before + 2) << "the listing after the holder's release was needless";
    co_await waiter.async_release(use_awaitable);
  }());
}

}  // namespace
}  // namespace zkwire
