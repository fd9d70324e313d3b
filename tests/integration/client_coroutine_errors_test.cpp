// The coroutine pattern of examples/coroutine_example.cpp (asio::use_awaitable, failures caught as
// std::system_error) with operations that fail on a real server: NODEEXISTS, NONODE, BADVERSION. Built under ASan
// by CI's GCC 12, this guards the GCC 12 coroutine trap: an aggregate temporary built with braces inside a co_await
// expression whose operation throws is destroyed twice. zkwire's option and value types are not aggregates, so
// every form here must unwind without a double free, braced temporaries included
// (BracedTemporariesInsideCoAwaitAreDestroyedOnce was a heap-use-after-free in ~create_options under ASan while
// create_options was an aggregate). With the recipes it also runs every example of README.md and of the public
// headers (examples/doc_snippets.cpp).

#include <gtest/gtest.h>

#include <asio/io_context.hpp>
#include <asio/use_awaitable.hpp>
#include <string>
#include <system_error>

#include "client_test_support.hpp"
#if ZKWIRE_TEST_DOC_SNIPPETS
#include "doc_snippets.hpp"
#include "zkwire/recipes/lock.hpp"
#include "zkwire/recipes/semaphore.hpp"
#endif
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

// A user's own coroutine taking options and ACLs by value, awaited with braced temporaries as its arguments.
asio::awaitable<create_result> create_with(client& c, std::string path, create_options options) {
  co_return co_await c.async_create(std::move(path), "v", options, use_awaitable);
}
asio::awaitable<stat> set_acl_to(client& c, std::string path, acl entry, std::int32_t version) {
  std::vector<acl> list;
  list.push_back(std::move(entry));
  co_return co_await c.async_set_acl(std::move(path), std::move(list), version, use_awaitable);
}

// The patterns GCC 12 used to get wrong: a braced temporary of a zkwire option or value type inside a co_await
// expression whose operation throws was destroyed twice (a double free: ASan's heap-use-after-free, a segfault in a
// Release build) as long as the type was an aggregate. The types users build inline are not aggregates any more,
// so each of these is constructed and destroyed once.
TEST_F(client_coroutine_errors_test, BracedTemporariesInsideCoAwaitAreDestroyedOnce) {
  client c = make_client();
  const std::string path = root();
  int caught = 0;
  run([&]() -> asio::awaitable<void> {
    co_await c.async_create(path, "v", use_awaitable);
    for (int i = 0; i < rounds; ++i) {
      try {
        co_await c.async_create(path, "v", create_options{}, use_awaitable);
        ADD_FAILURE() << "create_options{}: created twice";
      } catch (const std::system_error& e) {
        EXPECT_EQ(e.code(), server_error::node_exists);
        ++caught;
      }
      try {
        co_await c.async_create(path, std::string(100, 'd'), create_options{create_mode::ephemeral}, use_awaitable);
        ADD_FAILURE() << "create_options{mode}: created twice";
      } catch (const std::system_error& e) {
        EXPECT_EQ(e.code(), server_error::node_exists);
        ++caught;
      }
      try {
        co_await create_with(c, path, create_options{create_mode::persistent});
        ADD_FAILURE() << "a coroutine taking create_options{mode}: created twice";
      } catch (const std::system_error& e) {
        EXPECT_EQ(e.code(), server_error::node_exists);
        ++caught;
      }
      try {
        co_await set_acl_to(
            c, path, acl{perms::all, acl_id{"digest", "zkwire-coroutine-test:KFa5T4Wc3tBpyh0cDiUSLg0AtXY="}}, 99);
        ADD_FAILURE() << "a coroutine taking acl{...}: set with a stale aversion";
      } catch (const std::system_error& e) {
        EXPECT_EQ(e.code(), server_error::bad_version);
        ++caught;
      }
    }
  }());
  EXPECT_EQ(caught, 4 * rounds);
}

// The forms that replace braced lists inside co_await (GCC 12 does not compile those), failing on the server.
TEST_F(client_coroutine_errors_test, ListBuildersInsideCoAwaitUnwindOnce) {
  client c = make_client();
  const std::string path = root();
  int caught = 0;
  run([&]() -> asio::awaitable<void> {
    co_await c.async_create(path, "v", use_awaitable);
    for (int i = 0; i < rounds; ++i) {
      try {
        co_await c.async_multi(ops::list(ops::check(path, 7), ops::set(path, std::string(100, 's'))), use_awaitable);
        ADD_FAILURE() << "multi with a stale check applied";
      } catch (const std::system_error& e) {
        EXPECT_EQ(e.code(), server_error::bad_version);
        ++caught;
      }
      try {
        co_await c.async_set_acl(path,
                                 acl_list(acl(perms::all, "world", "anyone"), acl{perms::read, {"ip", "10.0.0.1"}}), 99,
                                 use_awaitable);
        ADD_FAILURE() << "set_acl with a stale aversion applied";
      } catch (const std::system_error& e) {
        EXPECT_EQ(e.code(), server_error::bad_version);
        ++caught;
      }
      try {
        co_await c.async_create(
            path, "v", create_options{create_mode::persistent, acl_list(acl{perms::all, acl_id{"world", "anyone"}})},
            use_awaitable);
        ADD_FAILURE() << "create_options{mode, acl_list(...)}: created twice";
      } catch (const std::system_error& e) {
        EXPECT_EQ(e.code(), server_error::node_exists);
        ++caught;
      }
    }
  }());
  EXPECT_EQ(caught, 3 * rounds);
}

#if ZKWIRE_TEST_DOC_SNIPPETS
// A user's coroutine taking the recipes' options by value, awaited with braced temporaries (see
// BracedTemporariesInsideCoAwaitAreDestroyedOnce); the acquire fails (a relative directory).
asio::awaitable<void> acquire_with(client& c, recipes::lock_options options) {
  recipes::lock l(c, "relative/dir", std::move(options));
  co_await l.async_acquire(std::chrono::milliseconds(0), use_awaitable);
}
asio::awaitable<void> acquire_lease_with(client& c, recipes::semaphore_options options) {
  recipes::semaphore s(c, "relative/dir", 2, std::move(options));
  co_await s.async_acquire(std::chrono::milliseconds(0), use_awaitable);
}

TEST_F(client_coroutine_errors_test, RecipeOptionsBracedInsideCoAwaitAreDestroyedOnce) {
  client c = make_client();
  int caught = 0;
  run([&]() -> asio::awaitable<void> {
    for (int i = 0; i < rounds; ++i) {
      try {
        co_await acquire_with(c, recipes::lock_options{});
        ADD_FAILURE() << "acquired a lock on a relative directory";
      } catch (const std::system_error& e) {
        EXPECT_EQ(e.code(), client_error::invalid_path);
        ++caught;
      }
      try {
        co_await acquire_lease_with(c, recipes::semaphore_options{});
        ADD_FAILURE() << "acquired a lease on a relative path";
      } catch (const std::system_error& e) {
        EXPECT_EQ(e.code(), client_error::invalid_path);
        ++caught;
      }
    }
  }());
  EXPECT_EQ(caught, 2 * rounds);
}

// Every example of README.md and of the public headers, as examples/doc_snippets.cpp has them, under this
// program's sanitizers (GCC 12's ASan in CI's GCC stage).
TEST_F(client_coroutine_errors_test, DocumentationExamplesRun) {
  client c = make_client();
  const std::string chroot = root();
  run([&]() -> asio::awaitable<void> { co_await c.async_create(chroot, "", use_awaitable); }());
  EXPECT_NO_THROW(zkwire_examples::run_doc_snippets(connect_string() + chroot));
}
#endif

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
