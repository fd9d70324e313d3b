// Create-then-crash through the fault-injection proxy (faults/): the server applies our lock node's create, its
// reply is dropped and the connection reset, so the create's outcome is unknown to the client. The acquire must
// find its node again by its guid (owned by our session), never create a second one, and succeed; nothing may
// be left after the release. 100 rounds, plus one where the create never reaches the server.

#include <gtest/gtest.h>

#include <asio/io_context.hpp>
#include <memory>
#include <optional>
#include <string>

#include "lock_test_support.hpp"
#include "support/zk_test.hpp"
#include "zkwire/faults/proxy.hpp"

namespace zkwire {
namespace {

using asio::use_awaitable;
using recipes::lock;
using test::run_co;
using namespace std::chrono_literals;

// A proxy in front of the server, a connected client through it, an admin client straight to the server, and
// the lock directory root()/lock.
class lock_proxy_test : public test::standalone_test {
 protected:
  void SetUp() override {
    standalone_test::SetUp();
    faults::proxy_options options;
    options.upstream_port = cluster().client_port(0);
    proxy_ = std::make_unique<faults::proxy>(io_.get_executor(), options);
    ASSERT_FALSE(proxy_->listen());
    admin_ = test::new_client(io_, connect_string());
    client_ = test::new_client(io_, proxy_->address());
    dir_ = root() + "/lock";
    run_co(io_, [&]() -> asio::awaitable<void> {
      co_await admin_->async_create(root(), "", use_awaitable);
      co_await admin_->async_create(dir_, "", use_awaitable);
      co_await client_->async_connect(use_awaitable);
    }());
  }
  void TearDown() override {
    client_.reset();
    admin_.reset();
    proxy_.reset();
  }

  asio::io_context io_;
  std::unique_ptr<faults::proxy> proxy_;
  std::unique_ptr<client> admin_;
  std::unique_ptr<client> client_;
  std::string dir_;
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
// NONODE makes the acquire build the directory again and retry, not fail.
TEST_F(lock_proxy_test, ADirectoryReapedBeforeTheCreateIsMadeAgain) {
  auto& io = io_;
  auto& proxy = *proxy_;
  auto& admin = admin_;
  auto& c = client_;
  const std::string& dir = dir_;
  lock l(*c, dir);
  // Hold our create in the proxy while the directory disappears.
  const auto rule = proxy.add_rule("request op=create2 path=" + dir + "/* nth=1 action=delay ms=500");
  ASSERT_TRUE(rule.has_value());
  std::optional<std::error_code> acquired;
  l.async_acquire(20s, [&](std::error_code ec) { acquired = ec; });
  run_co(io, [&]() -> asio::awaitable<void> {
    co_await test::sleep_for(150ms);
    co_await admin->async_remove(dir, any_version, use_awaitable);
    while (!acquired) co_await test::sleep_for(10ms);
    EXPECT_EQ(*acquired, std::error_code{});
    EXPECT_EQ(proxy.counters(*rule)->fired, 1U);
    EXPECT_EQ((co_await test::children_of(*admin, dir)).size(), 1U);
    co_await l.async_release(use_awaitable);
  }());
}

}  // namespace
}  // namespace zkwire
