// The lock's acquire against a server that stops answering without dropping the connection (SIGSTOP): it returns
// within its timeout (a try-once acquire within the client's request_timeout), and the node a create may have left
// is found and deleted once the server answers again.

#include <gtest/gtest.h>

#include <asio/io_context.hpp>
#include <chrono>
#include <string>

#include "lock_test_support.hpp"
#include "support/zk_test.hpp"

namespace zkwire {
namespace {

using recipes::lock;
using test::acquire_and_release;
using test::deadline_session_timeout;
using test::expect_acquire_timeout;
using test::tuple_awaitable;
using namespace std::chrono_literals;

class lock_deadline_test : public test::standalone_test {
 protected:
  // Pauses the server, runs one acquire with `timeout`, checks it ends with lock_errc::timeout between `bound` and
  // `bound` + deadline_late_margin, resumes the server, and checks that nothing is left and the lock still works.
  void acquire_against_paused_server(client_options options, std::chrono::milliseconds timeout,
                                     std::chrono::milliseconds bound) {
    asio::io_context io;
    client c(io.get_executor(), options);
    const std::string dir = root() + "/lock";
    lock l(c, dir);
    test::run_co(
        io,
        [&]() -> asio::awaitable<void> {
          // The directory exists and the connection is up before the pause.
          co_await acquire_and_release(l);

          cluster().pause(0);
          co_await expect_acquire_timeout(l, timeout, bound);
          EXPECT_EQ(c.state(), session_state::connected);
          cluster().resume(0);

          // The create reached the server before the pause ended; the acquire's cleanup deletes its node.
          auto none_left = test::wait_for_children(c, dir, 0, 20s);
          EXPECT_TRUE(co_await std::move(none_left));
          co_await acquire_and_release(l);
          auto close = c.async_close(tuple_awaitable);
          co_await std::move(close);
        }(),
        60s);
  }
};

TEST_F(lock_deadline_test, TimedAcquireReturnsWithinItsTimeout) {
  acquire_against_paused_server(test::client_options_for(connect_string(), deadline_session_timeout), 1000ms, 1000ms);
}

// Without a deadline on its requests a try-once acquire would wait for its round trip as long as the connection
// lasts (here: as long as the server is paused).
TEST_F(lock_deadline_test, TryOnceIsBoundedByTheRequestTimeout) {
  auto options = test::client_options_for(connect_string(), deadline_session_timeout);
  options.request_timeout = 500ms;
  acquire_against_paused_server(options, 0ms, 500ms);
}

}  // namespace
}  // namespace zkwire
