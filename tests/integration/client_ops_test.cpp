// zkwire::client against a real ZooKeeper 3.8 server: every operation, its results and its error paths, with
// the completion tokens use_awaitable, use_future, deferred and plain callbacks.

#include <gtest/gtest.h>

#include <algorithm>
#include <asio/experimental/deferred.hpp>
#include <asio/io_context.hpp>
#include <asio/use_awaitable.hpp>
#include <asio/use_future.hpp>
#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "client_test_support.hpp"
#include "support/zk_test.hpp"
#include "zkwire/client/blocking_client.hpp"
#include "zkwire/client/client.hpp"

namespace zkwire {
namespace {

using asio::use_awaitable;
using test::run_co;
using test::tuple_awaitable;

class client_ops_test : public test::standalone_test {
 protected:
  client make_client(std::string_view chroot = {}) {
    return client(io_.get_executor(), test::client_options_for(connect_string(chroot)));
  }

  template <class T>
  T run(asio::awaitable<T> co) {
    return run_co(io_, std::move(co));
  }

  asio::io_context io_;
};

std::error_code err(server_error e) { return make_error_code(e); }

TEST_F(client_ops_test, CreateGetSetRemove) {
  client c = make_client();
  run([&]() -> asio::awaitable<void> {
    co_await c.async_connect(use_awaitable);
    EXPECT_EQ(c.state(), session_state::connected);
    EXPECT_NE(c.session_id(), 0);

    const create_result created = co_await c.async_create(root(), "v0", use_awaitable);
    EXPECT_EQ(created.path, root());
    EXPECT_EQ(created.stat.version, 0);
    EXPECT_EQ(created.stat.data_length, 2);

    const get_result got = co_await c.async_get(root(), use_awaitable);
    EXPECT_EQ(got.data, "v0");
    EXPECT_FALSE(got.null_data);
    EXPECT_EQ(got.stat, created.stat);

    // A read's zxid is the server's last applied transaction: our create's, as nothing came after it.
    EXPECT_EQ(got.zxid, created.stat.czxid);

    const stat after = co_await c.async_set(root(), "v1", 0, use_awaitable);
    EXPECT_EQ(after.version, 1);
    const get_result reread = co_await c.async_get(root(), use_awaitable);
    EXPECT_EQ(reread.zxid, after.mzxid);
    auto [bad_set, unused] = co_await c.async_set(root(), "v2", 0, tuple_awaitable);
    EXPECT_EQ(bad_set, err(server_error::bad_version));
    EXPECT_EQ((co_await c.async_get(root(), use_awaitable)).data, "v1");

    auto [exists_twice, unused2] = co_await c.async_create(root(), "", tuple_awaitable);
    EXPECT_EQ(exists_twice, err(server_error::node_exists));
    auto [no_parent, unused3] = co_await c.async_create(root() + "/a/b", "", tuple_awaitable);
    EXPECT_EQ(no_parent, err(server_error::no_node));

    co_await c.async_create(root() + "/child", "", use_awaitable);
    auto [not_empty] = co_await c.async_remove(root(), any_version, tuple_awaitable);
    EXPECT_EQ(not_empty, err(server_error::not_empty));
    auto [bad_version] = co_await c.async_remove(root() + "/child", 7, tuple_awaitable);
    EXPECT_EQ(bad_version, err(server_error::bad_version));
    co_await c.async_remove(root() + "/child", 0, use_awaitable);
    co_await c.async_remove(root(), any_version, use_awaitable);

    auto [gone, unused4] = co_await c.async_get(root(), tuple_awaitable);
    EXPECT_EQ(gone, err(server_error::no_node));
    auto [remove_gone] = co_await c.async_remove(root(), any_version, tuple_awaitable);
    EXPECT_EQ(remove_gone, err(server_error::no_node));
    auto [set_gone, unused5] = co_await c.async_set(root(), "x", any_version, tuple_awaitable);
    EXPECT_EQ(set_gone, err(server_error::no_node));
  }());
}

TEST_F(client_ops_test, ExistsReportsMissingNodesWithoutError) {
  client c = make_client();
  run([&]() -> asio::awaitable<void> {
    auto [ec, missing] = co_await c.async_exists(root(), tuple_awaitable);
    EXPECT_FALSE(ec);
    EXPECT_FALSE(missing.has_value());
    co_await c.async_create(root(), "abc", use_awaitable);
    const auto found = co_await c.async_exists(root(), use_awaitable);
    ZKWIRE_CO_ASSERT(found.has_value());
    EXPECT_EQ(found->data_length, 3);
  }());
}

TEST_F(client_ops_test, CreateModes) {
  client c = make_client();
  run([&]() -> asio::awaitable<void> {
    co_await c.async_create(root(), "", use_awaitable);

    create_options ephemeral;
    ephemeral.mode = create_mode::ephemeral;
    const auto e = co_await c.async_create(root() + "/e", "x", ephemeral, use_awaitable);
    EXPECT_EQ(e.stat.ephemeral_owner, c.session_id());

    create_options sequential;
    sequential.mode = create_mode::persistent_sequential;
    const auto s1 = co_await c.async_create(root() + "/s-", "", sequential, use_awaitable);
    const auto s2 = co_await c.async_create(root() + "/s-", "", sequential, use_awaitable);
    EXPECT_EQ(s1.path.size(), (root() + "/s-").size() + 10);
    EXPECT_LT(s1.path, s2.path);
    EXPECT_EQ(s1.path.substr(0, root().size() + 3), root() + "/s-");

    create_options ephemeral_sequential;
    ephemeral_sequential.mode = create_mode::ephemeral_sequential;
    const auto es = co_await c.async_create(root() + "/es-", "", ephemeral_sequential, use_awaitable);
    EXPECT_EQ(es.stat.ephemeral_owner, c.session_id());
    EXPECT_EQ(es.path.size(), (root() + "/es-").size() + 10);

    // An ephemeral node cannot have children.
    auto [no_children, unused] = co_await c.async_create(root() + "/e/x", "", tuple_awaitable);
    EXPECT_EQ(no_children, err(server_error::no_children_for_ephemerals));

    create_options container;
    container.mode = create_mode::container;
    const auto ct = co_await c.async_create(root() + "/container", "", container, use_awaitable);
    EXPECT_EQ(ct.path, root() + "/container");
    EXPECT_EQ(ct.stat.ephemeral_owner, 0);

    create_options ttl;  // the fixture runs with extendedTypesEnabled
    ttl.mode = create_mode::persistent_with_ttl;
    ttl.ttl = 60000;
    const auto t = co_await c.async_create(root() + "/ttl", "", ttl, use_awaitable);
    EXPECT_EQ(t.path, root() + "/ttl");
    ttl.mode = create_mode::persistent_sequential_with_ttl;
    const auto ts = co_await c.async_create(root() + "/ttl-", "", ttl, use_awaitable);
    EXPECT_EQ(ts.path.size(), (root() + "/ttl-").size() + 10);
    ttl.ttl = 0;  // out of range: refused before anything is sent
    auto [bad_ttl, unused2] = co_await c.async_create(root() + "/ttl0", "", ttl, tuple_awaitable);
    EXPECT_EQ(bad_ttl, make_error_code(client_error::invalid_argument));

    create_options null_data;
    null_data.null_data = true;
    co_await c.async_create(root() + "/null", "ignored", null_data, use_awaitable);
    const auto got_null = co_await c.async_get(root() + "/null", use_awaitable);
    EXPECT_TRUE(got_null.null_data);
    EXPECT_TRUE(got_null.data.empty());

    const auto eph = co_await c.async_get_ephemerals(root(), use_awaitable);
    EXPECT_EQ(eph.size(), 2U);
    EXPECT_NE(std::find(eph.begin(), eph.end(), root() + "/e"), eph.end());
    EXPECT_NE(std::find(eph.begin(), eph.end(), es.path), eph.end());
  }());
}

TEST_F(client_ops_test, ChildrenAndCounts) {
  client c = make_client();
  run([&]() -> asio::awaitable<void> {
    co_await c.async_create(root(), "", use_awaitable);
    const std::vector<std::string> names{"b", "a", "c"};
    for (const auto& name : names) co_await c.async_create(root() + "/" + name, "", use_awaitable);
    co_await c.async_create(root() + "/a/x", "", use_awaitable);
    auto children = co_await c.async_get_children(root(), use_awaitable);
    std::sort(children.children.begin(), children.children.end());
    EXPECT_EQ(children.children, (std::vector<std::string>{"a", "b", "c"}));
    EXPECT_EQ(children.stat.num_children, 3);
    EXPECT_EQ(co_await c.async_get_all_children_number(root(), use_awaitable), 4);
    auto [missing, unused] = co_await c.async_get_children(root() + "/nope", tuple_awaitable);
    EXPECT_EQ(missing, err(server_error::no_node));
    co_await c.async_sync(root(), use_awaitable);
  }());
}

TEST_F(client_ops_test, InvalidPathsAreRejectedBeforeSending) {
  client c = make_client();
  run([&]() -> asio::awaitable<void> {
    const std::vector<std::string> bad_paths{"", "no-slash", "/trailing/", "/a//b", "/a/./b"};
    for (const auto& bad : bad_paths) {
      auto [ec, unused] = co_await c.async_get(bad, tuple_awaitable);
      EXPECT_EQ(ec, make_error_code(client_error::invalid_path)) << bad;
    }
    // The server refuses what only it knows to be wrong.
    auto [zookeeper] = co_await c.async_remove("/zookeeper", any_version, tuple_awaitable);
    EXPECT_EQ(zookeeper, err(server_error::bad_arguments));
    // The session survives all of it.
    co_await c.async_create(root(), "", use_awaitable);
  }());
}

TEST_F(client_ops_test, AclsAndDigestAuth) {
  client owner = make_client();
  client stranger = make_client();
  run([&]() -> asio::awaitable<void> {
    // Without credentials, an "auth" ACL is invalid; so is an empty one.
    create_options creator;
    creator.acl = creator_all_acl();
    auto [no_auth_id, unused] = co_await owner.async_create(root(), "", creator, tuple_awaitable);
    EXPECT_EQ(no_auth_id, err(server_error::invalid_acl));
    create_options empty;
    empty.acl = {};
    auto [empty_acl, unused2] = co_await owner.async_create(root(), "", empty, tuple_awaitable);
    EXPECT_EQ(empty_acl, err(server_error::invalid_acl));

    co_await owner.async_add_auth("digest", "alice:secret", use_awaitable);
    const auto who = co_await owner.async_whoami(use_awaitable);
    EXPECT_NE(std::find(who.begin(), who.end(), client_info{"digest", "alice"}), who.end());

    co_await owner.async_create(root(), "private", creator, use_awaitable);
    const auto acl = co_await owner.async_get_acl(root(), use_awaitable);
    ZKWIRE_CO_ASSERT(acl.acl.size() == 1U);
    EXPECT_EQ(acl.acl[0].id.scheme, "digest");
    EXPECT_EQ(acl.acl[0].id.id.substr(0, 6), "alice:");
    EXPECT_EQ(acl.acl[0].perms, perms::all);

    auto [denied, unused3] = co_await stranger.async_get(root(), tuple_awaitable);
    EXPECT_EQ(denied, err(server_error::no_auth));
    auto [denied_set, unused4] = co_await stranger.async_set(root(), "x", any_version, tuple_awaitable);
    EXPECT_EQ(denied_set, err(server_error::no_auth));
    co_await stranger.async_add_auth("digest", "alice:secret", use_awaitable);
    EXPECT_EQ((co_await stranger.async_get(root(), use_awaitable)).data, "private");

    // setAcl: version is checked against aversion; an empty list is invalid.
    auto [bad_version, unused5] = co_await owner.async_set_acl(root(), open_acl_unsafe(), 5, tuple_awaitable);
    EXPECT_EQ(bad_version, err(server_error::bad_version));
    auto [invalid, unused6] = co_await owner.async_set_acl(root(), {}, any_version, tuple_awaitable);
    EXPECT_EQ(invalid, err(server_error::invalid_acl));
    const stat st = co_await owner.async_set_acl(root(), read_acl_unsafe(), 0, use_awaitable);
    EXPECT_EQ(st.aversion, 1);
    auto [read_only, unused7] = co_await owner.async_set(root(), "x", any_version, tuple_awaitable);
    EXPECT_EQ(read_only, err(server_error::no_auth));
  }());
}

TEST_F(client_ops_test, CredentialsFromOptionsAreSentAtConnect) {
  auto options = test::client_options_for(connect_string());
  options.auth.push_back({"digest", "bob:pw"});
  client c(io_.get_executor(), options);
  run([&]() -> asio::awaitable<void> {
    co_await c.async_connect(use_awaitable);
    const auto who = co_await c.async_whoami(use_awaitable);
    EXPECT_NE(std::find(who.begin(), who.end(), client_info{"digest", "bob"}), who.end());
  }());
}

TEST_F(client_ops_test, BadAuthSchemeEndsTheSession) {
  client c = make_client();
  std::vector<session_state> states;
  c.set_state_listener([&](const state_event& e) { states.push_back(e.to); });
  run([&]() -> asio::awaitable<void> {
    co_await c.async_connect(use_awaitable);
    auto [ec] = co_await c.async_add_auth("no-such-scheme", "x", tuple_awaitable);
    EXPECT_EQ(ec, err(server_error::auth_failed));
    auto [later, unused] = co_await c.async_get("/", tuple_awaitable);
    EXPECT_TRUE(is_session_fatal(later)) << later.message();
  }());
  EXPECT_EQ(c.state(), session_state::auth_failed);
  EXPECT_NE(std::find(states.begin(), states.end(), session_state::auth_failed), states.end());
}

TEST_F(client_ops_test, MultiCommitsOrRollsBack) {
  client c = make_client();
  run([&]() -> asio::awaitable<void> {
    co_await c.async_create(root(), "", use_awaitable);
    std::vector<multi_op> good{ops::create(root() + "/a", "1"), ops::set(root() + "/a", "2", 0), ops::check(root(), 0),
                               ops::create(root() + "/b", ""), ops::remove(root() + "/b")};
    const auto ok = co_await c.async_multi(std::move(good), use_awaitable);
    ZKWIRE_CO_ASSERT(ok.size() == 5U);
    EXPECT_EQ(ok[0].path, root() + "/a");
    EXPECT_FALSE(ok[0].error);
    EXPECT_EQ(ok[1].type, op_code::set_data);
    EXPECT_EQ(ok[1].stat.version, 1);
    EXPECT_EQ(ok[2].type, op_code::check);
    EXPECT_EQ(ok[4].type, op_code::delete_);
    EXPECT_EQ((co_await c.async_get(root() + "/a", use_awaitable)).data, "2");

    // A failing check rolls back the create before it.
    std::vector<multi_op> bad{ops::create(root() + "/c", ""), ops::check(root() + "/a", 0),
                              ops::set(root() + "/a", "3")};
    auto [ec, failed] = co_await c.async_multi(std::move(bad), tuple_awaitable);
    EXPECT_EQ(ec, err(server_error::bad_version));
    ZKWIRE_CO_ASSERT(failed.size() == 3U);
    EXPECT_EQ(failed[1].error, err(server_error::bad_version));
    EXPECT_EQ(failed[2].error, err(server_error::runtime_inconsistency));
    EXPECT_FALSE((co_await c.async_exists(root() + "/c", use_awaitable)).has_value());

    // Mixing reads into a multi is refused locally.
    std::vector<multi_op> mixed_ops{ops::get(root())};
    auto [mixed, unused] = co_await c.async_multi(std::move(mixed_ops), tuple_awaitable);
    EXPECT_EQ(mixed, make_error_code(client_error::invalid_argument));
    const auto empty = co_await c.async_multi(std::vector<multi_op>{}, use_awaitable);
    EXPECT_TRUE(empty.empty());
  }());
}

TEST_F(client_ops_test, MultiReadReportsEachRead) {
  client c = make_client();
  run([&]() -> asio::awaitable<void> {
    co_await c.async_create(root(), "top", use_awaitable);
    co_await c.async_create(root() + "/k", "", use_awaitable);
    std::vector<multi_op> reads{ops::get(root()), ops::get_children(root()), ops::get(root() + "/missing")};
    auto [ec, results] = co_await c.async_multi_read(std::move(reads), tuple_awaitable);
    EXPECT_EQ(ec, err(server_error::no_node));  // the first failed read
    ZKWIRE_CO_ASSERT(results.size() == 3U);
    EXPECT_FALSE(results[0].error);
    EXPECT_EQ(results[0].data, "top");
    EXPECT_EQ(results[1].children, std::vector<std::string>{"k"});
    EXPECT_EQ(results[2].error, err(server_error::no_node));
  }());
}

TEST_F(client_ops_test, ChrootIsAppliedAndStripped) {
  client plain = make_client();
  run([&]() -> asio::awaitable<void> { co_await plain.async_create(root(), "", use_awaitable); }());
  client rooted = make_client(root());
  run([&]() -> asio::awaitable<void> {
    const auto created = co_await rooted.async_create("/inside", "x", use_awaitable);
    EXPECT_EQ(created.path, "/inside");
    create_options seq;
    seq.mode = create_mode::persistent_sequential;
    const auto s = co_await rooted.async_create("/seq-", "", seq, use_awaitable);
    EXPECT_EQ(s.path.substr(0, 5), "/seq-");
    EXPECT_EQ((co_await plain.async_get(root() + "/inside", use_awaitable)).data, "x");
    auto children = co_await rooted.async_get_children("/", use_awaitable);
    EXPECT_EQ(children.children.size(), 2U);
    std::vector<multi_op> create_m{ops::create("/m", "")};
    const auto multi = co_await rooted.async_multi(std::move(create_m), use_awaitable);
    EXPECT_EQ(multi.at(0).path, "/m");
  }());
}

TEST_F(client_ops_test, FutureDeferredAndCallbackTokens) {
  client c = make_client();
  // use_future, with the loop run by this thread.
  auto created = c.async_create(root(), "f", asio::use_future);
  ASSERT_TRUE(
      test::run_until(io_, [&] { return created.wait_for(std::chrono::seconds(0)) == std::future_status::ready; }));
  EXPECT_EQ(created.get().path, root());

  // deferred: nothing starts until the deferred operation is launched. The node changes between creating the
  // operation and launching it: a read sent at creation would see the old data.
  auto op = c.async_get(root(), asio::experimental::deferred);
  EXPECT_EQ(c.pending_requests(), 0U);
  auto changed = c.async_set(root(), "g", any_version, asio::use_future);
  ASSERT_TRUE(
      test::run_until(io_, [&] { return changed.wait_for(std::chrono::seconds(0)) == std::future_status::ready; }));
  changed.get();
  EXPECT_EQ(c.pending_requests(), 0U);
  bool called = false;
  std::move(op)([&](std::error_code ec, const get_result& got) {
    EXPECT_FALSE(ec);
    EXPECT_EQ(got.data, "g");
    called = true;
  });
  EXPECT_FALSE(called);  // never inline
  ASSERT_TRUE(test::run_until(io_, [&] { return called; }));

  // A plain callback is never invoked from inside the initiating function, even for an immediate error.
  bool invalid_called = false;
  c.async_get("bad path", [&](std::error_code ec, const get_result&) {
    EXPECT_EQ(ec, make_error_code(client_error::invalid_path));
    invalid_called = true;
  });
  EXPECT_FALSE(invalid_called);
  ASSERT_TRUE(test::run_until(io_, [&] { return invalid_called; }));
}

TEST_F(client_ops_test, CloseDeletesEphemeralsAndFailsLaterCalls) {
  client observer = make_client();
  {
    client c = make_client();
    run([&]() -> asio::awaitable<void> {
      co_await c.async_create(root(), "", use_awaitable);
      create_options ephemeral;
      ephemeral.mode = create_mode::ephemeral;
      co_await c.async_create(root() + "/e", "", ephemeral, use_awaitable);
      co_await c.async_close(use_awaitable);
      EXPECT_EQ(c.state(), session_state::closed);
      auto [later, unused] = co_await c.async_get(root(), tuple_awaitable);
      EXPECT_EQ(later, make_error_code(client_error::closed));
      co_await c.async_close(use_awaitable);  // closing again is fine
    }());
  }
  run([&]() -> asio::awaitable<void> {
    EXPECT_FALSE((co_await observer.async_exists(root() + "/e", use_awaitable)).has_value());
  }());
}

// After the close nothing of the client is left on its executor: io_context::run() returns at once, not when a
// timer armed earlier (the ping, session_timeout / 3 = 10 s here) would have fired.
TEST_F(client_ops_test, AClosedClientLeavesItsEventLoopFree) {
  client c(io_.get_executor(), test::client_options_for(connect_string(), std::chrono::seconds(30)));
  run([&]() -> asio::awaitable<void> { co_await c.async_create(root(), "", use_awaitable); }());
  bool closed = false;
  c.async_close([&](std::error_code ec) {
    EXPECT_FALSE(ec) << ec.message();
    closed = true;
  });
  const auto start = std::chrono::steady_clock::now();
  io_.restart();
  io_.run();
  EXPECT_TRUE(closed);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));  // one round trip, really
}

