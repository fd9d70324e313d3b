// Locks under server faults, against real ZooKeeper servers:
//  - no server answer while holding (the server paused): lost is signalled by the holder's safety margin while
//    the server is still paused, before the next waiter is granted; that waiter then acquires, the stale holder
//    cannot write;
//  - kill -9 of the ensemble member the holder is connected to: the lock stays held (uncertain, then held
//    again on the same session), no second holder;
//  - a waiter cancelled while its connection is down leaves no node once it reconnects.

#include <gtest/gtest.h>

#include <asio/bind_cancellation_slot.hpp>
#include <asio/cancellation_signal.hpp>
#include <atomic>
#include <chrono>
#include <mutex>
#include <optional>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include "lock_test_support.hpp"
#include "support/zk_test.hpp"

namespace zkwire {
namespace {

using recipes::lock;
using recipes::lock_errc;
using recipes::lock_state;
using test::set_ops;
using namespace std::chrono_literals;
using clock_type = std::chrono::steady_clock;

// Lock states seen on the loop thread, with their times, for the test thread.
class state_record {
 public:
  void add(lock_state s, std::error_code reason) {
    const std::lock_guard guard(mutex_);
    entries_.push_back({s, reason, clock_type::now()});
  }
  [[nodiscard]] std::optional<clock_type::time_point> first(lock_state s) const {
    const std::lock_guard guard(mutex_);
    for (const auto& e : entries_) {
      if (e.state == s) return e.at;
    }
    return std::nullopt;
  }
  [[nodiscard]] std::vector<lock_state> states() const {
    const std::lock_guard guard(mutex_);
    std::vector<lock_state> out;
    for (const auto& e : entries_) out.push_back(e.state);
    return out;
  }
  [[nodiscard]] std::string text() const {
    const std::lock_guard guard(mutex_);
    std::string t;
    for (const auto& e : entries_) {
      t.append(recipes::lock_state_name(e.state));
      if (e.reason) t.append("(").append(e.reason.message()).append(")");
      t.append(" ");
    }
    return t;
  }

