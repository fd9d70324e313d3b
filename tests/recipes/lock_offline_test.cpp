// The lock recipes where no server is needed, or none is reachable: a blocking try_lock() that must not wait for a
// server for good, and the errors of arguments refused before anything is sent, each with its own message.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <asio/io_context.hpp>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <future>
#include <optional>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include "zkwire/client/blocking_client.hpp"
#include "zkwire/client/client.hpp"
#include "zkwire/recipes/blocking_lock.hpp"
#include "zkwire/recipes/errors.hpp"
#include "zkwire/recipes/lock.hpp"
#include "zkwire/recipes/multi_lock.hpp"
#include "zkwire/recipes/semaphore.hpp"

namespace zkwire::recipes {
namespace {

using namespace std::chrono_literals;
using ::testing::HasSubstr;
using ::testing::Not;

client_options unreachable_options() {
  client_options o;
  o.connect_string = "127.0.0.1:9";  // the discard port: nothing listens on the loopback
  o.session_timeout = 2s;
  return o;
}

// TimedLockable's try_lock() returns: with no server reachable and no request_timeout it returns false within
// about the session timeout (the default connect timeout), where it used to wait for a server for good.
TEST(lock_offline, BlockingTryLockWithoutAServerReturnsFalseInBoundedTime) {
  blocking_client c(unreachable_options());
  blocking_lock l(c, "/locks/offline");
  std::promise<bool> answered;
  auto answer = answered.get_future();
  const auto start = std::chrono::steady_clock::now();
  std::thread trier([&] {
    try {
      answered.set_value(l.try_lock());
    } catch (...) {
      answered.set_exception(std::current_exception());
    }
  });
  if (answer.wait_for(30s) != std::future_status::ready) {
    ADD_FAILURE() << "blocking_lock::try_lock() still blocked after 30 s with no server reachable";
    std::fflush(nullptr);
    std::_Exit(1);  // the blocked thread cannot be joined; end here with the failure reported
  }
  trier.join();
  const auto elapsed = std::chrono::steady_clock::now() - start;
  EXPECT_FALSE(answer.get());
  EXPECT_LT(elapsed, 10s) << "bounded by the 2 s session timeout, plus scheduling";
  EXPECT_EQ(l.state(), lock_state::released);
}

// Refused before anything is sent, each with a message that says what is wrong (== condition::invalid_argument).
TEST(lock_offline, RefusedArgumentsSayWhatIsWrong) {
  asio::io_context io;
  client c(io.get_executor(), unreachable_options());
  std::vector<std::error_code> got;
  semaphore none(c, "/sem/none", 0);
  none.async_acquire(1, 0ms, [&](std::error_code ec) { got.push_back(ec); });
  semaphore two(c, "/sem/two", 2);
  two.async_acquire(3, 0ms, [&](std::error_code ec) { got.push_back(ec); });
  multi_lock empty(c, std::vector<std::string>{});
  empty.async_acquire(0ms, [&](std::error_code ec) { got.push_back(ec); });
  io.run_for(2s);
  ASSERT_EQ(got.size(), 3U);
  EXPECT_EQ(got[0], lock_errc::no_leases) << got[0].message();
  EXPECT_EQ(got[1], lock_errc::invalid_lease_count) << got[1].message();
  EXPECT_EQ(got[2], lock_errc::no_directories) << got[2].message();
  for (const auto& ec : got) {
    EXPECT_EQ(ec, condition::invalid_argument) << ec.message();
    EXPECT_THAT(ec.message(), Not(HasSubstr("cannot be encoded")));
  }
  EXPECT_THAT(got[0].message(), HasSubstr("max_leases"));
  EXPECT_THAT(got[1].message(), HasSubstr("1 to max_leases"));
  EXPECT_THAT(got[2].message(), HasSubstr("at least one lock directory"));
}

// A cancelled acquire cleans up after itself (lock.hpp), so its message does not send the caller to read back; a
// lock lost to the deletion of its node says so, not "create it or its parent first".
TEST(lock_offline, CancellationAndNodeDeletionHaveTheirOwnMessages) {
  const std::error_code cancelled = lock_errc::cancelled;
  EXPECT_EQ(cancelled, condition::cancelled);
  EXPECT_THAT(cancelled.message(), Not(HasSubstr("read back")));
  EXPECT_THAT(cancelled.message(), HasSubstr("deletes the node"));
  const std::error_code deleted = lock_errc::node_deleted;
  EXPECT_THAT(deleted.message(), HasSubstr("node was deleted"));
  EXPECT_THAT(deleted.message(), Not(HasSubstr("create it")));
}

}  // namespace
}  // namespace zkwire::recipes
