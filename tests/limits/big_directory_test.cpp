// A directory whose listing is several MB (40,000 children with 100-byte names: a 4.2 MB getChildren reply)
// against a real server, through every layer: listed by the async and the blocking client, the command line and
// the C library; its child watch fires; used as a lock directory and as a semaphore's lease directory (by the
// recipes and by `zkwire lock` / `zkwire semaphore`), where an acquire either works or ends at once with its cause:
// not acquired on a try, or the reply over a lower max_frame_size (naming the option) — never listing forever.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <asio/io_context.hpp>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <optional>
#include <string>
#include <system_error>
#include <vector>

#include "limits_support.hpp"
#include "support/temp_dir.hpp"
#include "support/zk_test.hpp"
#include "zkwire/client/blocking_client.hpp"
#include "zkwire/recipes/errors.hpp"
#include "zkwire/recipes/lock.hpp"
#include "zkwire/recipes/semaphore.hpp"

namespace zkwire {
namespace {

using ::testing::HasSubstr;
using namespace std::chrono_literals;

constexpr std::size_t children = 40000;
constexpr std::size_t name_size = 100;
// Below the directory's listing, above every other reply of these tests.
constexpr std::size_t small_limit = std::size_t{1} << 20;
// Many more leases than children: the semaphore can grant one.
constexpr std::int32_t many_leases = 1000000;

std::string child_name(std::size_t i) {
  const std::string index = std::to_string(i);
  return std::string(name_size - index.size(), 'c') + index;
}

std::size_t count_big_names(const std::vector<std::string>& names) {
  return static_cast<std::size_t>(
      std::count_if(names.begin(), names.end(), [](const std::string& n) { return n.size() == name_size; }));
}

class big_directory_test : public test::standalone_test {
 protected:
  // The semaphore's path; its lease directory <semaphore>/leases is the big directory, which also serves as a lock
  // directory (the lock orders its own nodes and never waits for foreign siblings). Filled once per suite.
  static const std::string& semaphore_path() {
    static const std::string path = [] {
      std::string p = test::unique_test_path() + "-sem";
      blocking_client c(test::client_options_for(connect_string(), 30s));
      c.create(p, "");
      return p;
    }();
    static const bool filled = [] {
      limits::fill_directory(connect_string(), path + "/leases", children, child_name);
      return true;
    }();
    (void)filled;
    return path;
  }
  static std::string big_dir() { return semaphore_path() + "/leases"; }
  static client_options options(std::optional<std::size_t> max_frame_size = std::nullopt) {
    auto o = test::client_options_for(connect_string(), 30s);
    if (max_frame_size) o.max_frame_size = *max_frame_size;
    return o;
  }
};

TEST_F(big_directory_test, ListedByTheBlockingAndTheAsyncClient) {
  const std::string dir = big_dir();
  blocking_client b(options());
  EXPECT_EQ(count_big_names(b.get_children(dir).children), children);
  asio::io_context io;
  client c(io.get_executor(), options());
  std::optional<std::error_code> listed;
  std::size_t count = 0;
  c.async_get_children(dir, [&](std::error_code ec, const children_result& r) {
    listed = ec;
    count = count_big_names(r.children);
  });
  ASSERT_TRUE(test::run_until(
      io, [&] { return listed.has_value(); }, 60s, "the async listing"));
  EXPECT_FALSE(*listed) << listed->message();
  EXPECT_EQ(count, children);
}

TEST_F(big_directory_test, ItsChildWatchFires) {
  const std::string dir = big_dir();
  blocking_client c(options());
  std::atomic<int> events = 0;
  (void)c.get_children(dir, [&](const watch_event& e) {
    if (e.type == event_type::node_children_changed) ++events;
  });
  c.create(dir + "/new", "", create_mode::ephemeral);
  EXPECT_TRUE(test::eventually([&] { return events.load() == 1; }, 30s, "the child watch's event"));
  c.remove(dir + "/new");
}

// The lock lists the whole directory on each try: it is granted (its node is the only lock node), on a try-once
// acquire and a waiting one.
TEST_F(big_directory_test, ALockOnTheBigDirectoryIsGranted) {
  asio::io_context io;
  client c(io.get_executor(), options());
  recipes::lock l(c, big_dir());
  for (const auto timeout : {0ms, 20000ms}) {
    std::optional<std::error_code> acquired;
    l.async_acquire(timeout, [&](std::error_code ec) { acquired = ec; });
    ASSERT_TRUE(test::run_until(
        io, [&] { return acquired.has_value(); }, 60s, "the acquire"))
        << "timeout " << timeout.count() << " ms";
    EXPECT_FALSE(*acquired) << acquired->message();
    std::optional<std::error_code> released;
    l.async_release([&](std::error_code ec) { released = ec; });
    ASSERT_TRUE(test::run_until(
        io, [&] { return released.has_value(); }, 30s, "the release"));
  }
}

// The semaphore counts every child of its lease directory: with room it grants a lease; without, a try ends at once
// (lock_errc::timeout); with the listing over max_frame_size, every acquire ends at once with frame_too_large.
TEST_F(big_directory_test, ASemaphoreOnTheBigDirectoryGrantsOrEndsAtOnce) {
  asio::io_context io;
  client c(io.get_executor(), options());
  const auto acquire = [&](recipes::semaphore& s, std::chrono::milliseconds timeout) {
    std::optional<std::error_code> acquired;
    s.async_acquire(timeout, [&](std::error_code ec) { acquired = ec; });
    EXPECT_TRUE(test::run_until(
        io, [&] { return acquired.has_value(); }, 60s, "the semaphore's acquire"))
        << "timeout " << timeout.count() << " ms";
    return acquired.value_or(make_error_code(client_error::operation_timeout));
  };
  recipes::semaphore roomy(c, semaphore_path(), many_leases);
  EXPECT_FALSE(acquire(roomy, 20000ms));
  std::optional<std::error_code> released;
  roomy.async_release([&](std::error_code ec) { released = ec; });
  ASSERT_TRUE(test::run_until(
      io, [&] { return released.has_value(); }, 30s, "the release"));

  recipes::semaphore full(c, semaphore_path(), 10);
  EXPECT_EQ(acquire(full, 0ms), recipes::lock_errc::timeout);

  client limited(io.get_executor(), options(small_limit));
  recipes::semaphore unreadable(limited, semaphore_path(), many_leases);
  for (const auto timeout : {0ms, 20000ms}) {
    const auto ec = acquire(unreadable, timeout);
    EXPECT_EQ(ec, client_error::frame_too_large) << ec.message();
    EXPECT_THAT(ec.message(), HasSubstr("max_frame_size"));
  }
}

TEST_F(big_directory_test, TheCommandLineListsWatchesLocksAndTakesALease) {
  const std::string dir = big_dir();
  const auto listed = limits::cli(connect_string(), {"ls", dir});
  EXPECT_EQ(listed.status, 0) << listed.err;
  std::vector<std::string> lines;
  for (std::size_t at = 0, end = 0; (end = listed.out.find('\n', at)) != std::string::npos; at = end + 1) {
    lines.push_back(listed.out.substr(at, end - at));
  }
  // Other tests' lock and lease nodes may still be there (ephemeral, of sessions not yet gone): the big names count.
  EXPECT_EQ(count_big_names(lines), children);
  const auto locked = limits::cli(connect_string(), {"lock", "--timeout", "0", dir, "--", "true"});
  EXPECT_EQ(locked.status, 0) << locked.err;
  const auto leased = limits::cli(connect_string(), {"semaphore", "--leases", std::to_string(many_leases), "--timeout",
                                                     "0", semaphore_path(), "--", "true"});
  EXPECT_EQ(leased.status, 0) << leased.err;
  const auto full =
      limits::cli(connect_string(), {"semaphore", "--leases", "10", "--timeout", "0", semaphore_path(), "--", "true"});
  EXPECT_EQ(full.status, 75) << full.err;
  const auto limited = limits::cli(connect_string(), {"--max-frame-size", "1M", "semaphore", "--leases",
                                                      std::to_string(many_leases), semaphore_path(), "--", "true"});
  EXPECT_EQ(limited.status, 3) << limited.err;
  EXPECT_THAT(limited.err, HasSubstr("--max-frame-size"));

  // `zkwire watch` on the directory: children are added until its one-shot watch reports one.
  const test::temp_dir scratch("zkwire-limits-");
  auto watch = test::child_process::spawn({ZKWIRE_CLI_PATH, "-s", connect_string(), "watch", "--timeout", "60", dir},
                                          scratch.path() / "watch.out");
  blocking_client c(options());
  EXPECT_TRUE(test::eventually(
      [&] {
        const std::string child = dir + "/cli-watch";
        if (!c.exists(child))
          c.create(child, "", create_mode::ephemeral);
        else
          c.remove(child);
        return !watch.running();
      },
      60s, "the watch command's exit"));
  EXPECT_EQ(watch.exit_status().value_or(-1), 0) << watch.out();
  EXPECT_THAT(watch.out(), HasSubstr("\"type\":\"NodeChildrenChanged\""));
}

TEST_F(big_directory_test, TheCLibraryListsAndWatches) {
  const auto result = limits::capi(connect_string(), {"big-dir", big_dir(), std::to_string(children)});
  EXPECT_EQ(result.status, 0) << result.out << result.err;
  EXPECT_THAT(result.out, HasSubstr("listed: ZOK, all children\nchild watch: 1 event(s)\n"));
}

}  // namespace
}  // namespace zkwire