 private:
  struct entry {
    lock_state state;
    std::error_code reason;
    clock_type::time_point at;
  };
  mutable std::mutex mutex_;
  std::vector<entry> entries_;
};

bool wait_until(const std::function<bool()>& done, std::chrono::milliseconds timeout) {
  const auto deadline = clock_type::now() + timeout;
  while (!done()) {
    if (clock_type::now() > deadline) return false;
    std::this_thread::sleep_for(10ms);
  }
  return true;
}

class lock_expiry_test : public test::standalone_test {
 protected:
  // The holder's server stops answering: the holder must report the lock lost at its safety margin, before the
  // server can grant it to the next waiter. `released_before`: the holder took the lock and released it once first
  // (its safety-margin wakeup from that hold is still pending and serves the second one).
  void lost_before_next_grant(bool released_before);
};

TEST_F(lock_expiry_test, LostIsSignalledBeforeTheNextWaiterIsGranted) { lost_before_next_grant(false); }

TEST_F(lock_expiry_test, LostIsSignalledBeforeTheNextWaiterIsGrantedOnASecondHold) { lost_before_next_grant(true); }

void lock_expiry_test::lost_before_next_grant(bool released_before) {
  test::loop_thread loop;
  const std::string dir = root() + "/lock";
  const std::string data = root() + "-data";
  std::unique_ptr<client> stale_client;
  std::unique_ptr<client> next_client;
  std::unique_ptr<lock> stale;
  std::unique_ptr<lock> next;
  state_record stale_states;
  std::atomic<bool> next_granted{false};
  std::optional<clock_type::time_point> granted_at;
  std::mutex granted_mutex;
  loop.on_loop([&] {
    stale_client =
        std::make_unique<client>(loop.io().get_executor(), test::client_options_for(connect_string(), 2000ms));
    next_client =
        std::make_unique<client>(loop.io().get_executor(), test::client_options_for(connect_string(), 20000ms));
    stale = std::make_unique<lock>(*stale_client, dir);
    next = std::make_unique<lock>(*next_client, dir);
    stale->set_listener([&](const recipes::lock_event& e) { stale_states.add(e.to, e.reason); });
  });
  loop.on_loop([&] { return next_client->async_create(data, "0", asio::use_future); }).get();
  if (released_before) {
    loop.on_loop([&] { return stale->async_acquire(5s, asio::use_future); }).get();
    loop.on_loop([&] { return stale->async_release(asio::use_future); }).get();
  }
  loop.on_loop([&] { return stale->async_acquire(5s, asio::use_future); }).get();
  loop.on_loop([&] {
    next->async_acquire(60s, [&](std::error_code ec) {
      EXPECT_FALSE(ec) << ec.message();
      const std::lock_guard guard(granted_mutex);
      granted_at = clock_type::now();
      next_granted = true;
    });
  });
  ASSERT_TRUE(wait_until(
      [&] {
        return loop.on_loop([&] { return next_client->async_get_children(dir, asio::use_future); })
                   .get()
                   .children.size() == 2;
      },
      10s));

  // No answer from the server: the holder must give the lock up by its own clock (the safety margin), while the
  // server is still paused and so before it can expire the session and grant the lock to the next waiter.
  cluster().pause(0);
  const auto [last_answer, timeout] = loop.on_loop(
      [&] { return std::make_pair(stale_client->last_answered_send_time(), stale_client->session_timeout()); });
  const bool lost_while_paused =
      wait_until([&] { return stale_states.first(lock_state::lost).has_value(); }, timeout * 10);
  cluster().resume(0);
  ASSERT_TRUE(lost_while_paused) << "lost must be signalled while no server answers: " << stale_states.text();
  ASSERT_TRUE(last_answer.has_value());
  // Not before the margin's deadline (the holder did not give up a healthy lock early).
  EXPECT_GE(*stale_states.first(lock_state::lost), *last_answer + timeout - timeout / 4);
  EXPECT_NE(stale_states.text().find(make_error_code(lock_errc::safety_margin_passed).message()), std::string::npos)
      << stale_states.text();

  ASSERT_TRUE(wait_until([&] { return next_granted.load(); }, 30s)) << stale_states.text();
  ASSERT_TRUE(stale_states.first(lock_state::lost).has_value()) << stale_states.text();
  {
    const std::lock_guard guard(granted_mutex);
    EXPECT_LT(*stale_states.first(lock_state::lost), *granted_at);
  }
  EXPECT_EQ(loop.on_loop([&] { return stale->state(); }), lock_state::lost);

  // The stale holder's guarded write fails; the new holder's succeeds.
  auto stale_write = loop.on_loop([&] {
    std::promise<std::error_code> p;
    auto f = p.get_future();
    stale->async_guarded_multi(
        set_ops(data, "stale"),
        [p = std::move(p)](std::error_code ec, const std::vector<op_result>&) mutable { p.set_value(ec); });
    return f;
  });
  EXPECT_TRUE(stale_write.get());
  loop.on_loop([&] { return next->async_guarded_multi(set_ops(data, "fresh"), asio::use_future); }).get();
  EXPECT_EQ(loop.on_loop([&] { return next_client->async_get(data, asio::use_future); }).get().data, "fresh");
  loop.on_loop([&] { return next->async_release(asio::use_future); }).get();
  loop.on_loop([&] {
    stale.reset();
    next.reset();
    stale_client.reset();
    next_client.reset();
  });
}

class lock_ensemble_test : public test::ensemble_test {
 protected:
  // The member a client is connected to.
  std::size_t member_of(test::loop_thread& loop, client& c) {
    const auto host = loop.on_loop([&] { return c.connected_host(); });
    EXPECT_TRUE(host.has_value());
    for (std::size_t i = 0; i < cluster().member_count(); ++i) {
      if (host && cluster().client_port(i) == host->port) return i;
    }
    ADD_FAILURE() << "not connected to a member";
    return 0;
  }
};

TEST_F(lock_ensemble_test, KillingTheHoldersMemberKeepsTheLockHeld) {
  test::loop_thread loop;
  const std::string dir = root() + "/lock";
  std::unique_ptr<client> holder_client;
  std::unique_ptr<client> waiter_client;
  std::unique_ptr<lock> holder;
  std::unique_ptr<lock> waiter;
  state_record holder_states;
  std::atomic<bool> waiter_granted{false};
  loop.on_loop([&] {
    holder_client =
        std::make_unique<client>(loop.io().get_executor(), test::client_options_for(connect_string(), 8000ms));
    waiter_client =
        std::make_unique<client>(loop.io().get_executor(), test::client_options_for(connect_string(), 8000ms));
    holder = std::make_unique<lock>(*holder_client, dir);
    waiter = std::make_unique<lock>(*waiter_client, dir);
    holder->set_listener([&](const recipes::lock_event& e) { holder_states.add(e.to, e.reason); });
  });
  loop.on_loop([&] { return holder->async_acquire(5s, asio::use_future); }).get();
  const auto node = loop.on_loop([&] { return holder->node_path(); });
  const auto session = loop.on_loop([&] { return holder_client->session_id(); });
  loop.on_loop([&] { waiter->async_acquire(60s, [&](std::error_code ec) { waiter_granted = !ec; }); });
  ASSERT_TRUE(wait_until(
      [&] {
        return loop.on_loop([&] { return waiter_client->async_get_children(dir, asio::use_future); })
                   .get()
                   .children.size() == 2;
      },
      10s));

  cluster().kill9(member_of(loop, *holder_client));
  ASSERT_TRUE(wait_until([&] { return holder_states.first(lock_state::uncertain).has_value(); }, 10s))
      << holder_states.text();
  ASSERT_TRUE(wait_until([&] { return loop.on_loop([&] { return holder->state(); }) == lock_state::held; }, 20s))
      << holder_states.text();
  // The waiter's client has handled everything the server sent it so far (two round trips in a row, retried while
  // it reconnects): a grant caused by the member's death would have been delivered by then.
  for (int i = 0; i < 2; ++i) {
    ASSERT_TRUE(wait_until(
        [&] {
          try {
            loop.on_loop([&] { return waiter_client->async_exists("/", asio::use_future); }).get();
            return true;
          } catch (const std::system_error&) {
            return false;
          }
        },
        20s));
  }
  EXPECT_FALSE(waiter_granted.load()) << "a second holder";
  EXPECT_FALSE(holder_states.first(lock_state::lost).has_value()) << holder_states.text();
  EXPECT_EQ(loop.on_loop([&] { return holder_client->session_id(); }), session);
  const auto st = loop.on_loop([&] { return holder_client->async_exists(node, asio::use_future); }).get();
  ASSERT_TRUE(st.has_value());
  EXPECT_EQ(st->ephemeral_owner, session);

  loop.on_loop([&] { return holder->async_release(asio::use_future); }).get();
  ASSERT_TRUE(wait_until([&] { return waiter_granted.load(); }, 20s));
  loop.on_loop([&] { return waiter->async_release(asio::use_future); }).get();
  loop.on_loop([&] {
    holder.reset();
    waiter.reset();
    holder_client.reset();
    waiter_client.reset();
  });
}

TEST_F(lock_ensemble_test, AWaiterCancelledWhileDisconnectedLeavesNoNode) {
  test::loop_thread loop;
  const std::string dir = root() + "/lock";
  std::unique_ptr<client> holder_client;
  std::unique_ptr<client> waiter_client;
  std::unique_ptr<lock> holder;
  std::unique_ptr<lock> waiter;
  asio::cancellation_signal cancel;
  std::atomic<bool> suspended{false};
  std::atomic<bool> cancelled{false};
  loop.on_loop([&] {
    holder_client =
        std::make_unique<client>(loop.io().get_executor(), test::client_options_for(connect_string(), 8000ms));
    waiter_client =
        std::make_unique<client>(loop.io().get_executor(), test::client_options_for(connect_string(), 8000ms));
    holder = std::make_unique<lock>(*holder_client, dir);
    waiter = std::make_unique<lock>(*waiter_client, dir);
    waiter_client->add_state_observer([&](const state_event& e) {
      if (e.to == session_state::suspended) suspended = true;
    });
  });
  loop.on_loop([&] { return holder->async_acquire(5s, asio::use_future); }).get();
  loop.on_loop([&] {
    waiter->async_acquire(asio::bind_cancellation_slot(
        cancel.slot(), [&](std::error_code ec) { cancelled = ec == lock_errc::cancelled; }));
  });
  const auto children = [&] {
    return loop.on_loop([&] { return holder_client->async_get_children(dir, asio::use_future); }).get().children.size();
  };
  ASSERT_TRUE(wait_until([&] { return children() == 2; }, 10s));

  const auto waiter_member = member_of(loop, *waiter_client);
  const auto holder_member = member_of(loop, *holder_client);
  cluster().kill9(waiter_member);
  ASSERT_TRUE(wait_until([&] { return suspended.load(); }, 10s));
  loop.on_loop([&] { cancel.emit(asio::cancellation_type::terminal); });
  ASSERT_TRUE(wait_until([&] { return cancelled.load(); }, 5s));
  if (holder_member == waiter_member) {
    ASSERT_TRUE(wait_until([&] { return loop.on_loop([&] { return holder->state(); }) == lock_state::held; }, 20s));
  }
  // Once the waiter's session is back on another member, its node is deleted.
  EXPECT_TRUE(wait_until([&] { return children() == 1; }, 20s));
  loop.on_loop([&] { return holder->async_release(asio::use_future); }).get();
  EXPECT_TRUE(wait_until([&] { return children() == 0; }, 10s));
  loop.on_loop([&] {
    holder.reset();
    waiter.reset();
    holder_client.reset();
    waiter_client.reset();
  });
}

}  // namespace
}  // namespace zkwire
