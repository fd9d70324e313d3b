// The semaphore's acquire is bounded like the lock's (lock_deadline_test): when the server stops answering after the
// mutex was taken (the fault proxy holds back our lease create, and everything behind it on the connection), a
// try-once acquire ends with lock_errc::timeout within the client's request_timeout and a timed one within its
// timeout; the lease node the held-back create makes is found and deleted once the server answers again.

#include <gtest/gtest.h>

#include <asio/io_context.hpp>
#include <chrono>
#include <memory>
#include <string>

#include "lock_test_support.hpp"
#include "proxy_test_support.hpp"
#include "support/zk_test.hpp"
#include "zkwire/faults/proxy.hpp"

namespace zkwire {
namespace {

using recipes::semaphore;
using test::acquire_and_release;
using test::deadline_late_margin;
using test::deadline_session_timeout;
using test::expect_acquire_timeout;
using test::tuple_awaitable;
using namespace std::chrono_literals;

// How long the proxy holds back the lease create: well beyond deadline_late_margin.
constexpr auto held_back = 8000ms;
static_assert(held_back > 2 * deadline_late_margin);

class semaphore_deadline_test : public test::standalone_test {
 protected:
  void SetUp() override {
    standalone_test::SetUp();
    proxy_ = test::start_proxy(io_, cluster().client_port(0));
    ASSERT_TRUE(proxy_);
  }
  void TearDown() override { proxy_.reset(); }

  // Holds back the first lease create by held_back, runs one acquire with `timeout`, checks it ends with
  // lock_errc::timeout between `bound` and `bound` + deadline_late_margin, then that nothing is left and the semaphore
  // works.
  void acquire_while_lease_create_is_held_back(std::chrono::milliseconds request_timeout,
                                               std::chrono::milliseconds timeout, std::chrono::milliseconds bound) {
    auto options = test::client_options_for(proxy_->address(), deadline_session_timeout);
    options.request_timeout = request_timeout;
    client c(io_.get_executor(), options);
    const std::string path = root() + "/sem";
    const std::string leases = path + "/leases";
    semaphore s(c, path, 2);
    test::run_co(
        io_,
        [&]() -> asio::awaitable<void> {
          // The directories exist and the connection is up first.
          co_await acquire_and_release(s);
          auto emptied = test::wait_for_children(c, leases, 0);
          ZKWIRE_CO_ASSERT(co_await std::move(emptied));

          const auto rule = proxy_->add_rule("request op=create2 path=" + leases +
                                             "/* nth=1 action=delay ms=" + std::to_string(held_back.count()));
          ZKWIRE_CO_ASSERT(rule.has_value());
          co_await expect_acquire_timeout(s, timeout, bound);
          EXPECT_EQ(proxy_->counters(*rule)->fired, 1U);

          // The held-back create is applied after held_back; the acquire's cleanup deletes its lease.
          auto none_left = test::wait_for_children(c, leases, 0, held_back + 20s);
          EXPECT_TRUE(co_await std::move(none_left));
          co_await acquire_and_release(s);
          auto close = c.async_close(tuple_awaitable);
          co_await std::move(close);
        }(),
        90s);
  }

  asio::io_context io_;
  std::unique_ptr<faults::proxy> proxy_;
};

// Without a deadline on its requests a try-once acquire would wait for the held-back create as long as the
// connection lasts, and then hold the lease.
TEST_F(semaphore_deadline_test, TryOnceIsBoundedByTheRequestTimeout) {
  acquire_while_lease_create_is_held_back(500ms, 0ms, 500ms);
}

TEST_F(semaphore_deadline_test, TimedAcquireReturnsWithinItsTimeout) {
  acquire_while_lease_create_is_held_back(0ms, 1000ms, 1000ms);
}

}  // namespace
}  // namespace zkwire
