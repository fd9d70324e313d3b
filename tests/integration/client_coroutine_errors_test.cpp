// The coroutine pattern of examples/coroutine_example.cpp (asio::use_awaitable, failures caught as
// std::system_error) with operations that fail on a real server: NODEEXISTS, NONODE, BADVERSION. Built under ASan
// by CI's GCC 12, this guards the GCC 12 coroutine trap client.hpp describes: every call form the client offers
// for these operations must unwind an awaited failure without a double free. (The form this API replaces, a
// braced create_options temporary such as `co_await c.async_create(p, d, create_options{}, use_awaitable)` failing
// with NODEEXISTS, is a heap-use-after-free in ~create_options under ASan and a segfault in a Release build; it is
// deliberately not here. A bare `{}` now picks the create_mode overload and is safe.)

#include <gtest/gtest.h>

#include <asio/io_context.hpp>
#include <asio/use_awaitable.hpp>
#include <string>
#include <system_error>

#include "client_test_support.hpp"
#include "support/zk_test.hpp"
#include "zkwire/client/client.hpp"

namespace zkwire {
namespace {

using asio::use_awaitable;

class client_coroutine_errors_test : public test::standalone_test {
 protected:
  client make_client() { return client(io_.get_executor(), test::client_options_for(connect_string())); }

  template <class T>
  T run(asio::awaitable<T> co) {
    return test::run_co(io_, std::move(co));
  }

  asio::io_context io_;
};

// Each form twice: the second failure runs on a frame that already unwound once.
constexpr int rounds = 2;

TEST_F(client_coroutine_errors_test, CreateOnAnExistingNodeThrowsNodeExists) {
  client c = make_client();
  const std::string path = root();
  int caught = 0;
  run([&]() -> asio::awaitable<void> {
    co_await c.async_create(path, "v", use_awaitable);
    for (int i = 0; i < rounds; ++i) {
      try {
        co_await c.async_create(path, "v", use_awaitable);
        ADD_FAILURE() << "no options: created twice";
      } catch (const std::system_error& e) {
        EXPECT_EQ(e.code(), server_error::node_exists);
        ++caught;
      }
      try {
        co_await c.async_create(path, "v", create_mode::ephemeral, use_awaitable);
        ADD_FAILURE() << "create_mode: created twice";
      } catch (const std::system_error& e) {
        EXPECT_EQ(e.code(), server_error::node_exists);
        ++caught;
      }
      try {
        co_await c.async_create(path, "v", create_options::ephemeral(), use_awaitable);
        ADD_FAILURE() << "named options: created twice";
      } catch (const std::system_error& e) {
        EXPECT_EQ(e.code(), server_error::node_exists);
        ++caught;
      }
      // Options with an ACL that owns heap memory, built in a named variable as client.hpp advises.
      create_options options = create_options::ephemeral();
      options.acl = {acl{perms::all, acl_id{"world", "anyone"}},
                     acl{perms::read, acl_id{"digest", "zkwire-coroutine-test:KFa5T4Wc3tBpyh0cDiUSLg0AtXY="}}};
      try {
        co_await c.async_create(path, std::string(100, 'd'), options, use_awaitable);
        ADD_FAILURE() << "options variable: created twice";
      } catch (const std::system_error& e) {
        EXPECT_EQ(e.code(), server_error::node_exists);
        ++caught;
      }
    }
  }());
  EXPECT_EQ(caught, 4 * rounds);
}

TEST_F(client_coroutine_errors_test, MissingNodesThrowNoNode) {
  client c = make_client();
  const std::string path = root();
  int caught = 0;
  run([&]() -> asio::awaitable<void> {
    for (int i = 0; i < rounds; ++i) {
      try {
        co_await c.async_create(path + "/no-such-parent/child-with-a-name-longer-than-sso", std::string(64, 'x'),
                                create_mode::persistent_sequential, use_awaitable);
        ADD_FAILURE() << "created under a missing parent";
      } catch (const std::system_error& e) {
        EXPECT_EQ(e.code(), server_error::no_node);
        ++caught;
      }
      try {
        co_await c.async_get(path, use_awaitable);
        ADD_FAILURE() << "read a missing node";
      } catch (const std::system_error& e) {
        EXPECT_EQ(e.code(), server_error::no_node);
        ++caught;
      }
      try {
        co_await c.async_remove(path, any_version, use_awaitable);
        ADD_FAILURE() << "removed a missing node";
      } catch (const std::system_error& e) {
        EXPECT_EQ(e.code(), server_error::no_node);
        ++caught;
      }
    }
  }());
  EXPECT_EQ(caught, 3 * rounds);
}

TEST_F(client_coroutine_errors_test, StaleVersionsThrowBadVersion) {
  client c = make_client();
  const std::string path = root();
  int caught = 0;
  run([&]() -> asio::awaitable<void> {
    co_await c.async_create(path, "v0", use_awaitable);
    const stat now = co_await c.async_set(path, "v1", 0, use_awaitable);
    EXPECT_EQ(now.version, 1);
    for (int i = 0; i < rounds; ++i) {
      try {
        co_await c.async_set(path, std::string(100, 'y'), 0, use_awaitable);
        ADD_FAILURE() << "set with a stale version";
      } catch (const std::system_error& e) {
        EXPECT_EQ(e.code(), server_error::bad_version);
        ++caught;
      }
      try {
        co_await c.async_remove(path, 0, use_awaitable);
        ADD_FAILURE() << "removed with a stale version";
      } catch (const std::system_error& e) {
        EXPECT_EQ(e.code(), server_error::bad_version);
        ++caught;
      }
    }
    // Still usable after the unwinding: the node is intact.
    const get_result got = co_await c.async_get(path, use_awaitable);
    EXPECT_EQ(got.data, "v1");
  }());
  EXPECT_EQ(caught, 2 * rounds);
}

}  // namespace
}  // namespace zkwire
