// zkwire::client behaviour that needs no server: lifetimes, cancellation and immediate errors, with the
// connection pointed at a loopback port whose listener never accepts: each connection attempt waits for its
// handshake until the connect timeout, so a request started meanwhile stays waiting for it
// (docs/protocol.md#without-a-connection) while a test cancels it, closes or destroys the client.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <asio/bind_cancellation_slot.hpp>
#include <asio/bind_executor.hpp>
#include <asio/cancellation_signal.hpp>
#include <asio/io_context.hpp>
#include <asio/ip/tcp.hpp>
#include <asio/strand.hpp>
#include <asio/use_future.hpp>
#include <chrono>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "client_test_support.hpp"
#include "zkwire/client/blocking_client.hpp"
#include "zkwire/client/client.hpp"

namespace zkwire {
namespace {

// The kernel completes connections to it in the listener's backlog; nobody reads them. Kept for the whole program.
std::string unanswered_address() {
  static asio::io_context io;
  static const asio::ip::tcp::acceptor acceptor(io, asio::ip::tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0));
  return "127.0.0.1:" + std::to_string(acceptor.local_endpoint().port());
}

client_options offline_options() {
  client_options options;
  options.connect_string = unanswered_address();
  options.session_timeout = std::chrono::seconds(5);
  options.seed = 7;
  return options;
}

using test::run_until;

// Options no session could work with are refused by the constructor, naming the option, its value and the rule,
// rather than failing later as a connect timeout that sends the user to check the server.
TEST(client_offline, NonsensicalOptionsAreRefusedUpFront) {
  using std::chrono::milliseconds;
  asio::io_context io;
  const auto refusal = [&](const std::function<void(client_options&)>& change) -> std::string {
    client_options o = offline_options();
    change(o);
    try {
      client c(io.get_executor(), o);
    } catch (const std::invalid_argument& e) {
      return e.what();
    }
    return "accepted";
  };
  using ::testing::HasSubstr;
  EXPECT_THAT(refusal([](client_options& o) { o.session_timeout = milliseconds(0); }),
              HasSubstr("client_options::session_timeout is 0 ms: it must be positive"));
  EXPECT_THAT(refusal([](client_options& o) { o.session_timeout = milliseconds(-5); }),
              HasSubstr("session_timeout is -5 ms"));
  EXPECT_THAT(refusal([](client_options& o) { o.connect_timeout = milliseconds(-1); }),
              HasSubstr("connect_timeout is -1 ms"));
  EXPECT_THAT(refusal([](client_options& o) { o.request_timeout = milliseconds(-1); }),
              HasSubstr("request_timeout is -1 ms"));
  EXPECT_THAT(refusal([](client_options& o) { o.max_frame_size = 0; }), HasSubstr("max_frame_size is 0 bytes"));
  EXPECT_EQ(refusal([](client_options& o) { o.connect_timeout = milliseconds(0); }), "accepted");
  client_options blocking = offline_options();
  blocking.session_timeout = milliseconds(0);
  EXPECT_THROW(blocking_client{blocking}, std::invalid_argument);
}

// A host name that resolves to nothing is the cause reported when no session comes up, not a bare connect timeout.
TEST(client_offline, AnUnknownHostIsReportedAsSuch) {
  asio::io_context io;
  client_options o = offline_options();
  o.connect_string = "no-such-host.invalid:2181";
  o.connect_timeout = std::chrono::seconds(2);
  client c(io.get_executor(), o);
  std::optional<std::error_code> result;
  c.async_connect([&](std::error_code ec) { result = ec; });
  ASSERT_TRUE(run_until(
      io, [&] { return result.has_value(); }, std::chrono::seconds(20)));
  EXPECT_EQ(*result, client_errc::host_not_found) << result->message();
  EXPECT_EQ(*result, condition::timeout);
  EXPECT_THAT(result->message(), ::testing::HasSubstr("could not be resolved"));
}

// Per-call deadlines of the blocking facade: a call through with_timeout() fails with operation_timeout once its
// own time is up, waiting for a connection included, while the client's other calls keep their own limits.
TEST(client_offline, BlockingCallsHaveDeadlinesOfTheirOwn) {
  client_options o = offline_options();
  o.request_timeout = std::chrono::seconds(60);
  blocking_client c(o);
  const auto timed_out_within = [&](std::chrono::milliseconds limit, const std::function<void()>& call) {
    const auto start = std::chrono::steady_clock::now();
    try {
      call();
      ADD_FAILURE() << "operation_timeout expected";
    } catch (const std::system_error& e) {
      EXPECT_EQ(e.code(), client_error::operation_timeout) << e.what();
    }
    return std::chrono::steady_clock::now() - start < limit;
  };
  auto quick = c.with_timeout(std::chrono::milliseconds(300));
  EXPECT_TRUE(timed_out_within(std::chrono::seconds(5), [&] { (void)quick.get("/x"); }));
  EXPECT_TRUE(timed_out_within(std::chrono::seconds(5),
                               [&] { (void)c.with_timeout(std::chrono::milliseconds(200)).exists("/x"); }));
  EXPECT_TRUE(timed_out_within(std::chrono::seconds(5), [&] {
    const std::vector<multi_op> ops = {zkwire::ops::check("/x", 0)};
    (void)c.with_timeout(std::chrono::milliseconds(200)).multi(ops);
  }));
  EXPECT_TRUE(timed_out_within(std::chrono::milliseconds(500), [&] {
    c.with_timeout(std::chrono::seconds(0)).sync("/x");
  })) << "a zero timeout fails at once";
}

TEST(client_offline, NothingHappensBeforeTheFirstOperation) {
  asio::io_context io;
  client c(io.get_executor(), offline_options());
  EXPECT_EQ(c.state(), session_state::not_started);
  EXPECT_EQ(c.session_id(), 0);
  EXPECT_EQ(c.session_timeout(), std::chrono::seconds(5));
  EXPECT_EQ(io.poll(), 0U);
}

TEST(client_offline, QueuedRequestsFailWithClosedWhenTheClientIsDestroyed) {
  asio::io_context io;
  std::optional<std::error_code> result;
  {
    client c(io.get_executor(), offline_options());
    c.async_get("/x", [&](std::error_code ec, const get_result&) { result = ec; });
    io.poll();
    EXPECT_FALSE(result.has_value());
    EXPECT_EQ(c.pending_requests(), 1U);
  }
  EXPECT_FALSE(result.has_value());  // posted, not run inside the destructor
  ASSERT_TRUE(run_until(io, [&] { return result.has_value(); }));
  EXPECT_EQ(*result, make_error_code(client_error::closed));
  io.restart();
  io.run();  // every handler of the destroyed client finishes: run() returns
}

TEST(client_offline, CancelledWhileQueued) {
  asio::io_context io;
  client c(io.get_executor(), offline_options());
  asio::cancellation_signal signal;
  std::optional<std::error_code> result;
  c.async_set("/x", "data", any_version,
              asio::bind_cancellation_slot(signal.slot(), [&](std::error_code ec, const stat&) { result = ec; }));
  io.poll();
  signal.emit(asio::cancellation_type::terminal);
  EXPECT_FALSE(result.has_value());
  ASSERT_TRUE(run_until(io, [&] { return result.has_value(); }));
  EXPECT_EQ(*result, make_error_code(client_error::cancelled));
  EXPECT_EQ(c.pending_requests(), 0U);
}

TEST(client_offline, TotalCancellationIsNotSupportedAndIgnored) {
  asio::io_context io;
  asio::cancellation_signal signal;  // must outlive the operation, which is still pending when `c` goes away
  client c(io.get_executor(), offline_options());
  std::optional<std::error_code> result;
  c.async_get("/x",
              asio::bind_cancellation_slot(signal.slot(), [&](std::error_code ec, const get_result&) { result = ec; }));
  signal.emit(asio::cancellation_type::total);
  for (int i = 0; i < 20; ++i) io.poll();
  EXPECT_FALSE(result.has_value());
}

TEST(client_offline, InvalidArgumentsCompleteOnTheExecutor) {
  asio::io_context io;
  client c(io.get_executor(), offline_options());
  auto future = c.async_create("relative", "", asio::use_future);
  ASSERT_TRUE(run_until(io, [&] { return future.wait_for(std::chrono::seconds(0)) == std::future_status::ready; }));
  try {
    future.get();
    ADD_FAILURE() << "expected invalid_path";
  } catch (const std::system_error& e) {
    EXPECT_EQ(e.code(), make_error_code(client_error::invalid_path));
  }
}

TEST(client_offline, ConnectCancelledByTheCaller) {
  asio::io_context io;
  client c(io.get_executor(), offline_options());
  asio::cancellation_signal signal;
  std::optional<std::error_code> result;
  c.async_connect(asio::bind_cancellation_slot(signal.slot(), [&](std::error_code ec) { result = ec; }));
  io.poll();
  signal.emit(asio::cancellation_type::terminal);
  ASSERT_TRUE(run_until(io, [&] { return result.has_value(); }));
  EXPECT_EQ(*result, make_error_code(client_error::cancelled));
}

TEST(client_offline, CloseBeforeConnecting) {
  asio::io_context io;
  client c(io.get_executor(), offline_options());
  std::optional<std::error_code> closed;
  std::optional<std::error_code> pending;
  c.async_get("/x", [&](std::error_code ec, const get_result&) { pending = ec; });
  c.async_close([&](std::error_code ec) { closed = ec; });
  ASSERT_TRUE(run_until(io, [&] { return closed.has_value() && pending.has_value(); }));
  EXPECT_FALSE(*closed);
  EXPECT_EQ(*pending, make_error_code(client_error::closed));
  EXPECT_EQ(c.state(), session_state::closed);
}

TEST(client_offline, HandlersRunOnTheirAssociatedExecutor) {
  asio::io_context io;
  asio::io_context other;  // the handler's own executor, run separately
  client c(io.get_executor(), offline_options());
  auto strand = asio::make_strand(io);
  bool on_strand = false;
  c.async_get("bad", asio::bind_executor(strand, [&](std::error_code, const get_result&) {
                on_strand = strand.running_in_this_thread();
              }));
  std::optional<std::error_code> on_other;
  c.async_get("bad", asio::bind_executor(other.get_executor(), [&](std::error_code ec, const get_result&) {
                EXPECT_TRUE(other.get_executor().running_in_this_thread());
                on_other = ec;
              }));
  EXPECT_TRUE(run_until(
      io, [&] { return on_strand; }, std::chrono::seconds(10)));
  EXPECT_FALSE(on_other.has_value());  // queued on `other`, which has not run yet
  other.run();
  ASSERT_TRUE(on_other.has_value());
  EXPECT_EQ(*on_other, make_error_code(client_error::invalid_path));
}

TEST(client_offline, AnUnarmedWatchFailsToWait) {
  watch w;
  EXPECT_FALSE(w.armed());
  EXPECT_FALSE(w.fired());
  auto future = w.async_wait(asio::use_future);
  ASSERT_EQ(future.wait_for(std::chrono::seconds(5)), std::future_status::ready);
  try {
    future.get();
    ADD_FAILURE() << "expected no_watch";
  } catch (const std::system_error& e) {
    EXPECT_EQ(e.code(), make_error_code(client_errc::no_watch));
  }
}

}  // namespace
}  // namespace zkwire
