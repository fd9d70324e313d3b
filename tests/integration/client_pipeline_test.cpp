// zkwire::client request pipelining, cancellation and connection-level failures against a real ZooKeeper 3.8
// server: 10,000 pipelined operations complete exactly once each and in order; cancelled operations complete
// with client_error::cancelled; connect timeouts and unreachable servers give clear errors.

#include <gtest/gtest.h>

#include <asio/bind_cancellation_slot.hpp>
#include <asio/cancellation_signal.hpp>
#include <asio/experimental/awaitable_operators.hpp>
#include <asio/io_context.hpp>
#include <asio/ip/tcp.hpp>
#include <asio/steady_timer.hpp>
#include <asio/use_awaitable.hpp>
#include <string>
#include <variant>
#include <vector>

#include "client_test_support.hpp"
#include "support/zk_test.hpp"
#include "zkwire/client/client.hpp"

namespace zkwire {
namespace {

using asio::use_awaitable;
using test::tuple_awaitable;

class client_pipeline_test : public test::standalone_test {
 protected:
  client make_client(std::string connect = {}) {
    return client(io_.get_executor(), test::client_options_for(connect.empty() ? connect_string() : connect));
  }
  template <class T>
  T run(asio::awaitable<T> co) {
    return test::run_co(io_, std::move(co));
  }

  // A loopback port nothing listens on.
  static std::uint16_t dead_port() {
    asio::io_context io;
    asio::ip::tcp::acceptor acceptor(io, asio::ip::tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0));
    return acceptor.local_endpoint().port();  // closed again when the acceptor goes away
  }

