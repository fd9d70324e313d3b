// A server at its limit of connections per client address (maxClientCnxns): it accepts each connection over the
// limit and closes it at once, before reading anything (its log: "Too many connections from /127.0.0.1 - max is
// N"). Every layer ends the wait for a session well within its connect timeout with an error naming the likely cause
// (client_errc::closed_before_handshake, docs/protocol.md#closed-before-handshake): the async and the blocking
// client, a lock on a client that never had a session, the command line (exit 4) and the C library (its log); a
// connect timeout shorter than those rounds names the same cause; and the client gets its session once a
// connection is free.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <asio/io_context.hpp>
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "limits_support.hpp"
#include "support/zk_test.hpp"
#include "zkwire/client/blocking_client.hpp"
#include "zkwire/recipes/lock.hpp"

namespace zkwire {
namespace {

using ::testing::HasSubstr;
using namespace std::chrono_literals;
using clock_type = std::chrono::steady_clock;

constexpr int max_connections = 2;
// Far longer than the few rounds the client waits: ending before it is what the tests look for.
constexpr auto long_connect_timeout = 30s;
// The bound on "at once": closed_before_handshake_rounds rounds of one host take at most two pauses of up to 1 s
// (docs/protocol.md#session-timers); the rest is a loaded machine under sanitizers.
constexpr auto at_once = 12s;

class max_client_cnxns_test : public test::standalone_test {
 public:
  static void SetUpTestSuite() {
    test::cluster_options o;
    o.extra_config = {"maxClientCnxns=" + std::to_string(max_connections)};
    start_suite_cluster(std::move(o));
  }

 protected:
  // Takes every connection this address may have, with sessions (a connection without one is dropped after a while).
  void SetUp() override {
    test::standalone_test::SetUp();
    // The previous test's connections may still count on the server for a moment after their clients closed:
    // until it dropped them, a holder's connect ends with closed_before_handshake, and is tried again.
    for (int i = 0; i < max_connections; ++i) {
      holders_.push_back(std::make_unique<blocking_client>(test::client_options_for(connect_string(), 30s)));
      ASSERT_TRUE(test::eventually([&] { return connected(*holders_.back()); }, 30s, "a holder's session"));
    }
  }
  void TearDown() override { holders_.clear(); }

  static bool connected(blocking_client& c) {
    try {
      c.connect();
      return true;
    } catch (const std::system_error& e) {
      if (e.code() != client_errc::closed_before_handshake) throw;
      return false;
    }
  }

  static client_options options(std::chrono::milliseconds connect_timeout = long_connect_timeout) {
    auto o = test::client_options_for(connect_string(), 30s);
    o.connect_timeout = connect_timeout;
    return o;
  }

