// Requests while there is no connection, against a real server that is stopped (connections refused) or paused
// (connections accepted by its kernel, never answered): by default each waits for the round of connection attempts
// under way and fails with connection_loss when it fails, so none waits for the server's return; the session
// resumes once it is back. connection_wait::one_attempt and none as documented (docs/protocol.md#without-a-connection).

#include <gtest/gtest.h>

#include <asio/io_context.hpp>
#include <chrono>
#include <string>

#include "client_test_support.hpp"
#include "support/net.hpp"
#include "support/zk_test.hpp"
#include "zkwire/client/client.hpp"

namespace zkwire {
namespace {

using asio::use_awaitable;
using test::tuple_awaitable;
using namespace std::chrono_literals;
using steady = std::chrono::steady_clock;

// Scheduling and timer latency on a loaded two-core machine, beyond the bound a test checks.
constexpr auto margin = 2s;

class client_no_connection_test : public test::standalone_test {};

// A request made while the stopped server refuses every connection fails within the pause before the next round
// (refused attempts take no time), again and again, and the session is resumed when the server is back (its
// restart keeps the session).
TEST_F(client_no_connection_test, StoppedServerFailsRequestsAtOnceAndTheSessionResumes) {
  asio::io_context io;
  // Long enough for a server restart: the session must survive it.
  client c(io.get_executor(), test::client_options_for(connect_string(), 30s));
  test::run_co(io, [&]() -> asio::awaitable<void> {
    co_await c.async_create(root(), "v0", use_awaitable);
    const std::int64_t session = c.session_id();
    cluster().stop(0);
    for (int i = 0; i < 200 && c.state() != session_state::suspended; ++i) co_await test::sleep_for(100ms);
    ZKWIRE_CO_ASSERT(c.state() == session_state::suspended);
    for (int i = 0; i < 5; ++i) {
      const auto start = steady::now();
      auto read = c.async_get(root(), tuple_awaitable);
      auto [ec, unused] = co_await std::move(read);
      EXPECT_EQ(ec, client_error::connection_loss) << ec.message();
      EXPECT_LT(steady::now() - start, 1s + margin) << "a pause of up to 1 s, then a refused round";
      co_await test::sleep_for(300ms);
    }
    EXPECT_EQ(c.state(), session_state::suspended);
    cluster().start(0);
    EXPECT_TRUE(cluster().wait_ready(0));
    co_await c.async_connect(use_awaitable);
    EXPECT_EQ(c.session_id(), session);
    auto [ec, got] = co_await c.async_get(root(), tuple_awaitable);
    EXPECT_FALSE(ec) << ec.message();
    EXPECT_EQ(got.data, "v0");
    co_await c.async_close(use_awaitable);
  }());
}

// The bound the default exists for: a server that takes connections and never answers (paused) still ends every
// request within a pause and a round of attempts, here one host's connect timeout, the session timeout. With
// requests queued until a connection comes back, the read would wait until the server resumes.
TEST_F(client_no_connection_test, UnansweredServerEndsEveryRequestWithinARound) {
  asio::io_context io;
  constexpr auto session_timeout = 3s;  // read timeout 2 s, one host: connect attempts of 3 s
  client c(io.get_executor(), test::client_options_for(connect_string(), session_timeout));
  bool resumed = false;
  test::run_co(
      io,
      [&]() -> asio::awaitable<void> {
        co_await c.async_create(root(), "v0", use_awaitable);
        cluster().pause(0);
        const auto paused = steady::now();
        // Written, then the connection is dropped at the read timeout.
        auto in_flight = c.async_get(root(), tuple_awaitable);
        auto [flight_ec, unused] = co_await std::move(in_flight);
        EXPECT_EQ(flight_ec, client_error::connection_loss) << flight_ec.message();
        EXPECT_LT(steady::now() - paused, session_timeout * 2 / 3 + margin);
        ZKWIRE_CO_ASSERT(c.state() == session_state::suspended);
        // Never written: each waits for an attempt the paused server's kernel accepts and nobody answers.
        for (int i = 0; i < 2; ++i) {
          const auto start = steady::now();
          auto read = c.async_get(root(), tuple_awaitable);
          auto [ec, unused_result] = co_await std::move(read);
          EXPECT_EQ(ec, client_error::connection_loss) << ec.message();
          // The round under way, or the pause (up to 1 s) and the next round.
          EXPECT_LT(steady::now() - start, 1s + session_timeout + margin) << "request " << i;
        }
        cluster().resume(0);
        resumed = true;
      }(),
      30s);
  if (!resumed) cluster().resume(0);
}

// one_attempt (the C and Java clients' rule) fails a request with the first refused host of the list, where the
// default waits for the rest of the round and the request goes out on the next host.
TEST_F(client_no_connection_test, OneAttemptFailsWithARefusedHostWhereOneRoundGoesOn) {
  const std::string refused = "127.0.0.1:" + std::to_string(test::pick_free_ports(1).front());  // nobody listens
  for (const auto wait : {connection_wait::one_round, connection_wait::one_attempt}) {
    asio::io_context io;
    auto options = test::client_options_for(refused + "," + connect_string());
    options.shuffle_hosts = false;  // the refused host first
    options.wait_for_connection = wait;
    client c(io.get_executor(), options);
    test::run_co(io, [&]() -> asio::awaitable<void> {
      auto read = c.async_exists("/", tuple_awaitable);  // starts the session
      auto [ec, st] = co_await std::move(read);
      if (wait == connection_wait::one_round) {
        EXPECT_FALSE(ec) << ec.message();
      } else {
        EXPECT_EQ(ec, client_error::connection_loss) << ec.message();
      }
      co_await c.async_connect(use_awaitable);
      co_await c.async_close(use_awaitable);
    }());
  }
}

// none (fail fast): without an established connection a request fails at once, also while the first one is being
// made; once connected, requests go out as usual.
TEST_F(client_no_connection_test, NoneFailsAtOnceUntilConnected) {
  asio::io_context io;
  auto options = test::client_options_for(connect_string());
  options.wait_for_connection = connection_wait::none;
  client c(io.get_executor(), options);
  test::run_co(io, [&]() -> asio::awaitable<void> {
    auto early = c.async_exists("/", tuple_awaitable);
    auto [early_ec, unused] = co_await std::move(early);
    EXPECT_EQ(early_ec, client_error::connection_loss) << early_ec.message();
    co_await c.async_connect(use_awaitable);
    auto [ec, st] = co_await c.async_exists("/", tuple_awaitable);
    EXPECT_FALSE(ec) << ec.message();
    co_await c.async_close(use_awaitable);
  }());
}

}  // namespace
}  // namespace zkwire