  asio::io_context io_;
};

TEST_F(client_pipeline_test, TenThousandPipelinedOperationsCompleteOnceInOrder) {
  client c = make_client();
  run([&]() -> asio::awaitable<void> { co_await c.async_create(root(), "", use_awaitable); }());

  constexpr int count = 10000;
  std::vector<int> completions(count, 0);
  std::vector<int> order;
  order.reserve(count);
  int errors = 0;
  int last_version = -1;
  for (int i = 0; i < count; ++i) {
    auto done = [&, i](std::error_code ec, auto&& result) {
      ++completions[static_cast<std::size_t>(i)];
      order.push_back(i);
      if (ec) ++errors;
      if constexpr (std::is_same_v<std::decay_t<decltype(result)>, stat>) last_version = result.version;
    };
    if (i % 2 == 0) {
      c.async_set(root(), std::to_string(i), any_version, std::move(done));
    } else {
      c.async_get(root(), std::move(done));
    }
  }
  EXPECT_TRUE(order.empty());  // nothing completes inside an initiating function
  ASSERT_TRUE(test::run_until(
      io_, [&] { return order.size() >= count; }, std::chrono::seconds(120)));
  // One more operation completes after every earlier one (completions come in submission order): a duplicate
  // completion of the 10,000 would have been delivered by the time it is.
  run([&]() -> asio::awaitable<void> { co_await c.async_sync(root(), use_awaitable); }());
  EXPECT_EQ(errors, 0);
  ASSERT_EQ(order.size(), static_cast<std::size_t>(count));
  for (int i = 0; i < count; ++i) {
    EXPECT_EQ(completions[static_cast<std::size_t>(i)], 1) << i;
    EXPECT_EQ(order[static_cast<std::size_t>(i)], i);
  }
  EXPECT_EQ(last_version, count / 2);
  EXPECT_EQ(c.pending_requests(), 0U);
}

TEST_F(client_pipeline_test, CancellingAPendingOperation) {
  client c = make_client();
  run([&]() -> asio::awaitable<void> {
    co_await c.async_create(root(), "", use_awaitable);

    // Cancelled in the same turn as it was started: it never completes with a result.
    asio::cancellation_signal signal;
    std::optional<std::error_code> result;
    c.async_get(root(), asio::bind_cancellation_slot(signal.slot(), [&](std::error_code ec, const get_result&) {
                  EXPECT_FALSE(result.has_value());
                  result = ec;
                }));
    signal.emit(asio::cancellation_type::terminal);
    EXPECT_FALSE(result.has_value());  // the completion is delivered later, on the executor
    // A round trip started after the cancellation completes after the cancelled operation's completion.
    co_await c.async_sync("/", use_awaitable);
    ZKWIRE_CO_ASSERT(result.has_value());
    EXPECT_EQ(*result, make_error_code(client_error::cancelled));

    // Cancelling after completion does nothing: no second completion, no error, nothing cancelled by mistake.
    int late_completions = 0;
    std::optional<std::error_code> done;
    asio::cancellation_signal late;
    c.async_exists(root(), asio::bind_cancellation_slot(late.slot(), [&](std::error_code ec, const auto&) {
                     ++late_completions;
                     done = ec;
                   }));
    co_await c.async_sync("/", use_awaitable);
    ZKWIRE_CO_ASSERT(done.has_value());
    EXPECT_FALSE(*done);
    // An operation in flight while the late cancellation is emitted must not be what it cancels.
    std::optional<std::error_code> bystander;
    c.async_get(root(), [&](std::error_code ec, const get_result&) { bystander = ec; });
    late.emit(asio::cancellation_type::terminal);
    // The session is unaffected, and a later operation completes after anything the late cancel could cause.
    co_await c.async_set(root(), "after", any_version, use_awaitable);
    ZKWIRE_CO_ASSERT(bystander.has_value());
    EXPECT_FALSE(*bystander) << bystander->message();
    const auto after = co_await c.async_get(root(), use_awaitable);
    EXPECT_EQ(after.data, "after");
    EXPECT_EQ(late_completions, 1);
    EXPECT_FALSE(*done);
    EXPECT_EQ(c.pending_requests(), 0U);
  }());
}

TEST_F(client_pipeline_test, AwaitableOperatorsCancelTheLoser) {
  using namespace asio::experimental::awaitable_operators;
  client c = make_client();
  run([&]() -> asio::awaitable<void> {
    co_await c.async_create(root(), "", use_awaitable);
    auto [got, w] = co_await c.async_get_watch(root(), use_awaitable);
    asio::steady_timer timer(co_await asio::this_coro::executor, std::chrono::milliseconds(50));
    // Nothing changes the node, so the timer wins and the wait is cancelled.
    auto winner = co_await (w.async_wait(use_awaitable) || timer.async_wait(use_awaitable));
    EXPECT_EQ(winner.index(), 1U);
    // The watch stays armed.
    co_await c.async_set(root(), "x", any_version, use_awaitable);
    const auto e = co_await w.async_wait(use_awaitable);
    EXPECT_EQ(e.type, event_type::node_data_changed);
  }());
}

TEST_F(client_pipeline_test, ConnectTimesOutWithAClearError) {
  auto options = test::client_options_for("127.0.0.1:" + std::to_string(dead_port()), std::chrono::seconds(4));
  options.connect_timeout = std::chrono::milliseconds(600);
  client c(io_.get_executor(), options);
  const auto start = std::chrono::steady_clock::now();
  run([&]() -> asio::awaitable<void> {
    auto [ec] = co_await c.async_connect(tuple_awaitable);
    EXPECT_EQ(ec, make_error_code(client_errc::connect_timeout));
    EXPECT_NE(ec.message().find("connect timeout"), std::string::npos);
  }());
  const auto elapsed = std::chrono::steady_clock::now() - start;
  EXPECT_GE(elapsed, std::chrono::milliseconds(550));
  EXPECT_LT(elapsed, std::chrono::milliseconds(3000));
}

TEST_F(client_pipeline_test, QueuedOperationsWaitForTheConnectionAndCanBeCancelled) {
  // The first host is dead, the second is the real server: requests queue until the handshake, then go out.
  const std::string hosts = "127.0.0.1:" + std::to_string(dead_port()) + "," + cluster().address(0);
  auto options = test::client_options_for(hosts);
  options.shuffle_hosts = false;
  client c(io_.get_executor(), options);
  asio::cancellation_signal signal;
  std::optional<std::error_code> cancelled;
  c.async_get(
      "/", asio::bind_cancellation_slot(signal.slot(), [&](std::error_code ec, const get_result&) { cancelled = ec; }));
  signal.emit(asio::cancellation_type::partial);
  run([&]() -> asio::awaitable<void> {
    auto created = co_await c.async_create(root(), "", use_awaitable);
    EXPECT_EQ(created.path, root());
  }());
  ASSERT_TRUE(cancelled.has_value());
  EXPECT_EQ(*cancelled, make_error_code(client_error::cancelled));
  ASSERT_TRUE(c.connected_host().has_value());
  EXPECT_EQ(c.connected_host()->port, cluster().client_port(0));
}

TEST_F(client_pipeline_test, HostNamesAreResolved) {
  client c = make_client("localhost:" + std::to_string(cluster().client_port(0)));
  run([&]() -> asio::awaitable<void> {
    auto [ec] = co_await c.async_connect(tuple_awaitable);
    ZKWIRE_CO_ASSERT(!ec);
    const auto created = co_await c.async_create(root(), "", use_awaitable);
    EXPECT_EQ(created.path, root());
  }());
  EXPECT_EQ(c.state(), session_state::connected);
  ASSERT_TRUE(c.connected_host().has_value());
  EXPECT_EQ(c.connected_host()->host, "localhost");  // as written in the connect string, resolved to connect
  EXPECT_EQ(c.connected_host()->port, cluster().client_port(0));
}

TEST_F(client_pipeline_test, InvalidConnectStringThrows) {
  EXPECT_THROW(client(io_.get_executor(), test::client_options_for("")), std::system_error);
  try {
    client c(io_.get_executor(), test::client_options_for("127.0.0.1:99999"));
    ADD_FAILURE() << "expected an exception";
  } catch (const std::system_error& e) {
    EXPECT_EQ(e.code(), make_error_code(client_errc::invalid_connect_string));
    EXPECT_NE(std::string(e.what()).find("port"), std::string::npos);
  }
}

}  // namespace
}  // namespace zkwire
