#pragma once
// Helpers of the limits suite (label limits, docs/testing.md#limits): the request sizes at the server's
// jute.maxbuffer, a directory filled by one pipelined burst, and the two programs the suite runs as users do: the
// zkwire command line and limits_capi (a C program built against Debian's zookeeper.h, run on zkwire's
// libzookeeper_mt.so.2).

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
#include "zkwire/client/client.hpp"
#include "zkwire/jute/limits.hpp"

namespace zkwire::limits {

using namespace std::chrono_literals;

// What the server accepts in one request frame (its jute.maxbuffer, by default): the payload after the 4-byte length.
inline constexpr std::size_t max_payload = jute::server_max_buffer;

// The largest data a setData of `path` may carry: the payload is the request header (xid, type: 8 bytes), the path
// (4-byte length + bytes), the data (4 + bytes) and the version (4).
inline std::size_t max_set_data(const std::string& path) { return max_payload - 8 - (4 + path.size()) - 4 - 4; }

// The longest path a create with empty data and the open ACL may name: header 8, path 4 + bytes, data 4, the ACL
// list (count 4; perms 4, "world" 4 + 5, "anyone" 4 + 6) and the flags 4.
inline constexpr std::size_t max_create_path = max_payload - 8 - 4 - 4 - (4 + 4 + 9 + 10) - 4;

// Creates `path` (empty) on `c`, running `io` until it is answered.
inline void create_node(asio::io_context& io, client& c, const std::string& path) {
  std::optional<std::error_code> made;
  c.async_create(path, "", [&](std::error_code ec, const create_result&) { made = ec; });
  ASSERT_TRUE(test::run_until(
      io, [&] { return made.has_value(); }, 30s, "the create"));
  ASSERT_FALSE(*made) << made->message();
}

// Creates `dir` and `count` children named name(i) under it, as one pipelined burst on one client: the replies
// come back in order, and a burst takes seconds where one round trip each would take minutes.
template <class Name>
void fill_directory(const std::string& connect, const std::string& dir, std::size_t count, Name name) {
  asio::io_context io;
  client c(io.get_executor(), test::client_options_for(connect, 30s));
  create_node(io, c, dir);
  std::size_t done = 0;
  std::error_code first_error;
  for (std::size_t i = 0; i < count; ++i) {
    c.async_create(dir + "/" + name(i), "", [&](std::error_code ec, const create_result&) {
      ++done;
      if (ec && !first_error) first_error = ec;
    });
  }
  ASSERT_TRUE(test::run_until(
      io, [&] { return done == count; }, 120s, "the children's creates"));
  ASSERT_FALSE(first_error) << first_error.message();
  std::optional<std::error_code> closed;
  c.async_close([&](std::error_code ec) { closed = ec; });
  ASSERT_TRUE(test::run_until(
      io, [&] { return closed.has_value(); }, 30s, "the close"));
}

// Runs the zkwire command line with `args` after `-s connect`, bounded by `timeout` (a run past it is killed and
// reported with status -1 or a signal's).
inline test::outcome cli(const std::string& connect, const std::vector<std::string>& args,
                         const std::string& input = {}, std::chrono::seconds timeout = 60s) {
  std::vector<std::string> argv = {ZKWIRE_CLI_PATH, "-s", connect};
  argv.insert(argv.end(), args.begin(), args.end());
  return test::run_process(argv, input, timeout);
}

// Runs limits_capi (limits_capi.c) on zkwire's libzookeeper_mt.so.2 with `args` after the connect string.
inline test::outcome capi(const std::string& connect, const std::vector<std::string>& args,
                          std::chrono::seconds timeout = 60s) {
  std::vector<std::string> argv = {"/usr/bin/env", "-u", "LD_PRELOAD", "LD_LIBRARY_PATH=" ZKWIRE_CAPI_LIBDIR};
  // An ASan build of the library in a program without ASan: the runtime is loaded first (docs/libzookeeper.md).
  if (std::string(ZKWIRE_CAPI_PRELOAD).size() > 0) argv.emplace_back("LD_PRELOAD=" ZKWIRE_CAPI_PRELOAD);
  argv.insert(argv.end(), {ZKWIRE_LIMITS_CAPI, connect});
  argv.insert(argv.end(), args.begin(), args.end());
  return test::run_process(argv, {}, timeout);
}

}  // namespace zkwire::limits