// Nor do request deadlines outlive the close: the deadline of a request answered long ago, client_options'
// request_timeout (15 s) or a call's with_timeout (20 s), must not keep io_context::run() busy after async_close.
TEST_F(client_ops_test, ACloseLeavesNoRequestDeadlineBehind) {
  for (const bool per_call : {false, true}) {
    SCOPED_TRACE(per_call ? "with_timeout(20s)" : "request_timeout = 15s");
    auto options = test::client_options_for(connect_string());
    if (!per_call) options.request_timeout = std::chrono::seconds(15);
    client c(io_.get_executor(), options);
    run([&]() -> asio::awaitable<void> {
      if (per_call) {
        co_await c.async_get("/", with_timeout(std::chrono::seconds(20), use_awaitable));
      } else {
        co_await c.async_get("/", use_awaitable);
      }
    }());
    std::optional<std::error_code> closed;
    c.async_close([&](std::error_code ec) { closed = ec; });
    const auto start = std::chrono::steady_clock::now();
    io_.restart();
    io_.run();
    const auto elapsed = std::chrono::steady_clock::now() - start;
    ASSERT_TRUE(closed.has_value());
    EXPECT_FALSE(*closed) << closed->message();
    EXPECT_LT(elapsed, std::chrono::seconds(5))
        << "io_context::run() returned " << std::chrono::duration<double>(elapsed).count()
        << " s after the close: a request deadline outlived it";
  }
}

