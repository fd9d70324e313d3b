// Limits of what one request may carry, against a real server at its default jute.maxbuffer, through the client
// (async and blocking), the command line and the C library: the largest node data and the longest path the server
// accepts work and one byte more is refused by the client with request_too_large (naming jute.maxbuffer) while
// the session goes on; a multi of a thousand ops; a multi over the limit; a path a thousand levels deep; and ten
// thousand watchers of one client on one node (data and child), each called once.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <asio/io_context.hpp>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "limits_support.hpp"
#include "support/zk_test.hpp"
#include "zkwire/client/blocking_client.hpp"

namespace zkwire {
namespace {

using ::testing::HasSubstr;
using namespace std::chrono_literals;

constexpr std::size_t multi_ops = 1000;
constexpr std::size_t depth = 1000;
constexpr std::size_t watch_count = 5000;

// A message that names a path of a megabyte, cut to its ends for a failure report.
std::string shortened(std::string_view text) {
  if (text.size() <= 400) return std::string(text);
  return std::string(text.substr(0, 200)) + " ... " + std::string(text.substr(text.size() - 200));
}

class request_size_test : public test::standalone_test {
 protected:
  static client_options options() { return test::client_options_for(connect_string(), 30s); }

  // Runs `request` on a connected client and expects it refused with request_too_large, the message naming the
  // server's limit; then the session is the same, was never disturbed, and the next request works.
  template <class Request>
  static void expect_refused_and_session_intact(blocking_client& c, Request&& request) {
    c.connect();
    const auto session = c.session_id();
    int changes = 0;
    c.set_state_listener([&](const state_event&) { ++changes; });
    try {
      request();
      ADD_FAILURE() << "request_too_large expected";
    } catch (const std::system_error& e) {
      EXPECT_EQ(e.code(), client_error::request_too_large) << shortened(e.what());
      EXPECT_NE(std::string_view(e.what()).find("jute.maxbuffer"), std::string_view::npos) << shortened(e.what());
    }
    EXPECT_TRUE(c.exists("/").has_value());
    EXPECT_EQ(c.session_id(), session);
    EXPECT_EQ(c.state(), session_state::connected);
    c.set_state_listener({});
    EXPECT_EQ(changes, 0) << "the session's connection was disturbed";
  }
};

// setData and create at the largest size the server takes (the frame's payload at jute.maxbuffer) store every byte;
// one byte more never leaves the client.
TEST_F(request_size_test, TheLargestDataIsStoredAndOneByteMoreIsRefused) {
  blocking_client c(options());
  const std::string path = root();
  c.create(path, "");
  const std::size_t largest = limits::max_set_data(path);
  c.set(path, std::string(largest, 'd'));
  EXPECT_EQ(c.get(path).data.size(), largest);
  expect_refused_and_session_intact(c, [&] { c.set(path, std::string(largest + 1, 'd')); });
  EXPECT_EQ(c.get(path).data.size(), largest) << "the refused write must not have changed the node";

  // create carries the ACL list and flags on top of path and data: 27 + 4 bytes more than setData's version.
  const std::string created = root() + "/c";
  const std::size_t largest_create = largest - (created.size() - path.size()) - 27;
  c.create(created, std::string(largest_create, 'c'));
  EXPECT_EQ(c.get(created).data.size(), largest_create);
  expect_refused_and_session_intact(c, [&] { c.create(root() + "/d", std::string(largest_create + 1, 'c')); });
  EXPECT_FALSE(c.exists(root() + "/d").has_value());
}

// The async client reports the same refusal through its completion, at once, and the session goes on.
TEST_F(request_size_test, TheAsyncClientRefusesOneByteOver) {
  asio::io_context io;
  client c(io.get_executor(), options());
  const std::string path = root();
  limits::create_node(io, c, path);
  const auto session = c.session_id();
  std::optional<std::error_code> over;
  c.async_set(path, std::string(limits::max_set_data(path) + 1, 'd'), any_version,
              [&](std::error_code ec, const stat&) { over = ec; });
  ASSERT_TRUE(test::run_until(
      io, [&] { return over.has_value(); }, 30s, "the refused set"));
  EXPECT_EQ(*over, client_error::request_too_large) << over->message();
  std::optional<std::error_code> fits;
  c.async_set(path, std::string(limits::max_set_data(path), 'd'), any_version,
              [&](std::error_code ec, const stat&) { fits = ec; });
  ASSERT_TRUE(test::run_until(
      io, [&] { return fits.has_value(); }, 30s, "the largest set"));
  EXPECT_FALSE(*fits) << fits->message();
  EXPECT_EQ(c.session_id(), session);
}

// A node name as long as a request can carry: created, found, listed by its parent; one byte more is refused.
TEST_F(request_size_test, TheLongestPathIsCreatedAndOneByteMoreIsRefused) {
  blocking_client c(options());
  c.create(root(), "");
  const std::size_t name_size = limits::max_create_path - root().size() - 1;
  const std::string longest = root() + "/" + std::string(name_size, 'n');
  EXPECT_EQ(c.create(longest, "").path, longest);
  EXPECT_TRUE(c.exists(longest).has_value());
  const auto listed = c.get_children(root()).children;
  ASSERT_EQ(listed.size(), 1U);
  EXPECT_EQ(listed[0].size(), name_size);
  expect_refused_and_session_intact(c, [&] { c.create(longest + "x", ""); });
}

// A thousand levels: every one created (pipelined, in order), the deepest read and listed by its parent.
TEST_F(request_size_test, APathAThousandLevelsDeepWorks) {
  asio::io_context io;
  client c(io.get_executor(), options());
  std::string path = root();
  std::size_t done = 0;
  std::error_code first_error;
  for (std::size_t level = 0; level <= depth; ++level) {
    c.async_create(path, "", [&](std::error_code ec, const create_result&) {
      ++done;
      if (ec && !first_error) first_error = ec;
    });
    if (level < depth) path += "/d";
  }
  ASSERT_TRUE(test::run_until(
      io, [&] { return done == depth + 1; }, 60s, "the creates"));
  ASSERT_FALSE(first_error) << first_error.message();
  blocking_client b(options());
  EXPECT_TRUE(b.exists(path).has_value());
  EXPECT_EQ(b.get_children(path.substr(0, path.size() - 2)).children, std::vector<std::string>{"d"});
  EXPECT_EQ(b.get_all_children_number(root()), static_cast<std::int32_t>(depth));
}

// A thousand creates in one multi commit together; a thousand deletes with one that fails commit nothing; a
// thousand deletes commit together.
TEST_F(request_size_test, AMultiOfAThousandOps) {
  blocking_client c(options());
  c.create(root(), "");
  std::vector<multi_op> creates;
  std::vector<multi_op> removes;
  for (std::size_t i = 0; i < multi_ops; ++i) {
    creates.push_back(ops::create(root() + "/n" + std::to_string(i), "x"));
    removes.push_back(ops::remove(root() + "/n" + std::to_string(i)));
  }
  EXPECT_EQ(c.multi(creates).size(), multi_ops);
  EXPECT_EQ(c.get_all_children_number(root()), static_cast<std::int32_t>(multi_ops));
  auto failing = removes;
  failing.back() = ops::remove(root() + "/absent");
  try {
    (void)c.multi(failing);
    ADD_FAILURE() << "the multi with a missing node must fail";
  } catch (const multi_error& e) {
    EXPECT_EQ(e.code(), server_error::no_node);
    EXPECT_EQ(e.results().size(), multi_ops);
  }
  EXPECT_EQ(c.get_all_children_number(root()), static_cast<std::int32_t>(multi_ops));
  EXPECT_EQ(c.multi(removes).size(), multi_ops);
  EXPECT_EQ(c.get_all_children_number(root()), 0);
}

// A multi whose ops together are over the limit (each alone would fit) is refused whole by the client.
TEST_F(request_size_test, AMultiOverTheLimitIsRefused) {
  blocking_client c(options());
  c.create(root(), "");
  std::vector<multi_op> ops_list;
  ops_list.reserve(20);
  for (int i = 0; i < 20; ++i)
    ops_list.push_back(ops::create(root() + "/m" + std::to_string(i), std::string(60000, 'm')));
  expect_refused_and_session_intact(c, [&] { (void)c.multi(ops_list); });
  EXPECT_EQ(c.get_all_children_number(root()), 0);
}

// Five thousand data watches and as many child watches of one client on one node: the server keeps one of each
// kind, the client calls every watcher once per event and never again.
TEST_F(request_size_test, ManyWatchesOnOneNodeEachFireOnce) {
  asio::io_context io;
  client c(io.get_executor(), options());
  const std::string path = root();
  limits::create_node(io, c, path);
  std::vector<int> data_calls(watch_count, 0);
  std::vector<int> child_calls(watch_count, 0);
  std::size_t armed = 0;
  std::error_code arm_error;
  for (std::size_t i = 0; i < watch_count; ++i) {
    const auto on_armed = [&](std::error_code ec, const auto&) {
      ++armed;
      if (ec && !arm_error) arm_error = ec;
    };
    c.async_get(
        path, [&, i](const watch_event&) { ++data_calls[i]; }, on_armed);
    c.async_get_children(
        path, [&, i](const watch_event&) { ++child_calls[i]; }, on_armed);
  }
  ASSERT_TRUE(test::run_until(
      io, [&] { return armed == 2 * watch_count; }, 60s, "the watched reads"));
  ASSERT_FALSE(arm_error) << arm_error.message();
  const auto all = [](const std::vector<int>& calls, int n) {
    return std::all_of(calls.begin(), calls.end(), [n](int k) { return k == n; });
  };
  std::optional<std::error_code> changed;
  c.async_set(path, "new", any_version, [&](std::error_code ec, const stat&) { changed = ec; });
  c.async_create(path + "/child", "", [&](std::error_code ec, const create_result&) { EXPECT_FALSE(ec); });
  ASSERT_TRUE(test::run_until(
      io, [&] { return all(data_calls, 1) && all(child_calls, 1); }, 60s, "every watcher called once"));
  // Changed again, then a fresh watch armed after it fires: every event of the second change was delivered before
  // it, so a watcher called twice would show now.
  c.async_set(path, "again", any_version, [&](std::error_code, const stat&) {});
  c.async_create(path + "/second", "", [&](std::error_code, const create_result&) {});
  bool fresh = false;
  c.async_get(
      path, [&](const watch_event&) { fresh = true; }, [](std::error_code, const get_result&) {});
  c.async_set(path, "third", any_version, [&](std::error_code, const stat&) {});
  ASSERT_TRUE(test::run_until(
      io, [&] { return fresh; }, 30s, "a watch armed after the second change"));
  EXPECT_TRUE(all(data_calls, 1)) << "a data watcher was called more than once";
  EXPECT_TRUE(all(child_calls, 1)) << "a child watcher was called more than once";
}

// The command line: the largest data through stdin is stored and read back; one byte more exits 3 naming the limit.
TEST_F(request_size_test, CliLargestDataAndOneByteOver) {
  blocking_client c(options());
  c.create(root(), "");
  const std::size_t largest = limits::max_set_data(root());
  const auto set = limits::cli(connect_string(), {"set", root(), "-"}, std::string(largest, 'd'));
  EXPECT_EQ(set.status, 0) << set.err;
  const auto got = limits::cli(connect_string(), {"get", root()});
  EXPECT_EQ(got.status, 0) << got.err;
  EXPECT_EQ(got.out.size(), largest);
  const auto over = limits::cli(connect_string(), {"set", root(), "-"}, std::string(largest + 1, 'd'));
  EXPECT_EQ(over.status, 3) << over.err;
  EXPECT_THAT(over.err, HasSubstr("jute.maxbuffer"));
  EXPECT_THAT(over.err, HasSubstr("(MARSHALLINGERROR)"));
}

// The command line with deep and long paths: `create -p` makes a thousand levels, `ls` lists the deepest parent;
// a 100,000-byte name (an argument stays under the kernel's 128 KiB per argument) is created and listed.
TEST_F(request_size_test, CliDeepAndLongPaths) {
  std::string deep = root();
  for (std::size_t level = 0; level < depth; ++level) deep += "/d";
  const auto made = limits::cli(connect_string(), {"create", "-p", deep});
  EXPECT_EQ(made.status, 0) << made.err;
  const auto listed = limits::cli(connect_string(), {"ls", deep.substr(0, deep.size() - 2)});
  EXPECT_EQ(listed.status, 0) << listed.err;
  EXPECT_EQ(listed.out, "d\n");
  const std::string name(100000, 'n');
  const auto long_made = limits::cli(connect_string(), {"create", root() + "/" + name});
  EXPECT_EQ(long_made.status, 0) << long_made.err;
  const auto long_listed = limits::cli(connect_string(), {"ls", root()});
  EXPECT_EQ(long_listed.status, 0) << long_listed.err;
  EXPECT_THAT(long_listed.out, HasSubstr(name + "\n"));
}

// The C library (limits_capi.c): the largest data, one byte over (ZBADARGUMENTS, the handle still connected with
// the same session), a thousand-op zoo_multi, the longest path, and many watchers on one node each called once.
TEST_F(request_size_test, CLibraryRequestLimits) {
  blocking_client c(options());
  c.create(root(), "");
  const auto data = limits::capi(connect_string(), {"data", root(), std::to_string(limits::max_set_data(root()))});
  EXPECT_EQ(data.status, 0) << data.out << data.err;
  EXPECT_THAT(data.out, HasSubstr("largest data: ZOK\none byte over: ZBADARGUMENTS\nafter: ZOK, same session\n"));
  const auto multi = limits::capi(connect_string(), {"multi", root() + "/multi", std::to_string(multi_ops)});
  EXPECT_EQ(multi.status, 0) << multi.out << multi.err;
  EXPECT_THAT(multi.out, HasSubstr("multi of 1000 creates: ZOK, 1000 children\n"));
  const std::size_t name_size = limits::max_create_path - root().size() - 1;
  const auto longest = limits::capi(connect_string(), {"long-path", root(), std::to_string(name_size)});
  EXPECT_EQ(longest.status, 0) << longest.out << longest.err;
  EXPECT_THAT(longest.out, HasSubstr("longest path: ZOK\none byte over: ZBADARGUMENTS\n"));
  const auto watches = limits::capi(connect_string(), {"watches", root(), "1000"});
  EXPECT_EQ(watches.status, 0) << watches.out << watches.err;
  EXPECT_THAT(watches.out, HasSubstr("1000 watchers called once each\n"));
}

}  // namespace
}  // namespace zkwire
