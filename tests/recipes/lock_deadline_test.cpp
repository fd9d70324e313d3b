// The lock's acquire against a server that stops answering without dropping the connection (SIGSTOP): it returns
// within its timeout (a try-once acquire within the client's request_timeout), and the node a create may have left
// is found and deleted once the server answers again.

#include <gtest/gtest.h>

#include <asio/io_context.hpp>
#include <chrono>
#include <string>

#include "lock_test_support.hpp"
#include "support/zk_test.hpp"

namespace zkwire::lock_deadline {  // its own: the timing constants below are also in other files
namespace {

using recipes::lock;
using recipes::lock_errc;
using test::tuple_awaitable;
using namespace std::chrono_literals;
using steady = std::chrono::steady_clock;

// The read timeout (2/3 of the session timeout) stays far beyond the pause: only deadlines can end the acquire.
constexpr auto session_timeout = 30s;
// Upper bound for timer and scheduling latency on a loaded machine.
constexpr auto late_margin = 3s;

class lock_deadline_test : public test::standalone_test {
 protected:
  // Pauses the server, runs one acquire with `timeout`, checks it ends with lock_errc::timeout between `bound` and
  // `bound` + late_margin, resumes the server, and checks that nothing is left and the lock still works.
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
          auto first = l.async_acquire(20s, tuple_awaitable);
          auto [first_ec] = co_await std::move(first);
          EXPECT_FALSE(first_ec) << first_ec.message();
          auto release = l.async_release(tuple_awaitable);
          co_await std::move(release);

          cluster().pause(0);
          const auto start = steady::now();
          auto paused = l.async_acquire(timeout, tuple_awaitable);
          auto [paused_ec] = co_await std::move(paused);
          const auto elapsed = steady::now() - start;
          EXPECT_EQ(paused_ec, lock_errc::timeout) << paused_ec.message();
          EXPECT_GE(elapsed, bound);
          EXPECT_LT(elapsed, bound + late_margin);
          EXPECT_EQ(c.state(), session_state::connected);
          cluster().resume(0);

          // The create reached the server before the pause ended; the acquire's cleanup deletes its node.
          auto none_left = test::wait_for_children(c, dir, 0, 20s);
          EXPECT_TRUE(co_await std::move(none_left));
          auto again = l.async_acquire(20s, tuple_awaitable);
          auto [again_ec] = co_await std::move(again);
          EXPECT_FALSE(again_ec) << again_ec.message();
          auto release_again = l.async_release(tuple_awaitable);
          co_await std::move(release_again);
          auto close = c.async_close(tuple_awaitable);
          co_await std::move(close);
        }(),
        60s);
  }
};

TEST_F(lock_deadline_test, TimedAcquireReturnsWithinItsTimeout) {
  acquire_against_paused_server(test::client_options_for(connect_string(), session_timeout), 1000ms, 1000ms);
}

// Without a deadline on its requests a try-once acquire would wait for its round trip as long as the connection
// lasts (here: as long as the server is paused).
TEST_F(lock_deadline_test, TryOnceIsBoundedByTheRequestTimeout) {
  auto options = test::client_options_for(connect_string(), session_timeout);
  options.request_timeout = 500ms;
  acquire_against_paused_server(options, 0ms, 500ms);
}

}  // namespace
}  // namespace zkwire::lock_deadline