TEST_F(client_ops_test, BlockingClient) {
  blocking_client c(test::client_options_for(connect_string()));
  c.connect();
  EXPECT_EQ(c.state(), session_state::connected);
  EXPECT_EQ(c.create(root(), "b").path, root());
  EXPECT_EQ(c.get(root()).data, "b");
  EXPECT_EQ(c.set(root(), "c").version, 1);
  EXPECT_FALSE(c.exists(root() + "/none").has_value());
  try {
    c.create(root(), "");
    ADD_FAILURE() << "NODEEXISTS expected";
  } catch (const std::system_error& e) {
    EXPECT_EQ(e.code(), err(server_error::node_exists));
    EXPECT_NE(std::string(e.what()).find(root()), std::string::npos);
  }
  try {
    c.multi({ops::create(root() + "/x", ""), ops::check(root(), 9)});
    ADD_FAILURE() << "BADVERSION expected";
  } catch (const multi_error& e) {
    EXPECT_EQ(e.code(), err(server_error::bad_version));
    EXPECT_EQ(e.results().size(), 2U);
  }
  std::promise<watch_event> fired;
  c.get(root(), [&](const watch_event& event) { fired.set_value(event); });
  c.set(root(), "d");
  auto future = fired.get_future();
  ASSERT_EQ(future.wait_for(std::chrono::seconds(10)), std::future_status::ready);
  EXPECT_EQ(future.get().type, event_type::node_data_changed);
  c.remove(root());
  c.close();
  EXPECT_THROW(c.get("/"), std::system_error);
}

}  // namespace
}  // namespace zkwire
