// zkwire::client behaviour that needs no server: lifetimes, cancellation and immediate errors, with the
// connection pointed at a loopback port nobody listens on.

#include <gtest/gtest.h>

#include <asio/bind_cancellation_slot.hpp>
#include <asio/bind_executor.hpp>
#include <asio/cancellation_signal.hpp>
#include <asio/io_context.hpp>
#include <asio/ip/tcp.hpp>
#include <asio/strand.hpp>
#include <asio/use_future.hpp>
#include <chrono>
#include <optional>
#include <string>

#include "client_test_support.hpp"
#include "zkwire/client/client.hpp"

namespace zkwire {
namespace {

std::string dead_address() {
  asio::io_context io;
  asio::ip::tcp::acceptor acceptor(io, asio::ip::tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0));
  return "127.0.0.1:" + std::to_string(acceptor.local_endpoint().port());
}

client_options offline_options() {
  client_options options;
  options.connect_string = dead_address();
  options.session_timeout = std::chrono::seconds(5);
  options.seed = 7;
  return options;
}

using test::run_until;

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