  std::vector<std::unique_ptr<blocking_client>> holders_;
};

TEST_F(max_client_cnxns_test, TheBlockingClientNamesTheLimitAtOnceAndConnectsOnceFree) {
  blocking_client c(options());
  const auto started = clock_type::now();
  try {
    c.connect();
    ADD_FAILURE() << "no session expected with every connection taken";
  } catch (const std::system_error& e) {
    EXPECT_EQ(e.code(), client_errc::closed_before_handshake) << e.what();
    EXPECT_THAT(e.what(), HasSubstr("maxClientCnxns"));
  }
  EXPECT_LT(clock_type::now() - started, at_once) << "the client waited for nothing";
  // It kept trying: a freed connection gives it its session. (Until the server has dropped the freed connection, a
  // connect may still end with the same error: a user's retry, as here, then succeeds.)
  holders_.pop_back();
  EXPECT_TRUE(test::eventually([&] { return connected(c); }, 30s, "a session once a connection was freed"));
  EXPECT_EQ(c.state(), session_state::connected);
}

TEST_F(max_client_cnxns_test, TheAsyncClientAndALockEndAtOnceWithTheCause) {
  asio::io_context io;
  client c(io.get_executor(), options());
  std::optional<std::error_code> connected;
  const auto started = clock_type::now();
  c.async_connect([&](std::error_code ec) { connected = ec; });
  ASSERT_TRUE(test::run_until(
      io, [&] { return connected.has_value(); }, 60s, "async_connect's end"));
  EXPECT_EQ(*connected, client_errc::closed_before_handshake) << connected->message();
  EXPECT_TRUE(*connected == condition::timeout);
  EXPECT_LT(clock_type::now() - started, at_once);

  client fresh(io.get_executor(), options());
  recipes::lock l(fresh, "/limits-lock");
  std::optional<std::error_code> acquired;
  const auto lock_started = clock_type::now();
  // Its own timeout is far beyond the bounded wait: an acquire that waits for nothing fails the wait, not the check.
  l.async_acquire(120000ms, [&](std::error_code ec) { acquired = ec; });
  ASSERT_TRUE(test::run_until(
      io, [&] { return acquired.has_value(); }, 45s, "the acquire's end"));
  EXPECT_EQ(*acquired, client_errc::closed_before_handshake) << acquired->message();
  EXPECT_LT(clock_type::now() - lock_started, at_once);
}

// A connect timeout shorter than the rounds: when it ends the wait after the server closed a connection unanswered,
// the error names that cause, not the timeout. Which comes first is up to the machine and the reconnect pauses (a
// starved server may not even accept within the timeout; two short random pauses let the rounds end first), so the
// client's log says what happened, each outcome must carry its own error, and the attempts vary the pauses (the
// seed) and lengthen the timeout while no close came before it, until the interesting order is reached.
TEST_F(max_client_cnxns_test, AShortConnectTimeoutNamesTheCauseToo) {
  constexpr int attempts = 8;
  auto timeout = 400ms;
  std::string outcomes;
  bool timeout_after_a_close = false;
  for (int attempt = 0; attempt < attempts && !timeout_after_a_close; ++attempt) {
    std::mutex mutex;
    std::string log;
    auto o = options(timeout);
    o.seed = 1000U + static_cast<std::uint64_t>(attempt);
    o.logger = [&](log_level, std::string_view message) {
      const std::lock_guard lock(mutex);
      log.append(message).append("\n");
    };
    std::error_code got;
    {
      blocking_client c(std::move(o));
      try {
        c.connect();
        ADD_FAILURE() << "no session expected with every connection taken";
        return;
      } catch (const std::system_error& e) {
        got = e.code();
      }
    }  // the client's thread has stopped: the log is complete
    const bool closed = log.find("the server closed the connection") != std::string::npos;
    const bool timed_out = log.find("no session within the connect timeout") != std::string::npos;
    outcomes += "timeout " + std::to_string(timeout.count()) + " ms: " + (closed ? "closed" : "no close") + ", " +
                (timed_out ? "ended by the timeout" : "ended by the rounds") + "\n";
    if (closed) {
      EXPECT_EQ(got, client_errc::closed_before_handshake) << got.message() << "\nclient log:\n" << log;
    } else {
      EXPECT_EQ(got, client_errc::connect_timeout) << got.message() << "\nclient log:\n" << log;
      timeout = std::min(timeout * 2, std::chrono::milliseconds(6400));
    }
    timeout_after_a_close = closed && timed_out;
  }
  EXPECT_TRUE(timeout_after_a_close) << "the connect timeout never ended a wait in which the server had closed a "
                                     << "connection:\n"
                                     << outcomes;
}

TEST_F(max_client_cnxns_test, TheCommandLineExitsAtOnceNamingTheLimit) {
  const auto started = clock_type::now();
  const auto got = limits::cli(connect_string(), {"--connect-timeout", "30000", "get", "/"});
  EXPECT_EQ(got.status, 4) << got.err;
  EXPECT_THAT(got.err, HasSubstr("maxClientCnxns"));
  EXPECT_THAT(got.err, HasSubstr("(CONNECTIONLOSS)"));
  EXPECT_LT(clock_type::now() - started, at_once);
  const auto locked =
      limits::cli(connect_string(), {"--connect-timeout", "30000", "lock", "--timeout", "0", "/limits", "--", "true"});
  EXPECT_EQ(locked.status, 4) << locked.err;
  EXPECT_THAT(locked.err, HasSubstr("maxClientCnxns"));
}

TEST_F(max_client_cnxns_test, TheCLibraryLogsTheLikelyCause) {
  const auto result = limits::capi(connect_string(), {"no-session", "-", "20"});
  EXPECT_EQ(result.status, 0) << result.out << result.err;
  EXPECT_THAT(result.out, HasSubstr("log names maxClientCnxns: yes\nstate: not connected\n"));
}

}  // namespace
}  // namespace zkwire
