// Replies larger than anything the server accepts: a big directory's listing against a real server. The default
// client_options::max_frame_size lists 60,000 children with 67-byte names (a 4.3 MB getChildren reply); a reply
// over a smaller limit fails its own request with frame_too_large and the session goes on; a lock on a directory
// whose listing is over the limit ends with that cause instead of listing again forever (the library and
// `zkwire lock --timeout 0`).

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <asio/io_context.hpp>
#include <chrono>
#include <cstddef>
#include <optional>
#include <string>
#include <system_error>
#include <vector>

#include "client_test_support.hpp"
#include "support/child_process.hpp"
#include "support/zk_test.hpp"
#include "zkwire/client/blocking_client.hpp"
#include "zkwire/client/client.hpp"
#include "zkwire/recipes/lock.hpp"

namespace zkwire {
namespace {

using namespace std::chrono_literals;
using ::testing::HasSubstr;

constexpr std::size_t big_children = 60000;
constexpr std::size_t name_size = 67;
constexpr std::size_t lock_contenders = 25000;
// Below the 4.3 MB and 1.4 MB listings of the two directories, above every other reply of these tests.
constexpr std::size_t small_limit = std::size_t{1} << 20;

// `count` children under `dir` named by `name(i)`, created as one pipelined burst on one client (the replies come
// back in order; a burst of this size takes seconds where one round trip each would take minutes).
template <class Name>
void create_children(const std::string& connect, const std::string& dir, std::size_t count, create_mode mode,
                     Name name) {
  asio::io_context io;
  client c(io.get_executor(), test::client_options_for(connect, 30s));
  std::optional<std::error_code> made;
  c.async_create(dir, "", [&](std::error_code ec, const create_result&) { made = ec; });
  ASSERT_TRUE(test::run_until(io, [&] { return made.has_value(); }));
  ASSERT_FALSE(*made) << made->message();
  std::size_t done = 0;
  std::error_code first_error;
  for (std::size_t i = 0; i < count; ++i) {
    c.async_create(dir + "/" + name(i), "", mode, [&](std::error_code ec, const create_result&) {
      ++done;
      if (ec && !first_error) first_error = ec;
    });
  }
  ASSERT_TRUE(test::run_until(
      io, [&] { return done == count; }, 300s));
  ASSERT_FALSE(first_error) << first_error.message();
  // The contenders of the lock test are ephemeral: this session must outlive them, so it is only dropped, not
  // closed, and the server keeps the nodes until it expires (30 s, longer than the test needs).
}

std::string padded_name(std::size_t i) {
  std::string index = std::to_string(i);
  return std::string(name_size - index.size(), 'c') + index;
}

// Curator's lock node names: "_c_" + a UUID + "-lock-", sequence number appended by the server.
std::string curator_prefix(std::size_t i) {
  char uuid[37];
  std::snprintf(uuid, sizeof uuid, "%08zx-0000-4000-8000-%012zx", i, i);
  return std::string("_c_") + uuid + "-lock-";
}

class client_big_reply_test : public test::standalone_test {
 protected:
  // One big directory and one crowded lock directory per suite: filling them takes seconds.
  static const std::string& big_dir() {
    static const std::string dir = [] {
      const std::string path = test::unique_test_path() + "-big";
      create_children(connect_string(), path, big_children, create_mode::persistent, padded_name);
      return path;
    }();
    return dir;
  }
  static const std::string& crowded_lock() {
    static const std::string dir = [] {
      const std::string path = test::unique_test_path() + "-lock";
      create_children(connect_string(), path, lock_contenders, create_mode::ephemeral_sequential, curator_prefix);
      return path;
    }();
    return dir;
  }
  static client_options options(std::optional<std::size_t> max_frame_size = std::nullopt) {
    auto o = test::client_options_for(connect_string(), 30s);
    if (max_frame_size) o.max_frame_size = *max_frame_size;
    return o;
  }
};

TEST_F(client_big_reply_test, ABigDirectoryIsListedWithTheDefaultLimit) {
  const std::string& dir = big_dir();
  blocking_client c(options());
  const auto listed = c.get_children(dir);
  EXPECT_EQ(listed.children.size(), big_children);
}

// Over the limit: that request fails with frame_too_large, whose message names the option; the connection and the
// session stay (same session, no state change), and the next request works.
TEST_F(client_big_reply_test, AReplyOverTheLimitFailsOnlyItsRequest) {
  const std::string& dir = big_dir();
  blocking_client c(options(small_limit));
  c.connect();
  const auto session = c.session_id();
  int changes = 0;
  c.set_state_listener([&](const state_event&) { ++changes; });
  const auto started = std::chrono::steady_clock::now();
  try {
    (void)c.get_children(dir);
    ADD_FAILURE() << "frame_too_large expected";
  } catch (const std::system_error& e) {
    EXPECT_EQ(e.code(), client_error::frame_too_large) << e.what();
    EXPECT_THAT(e.what(), HasSubstr("max_frame_size"));
  }
  EXPECT_LT(std::chrono::steady_clock::now() - started, 20s);
  EXPECT_EQ(c.get_children(dir + "/" + padded_name(7)).children.size(), 0U);
  EXPECT_EQ(c.session_id(), session);
  EXPECT_EQ(c.state(), session_state::connected);
  c.set_state_listener({});
  EXPECT_EQ(changes, 0) << "the connection was dropped";
}

// A lock whose directory cannot be listed within the limit ends with that cause: it cannot ever succeed, so it must
// not list again and again (before, each try dropped the connection and the acquire waited for the next one).
TEST_F(client_big_reply_test, ALockOnADirectoryOverTheLimitEndsWithTheCause) {
  const std::string& dir = crowded_lock();
  asio::io_context io;
  client c(io.get_executor(), options(small_limit));
  recipes::lock l(c, dir);
  for (const auto timeout : {0ms, 20000ms}) {
    std::optional<std::error_code> acquired;
    l.async_acquire(timeout, [&](std::error_code ec) { acquired = ec; });
    ASSERT_TRUE(test::run_until(
        io, [&] { return acquired.has_value(); }, 20s))
        << "the acquire (timeout " << timeout.count() << " ms) did not end";
    EXPECT_EQ(*acquired, client_error::frame_too_large) << acquired->message();
  }
}

TEST_F(client_big_reply_test, CliLockOnACrowdedDirectoryAnswersPromptly) {
  const std::string& dir = crowded_lock();
  const std::vector<std::string> base = {ZKWIRE_CLI_PATH, "-s", connect_string(), "--connect-timeout", "20000"};
  // The default limit reads the 1.4 MB listing: 25,000 contenders are ahead, so a single try fails (exit 75).
  auto argv = base;
  argv.insert(argv.end(), {"lock", "--timeout", "0", dir, "--", "true"});
  const auto by_default = test::run_process(argv, {}, 30s);
  EXPECT_EQ(by_default.status, 75) << by_default.err;
  // Under --max-frame-size the listing cannot be read: the command says so and ends at once (exit 3).
  argv = base;
  argv.insert(argv.end(), {"--max-frame-size", "1M", "lock", "--timeout", "0", dir, "--", "true"});
  const auto limited = test::run_process(argv, {}, 30s);
  EXPECT_EQ(limited.status, 3) << limited.err;
  EXPECT_THAT(limited.err, HasSubstr("--max-frame-size"));
  EXPECT_THAT(limited.err, HasSubstr("(MARSHALLINGERROR)"));
}

}  // namespace
}  // namespace zkwire
