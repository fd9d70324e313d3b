// Request deadlines against a real server that stops answering without dropping the connection (SIGSTOP): the
// request completes with a timeout on time, the connection and session stay up, the late replies are dropped
// without upsetting the xid order, and a write that timed out may still have been applied (outcome unknown).

#include <gtest/gtest.h>

#include <asio/io_context.hpp>
#include <chrono>
#include <string>

#include "client_test_support.hpp"
#include "support/state_recorder.hpp"
#include "support/zk_test.hpp"
#include "zkwire/client/client.hpp"

namespace zkwire {
namespace {

using asio::use_awaitable;
using test::tuple_awaitable;
using namespace std::chrono_literals;
using steady = std::chrono::steady_clock;

// The session timeout keeps the read timeout (2/3 of it) far beyond the pause: only the deadlines can fire.
constexpr auto session_timeout = 30s;
constexpr auto deadline = 500ms;
// Upper bound for a completion at a 500 ms deadline on a loaded machine (timer and scheduling latency only).
constexpr auto late_margin = 3s;

class client_deadline_test : public test::standalone_test {};

TEST_F(client_deadline_test, PausedServerTimesOutRequestsNotTheConnection) {
  asio::io_context io;
  const auto states = test::state_recorder::make();
  auto options = test::client_options_for(connect_string(), session_timeout);
  options.request_timeout = deadline;  // the default for every request; with_timeout overrides it per call
  client c(io.get_executor(), options);
  c.set_state_listener(states->listener());
  test::run_co(
      io,
      [&]() -> asio::awaitable<void> {
        co_await c.async_create(root(), "v0", use_awaitable);
        const std::int64_t session = c.session_id();

        cluster().pause(0);
        // A read with the default deadline.
        auto start = steady::now();
        auto read = c.async_get(root(), tuple_awaitable);
        auto [read_ec, unused] = co_await std::move(read);
        auto elapsed = steady::now() - start;
        EXPECT_EQ(read_ec, client_error::operation_timeout) << read_ec.message();
        EXPECT_EQ(read_ec, condition::timeout);
        EXPECT_GE(elapsed, deadline);
        EXPECT_LT(elapsed, deadline + late_margin);

        // A write with its own deadline: the caller sees a timeout, but the server still has the request.
        start = steady::now();
        auto write = c.async_set(root(), "v1", any_version, with_timeout(2 * deadline, tuple_awaitable));
        auto [write_ec, unused_stat] = co_await std::move(write);
        elapsed = steady::now() - start;
        EXPECT_EQ(write_ec, condition::timeout) << write_ec.message();
        EXPECT_GE(elapsed, 2 * deadline);
        EXPECT_LT(elapsed, 2 * deadline + late_margin);

        // The connection and the session were not touched.
        EXPECT_EQ(c.state(), session_state::connected);
        EXPECT_EQ(c.session_id(), session);
        EXPECT_EQ(c.pending_requests(), 0U);

        cluster().resume(0);
        // The late replies of the get and the set arrive first and are dropped; this read is matched to its own
        // reply (a mismatch would be a protocol violation: the connection would drop and the read fail).
        auto after = c.async_get(root(), with_timeout(20s, tuple_awaitable));
        auto [after_ec, got] = co_await std::move(after);
        EXPECT_FALSE(after_ec) << after_ec.message();
        // The write that timed out was applied after all: outcome unknown means exactly this.
        EXPECT_EQ(got.data, "v1");
        auto more = c.async_set(root(), "v2", any_version, with_timeout(20s, tuple_awaitable));
        auto [more_ec, more_stat] = co_await std::move(more);
        EXPECT_FALSE(more_ec) << more_ec.message();
        EXPECT_EQ(more_stat.version, 2);
        EXPECT_EQ(c.session_id(), session);
        co_await c.async_close(use_awaitable);
      }(),
      60s);
  // Connected once, never suspended: no deadline broke the connection.
  EXPECT_FALSE(states->contains(session_state::suspended)) << states->text();
}

TEST_F(client_deadline_test, PerCallTimeoutOverridesTheDefaultAndZeroFailsUnsent) {
  asio::io_context io;
  auto options = test::client_options_for(connect_string(), session_timeout);
  options.request_timeout = 1ms;  // far too short for any round trip under load...
  client c(io.get_executor(), options);
  test::run_co(
      io,
      [&]() -> asio::awaitable<void> {
        auto connect = c.async_connect(use_awaitable);
        co_await std::move(connect);
        // ... so per-call timeouts carry the test.
        auto create = c.async_create(root(), "x", with_timeout(20s, tuple_awaitable));
        auto [create_ec, created] = co_await std::move(create);
        EXPECT_FALSE(create_ec) << create_ec.message();
        // A zero timeout is already past: nothing is sent, so this create certainly did not happen.
        auto never = c.async_create(root() + "/never", "", with_timeout(0ms, tuple_awaitable));
        auto [never_ec, unused] = co_await std::move(never);
        EXPECT_EQ(never_ec, condition::timeout);
        auto check = c.async_exists(root() + "/never", with_timeout(20s, tuple_awaitable));
        auto [check_ec, st] = co_await std::move(check);
        EXPECT_FALSE(check_ec);
        EXPECT_FALSE(st.has_value());
        co_await c.async_close(use_awaitable);
      }(),
      60s);
}

// A watched read that times out while the server is paused is applied when the server resumes, so the server
// registers its watch although the client gave up on it: the client removes that watch when the late reply comes.
TEST_F(client_deadline_test, TimedOutWatchedReadLeavesNoWatchOnTheServer) {
  asio::io_context io;
  client c(io.get_executor(), test::client_options_for(connect_string(), session_timeout));
  const std::string abandoned = root() + "/abandoned";
  const std::string kept = root() + "/kept";
  int abandoned_events = 0;
  test::run_co(
      io,
      [&]() -> asio::awaitable<void> {
        co_await c.async_create(root(), "", use_awaitable);
        co_await c.async_create(abandoned, "", use_awaitable);
        co_await c.async_create(kept, "", use_awaitable);
        // A live watch: wchp lists it, so an empty or unreadable watch table cannot pass the check below.
        auto live = c.async_get(
            kept, [](const watch_event&) {}, with_timeout(20s, tuple_awaitable));
        auto [live_ec, live_data] = co_await std::move(live);
        EXPECT_FALSE(live_ec) << live_ec.message();

        cluster().pause(0);
        watch_callback on_change = [&](const watch_event&) { ++abandoned_events; };
        auto watched = c.async_get(abandoned, std::move(on_change), with_timeout(deadline, tuple_awaitable));
        auto [watched_ec, unused] = co_await std::move(watched);
        EXPECT_EQ(watched_ec, condition::timeout) << watched_ec.message();
        cluster().resume(0);

        // The first read is answered after the late getData reply, upon which the client wrote its removeWatches;
        // the second is written after that removal, so the server has applied it when the second is answered.
        for (int i = 0; i < 2; ++i) {
          auto read = c.async_exists(root(), with_timeout(20s, tuple_awaitable));
          auto [read_ec, st] = co_await std::move(read);
          EXPECT_FALSE(read_ec) << read_ec.message();
        }
        const std::string table = cluster().four_letter(0, "wchp");
        EXPECT_NE(table.find(kept + "\n"), std::string::npos) << table;
        EXPECT_EQ(table.find(abandoned + "\n"), std::string::npos) << table;
        EXPECT_EQ(c.pending_requests(), 0U);
        co_await c.async_close(use_awaitable);
      }(),
      60s);
  EXPECT_EQ(abandoned_events, 0);  // its caller was told "timeout", never an event
}

}  // namespace
}  // namespace zkwire
