// The simulated server, through the same wire bytes a client sends: each test names one rule of the real server
// (docs/protocol.md) that the model must keep.

#include <gtest/gtest.h>

#include <algorithm>

#include "server.hpp"
#include "wire_peer.hpp"

namespace zkwire::sim {
namespace {

using proto::op_code;
using proto::server_error;
using testing::create;
using testing::sim_link;
using testing::wire_peer;

template <class Body>
const Body& body(const testing::call_result& r) {
  return std::get<Body>(r.reply.body);
}

class sim_server_test : public ::testing::Test {
 protected:
  struct client {
    std::unique_ptr<sim_link> link;
    std::unique_ptr<wire_peer> peer;
    proto::connect_response session;
    wire_peer* operator->() const { return peer.get(); }
  };

  client connect(std::int32_t timeout = 4000) {
    client c;
    c.link = std::make_unique<sim_link>(server_, now_);
    c.peer = std::make_unique<wire_peer>(*c.link);
    auto response = c.peer->connect(timeout);
    EXPECT_TRUE(response.has_value());
    if (response) c.session = *response;
    return c;
  }

  server server_;
  sim_time now_{0};
};

TEST_F(sim_server_test, HandshakeClampsTheTimeoutAndResumesWithThePasswordOnly) {
  auto a = connect(100);
  EXPECT_EQ(a.session.timeout, 400);  // 2 × tickTime
  EXPECT_NE(a.session.session_id, 0);
  auto big = connect(10'000'000);
  EXPECT_EQ(big.session.timeout, 4000);  // 20 × tickTime

  sim_link other(server_, now_);
  wire_peer resume(other);
  const auto resumed = resume.connect(1000, a.session.session_id, a.session.passwd);
  ASSERT_TRUE(resumed);
  EXPECT_EQ(resumed->session_id, a.session.session_id);
  EXPECT_EQ(resumed->timeout, 1000);
  EXPECT_TRUE(a.link->closed()) << "the session's earlier connection is closed when it moves";

  sim_link wrong(server_, now_);
  wire_peer bad(wrong);
  const auto refused = bad.connect(1000, a.session.session_id, std::string(16, 'x'));
  ASSERT_TRUE(refused);
  EXPECT_EQ(refused->timeout, 0);
  EXPECT_EQ(refused->session_id, 0);
  EXPECT_TRUE(wrong.closed());
  EXPECT_TRUE(other.closed()) << "even a wrong password closes the live connection";
}

TEST_F(sim_server_test, ClientAheadOfTheServerIsClosedWithoutReply) {
  sim_link link(server_, now_);
  wire_peer peer(link);
  EXPECT_FALSE(peer.connect(4000, 0, std::string(16, '\0'), server_.last_zxid() + 5));
  EXPECT_TRUE(link.closed());
}

TEST_F(sim_server_test, StatsFollowCreatesDeletesAndSets) {
  auto c = connect();
  const auto made = c->call(op_code::create2, create("/a", "x"));
  ASSERT_TRUE(made);
  const auto& stat = body<proto::create2_response>(*made).stat;
  EXPECT_EQ(stat.czxid, made->reply.header.zxid);
  EXPECT_EQ(stat.mzxid, stat.czxid);
  EXPECT_EQ(stat.pzxid, stat.czxid);
  EXPECT_EQ(stat.data_length, 1);

  const auto set = c->call(op_code::set_data, proto::set_data_request{"/a", "yy", 0});
  ASSERT_TRUE(set);
  EXPECT_EQ(body<proto::set_data_response>(*set).stat.version, 1);
  EXPECT_EQ(body<proto::set_data_response>(*set).stat.mzxid, set->reply.header.zxid);
  const auto stale = c->call(op_code::set_data, proto::set_data_request{"/a", "z", 0});
  EXPECT_EQ(stale->reply.header.err, static_cast<int>(server_error::bad_version));
  EXPECT_EQ(stale->reply.header.zxid, set->reply.header.zxid + 1) << "a failed write consumes a zxid";

  ASSERT_TRUE(c->call(op_code::create, create("/a/child")));
  ASSERT_TRUE(c->call(op_code::delete_, proto::delete_request{"/a/child", -1}));
  const auto parent = c->call(op_code::exists, proto::exists_request{"/a", false});
  EXPECT_EQ(body<proto::exists_response>(*parent).stat.cversion, 2) << "creates and deletes both count";
  EXPECT_EQ(body<proto::exists_response>(*parent).stat.num_children, 0);
  EXPECT_EQ(c->call(op_code::delete_, proto::delete_request{"/", -1})->reply.header.err,
            static_cast<int>(server_error::bad_arguments));
}

TEST_F(sim_server_test, SequentialSuffixCountsCreationsOnly) {
  auto c = connect();
  ASSERT_TRUE(c->call(op_code::create, create("/q")));
  const auto first = c->call(op_code::create, create("/q/n-", "", proto::create_mode::persistent_sequential));
  EXPECT_EQ(body<proto::create_response>(*first).path, "/q/n-0000000000");
  ASSERT_TRUE(c->call(op_code::delete_, proto::delete_request{"/q/n-0000000000", -1}));
  ASSERT_TRUE(c->call(op_code::create, create("/q/plain")));
  ASSERT_TRUE(c->call(op_code::delete_, proto::delete_request{"/q/plain", -1}));
  const auto next = c->call(op_code::create, create("/q/n-", "", proto::create_mode::persistent_sequential));
  EXPECT_EQ(body<proto::create_response>(*next).path, "/q/n-0000000002");
}

TEST_F(sim_server_test, WatchesFireOnceAndBeforeTheReplyOfTheChange) {
  auto watcher = connect();
  auto writer = connect();
  ASSERT_TRUE(writer->call(op_code::create, create("/w")));
  ASSERT_TRUE(watcher->call(op_code::get_data, proto::get_data_request{"/w", true}));
  ASSERT_TRUE(watcher->call(op_code::get_children, proto::get_children_request{"/w", true}));
  const auto missing = watcher->call(op_code::exists, proto::exists_request{"/w/new", true});
  EXPECT_EQ(missing->reply.header.err, static_cast<int>(server_error::no_node));

  ASSERT_TRUE(writer->call(op_code::create, create("/w/new")));
  auto events = watcher->events();
  ASSERT_EQ(events.size(), 2U);
  EXPECT_EQ(events[0].type, proto::event_type::node_created);  // the exist watch on the missing node
  EXPECT_EQ(events[0].path, "/w/new");
  EXPECT_EQ(events[1].type, proto::event_type::node_children_changed);

  // Own change: the event comes before the reply.
  const auto own = watcher->call(op_code::set_data, proto::set_data_request{"/w", "1", -1});
  ASSERT_EQ(own->events.size(), 1U);
  EXPECT_EQ(own->events[0].type, proto::event_type::node_data_changed);
  ASSERT_TRUE(writer->call(op_code::set_data, proto::set_data_request{"/w", "2", -1}));
  EXPECT_TRUE(watcher->events().empty()) << "one-shot watches are used up";
  EXPECT_EQ(server_.watches().size(), 0U);
}

TEST_F(sim_server_test, DeleteTellsAConnectionOnceEvenWithDataAndChildWatches) {
  auto watcher = connect();
  auto writer = connect();
  ASSERT_TRUE(writer->call(op_code::create, create("/d")));
  ASSERT_TRUE(watcher->call(op_code::get_data, proto::get_data_request{"/d", true}));
  ASSERT_TRUE(watcher->call(op_code::get_children, proto::get_children_request{"/d", true}));
  ASSERT_TRUE(writer->call(op_code::delete_, proto::delete_request{"/d", -1}));
  const auto events = watcher->events();
  ASSERT_EQ(events.size(), 1U);
  EXPECT_EQ(events[0].type, proto::event_type::node_deleted);
  EXPECT_EQ(server_.watches().size(), 0U) << "the child watch on the deleted node is gone too";
}

TEST_F(sim_server_test, PersistentAndRecursiveWatchesStayAndRecursiveNeverHearsChildrenChanged) {
  auto watcher = connect();
  auto writer = connect();
  ASSERT_TRUE(writer->call(op_code::create, create("/p")));
  ASSERT_TRUE(watcher->call(op_code::add_watch, proto::add_watch_request{"/p", proto::add_watch_mode::persistent}));
  ASSERT_TRUE(writer->call(op_code::create, create("/r")));
  ASSERT_TRUE(
      watcher->call(op_code::add_watch, proto::add_watch_request{"/r", proto::add_watch_mode::persistent_recursive}));
  for (int i = 0; i < 2; ++i) ASSERT_TRUE(writer->call(op_code::set_data, proto::set_data_request{"/p", "", -1}));
  ASSERT_TRUE(writer->call(op_code::create, create("/p/c")));
  ASSERT_TRUE(writer->call(op_code::create, create("/r/c")));
  ASSERT_TRUE(writer->call(op_code::create, create("/r/c/d")));
  const auto events = watcher->events();
  std::vector<std::pair<proto::event_type, std::string>> seen;
  for (const auto& e : events) seen.emplace_back(e.type, e.path);
  const std::vector<std::pair<proto::event_type, std::string>> expected = {
      {proto::event_type::node_data_changed, "/p"},     {proto::event_type::node_data_changed, "/p"},
      {proto::event_type::node_children_changed, "/p"}, {proto::event_type::node_created, "/r/c"},
      {proto::event_type::node_created, "/r/c/d"},
  };
  EXPECT_EQ(seen, expected);
  EXPECT_EQ(watcher->call(op_code::remove_watches, proto::remove_watches_request{"/p", proto::watcher_type::data})
                ->reply.header.err,
            static_cast<int>(server_error::no_watcher))
      << "a persistent watch is removed only with type any";
  EXPECT_EQ(watcher->call(op_code::remove_watches, proto::remove_watches_request{"/p", proto::watcher_type::any})
                ->reply.header.err,
            0);
}

TEST_F(sim_server_test, ExpiryDeletesEphemeralsAndFiresTheirWatches) {
  auto owner = connect(400);
  auto watcher = connect(4000);
  const auto made = owner->call(op_code::create2, create("/e", "", proto::create_mode::ephemeral));
  EXPECT_EQ(body<proto::create2_response>(*made).stat.ephemeral_owner, owner.session.session_id);
  EXPECT_EQ(owner->call(op_code::create, create("/e/child"))->reply.header.err,
            static_cast<int>(server_error::no_children_for_ephemerals));
  ASSERT_TRUE(watcher->call(op_code::exists, proto::exists_request{"/e", true}));

  now_ = sim_time{399};
  server_.tick(now_);
  EXPECT_FALSE(owner.link->closed()) << "not before the session timeout";
  now_ = server_.next_deadline();
  server_.tick(now_);
  EXPECT_TRUE(owner.link->closed());
  EXPECT_EQ(server_.tree().find("/e"), nullptr);
  const auto events = watcher->events();
  ASSERT_EQ(events.size(), 1U);
  EXPECT_EQ(events[0].type, proto::event_type::node_deleted);
}

TEST_F(sim_server_test, PingsKeepTheSessionAlive) {
  auto c = connect(400);
  for (int i = 0; i < 10; ++i) {
    now_ += sim_time{300};
    server_.tick(now_);
    ASSERT_TRUE(c->call(op_code::ping, proto::no_body{}, proto::special_xid::ping)) << "round " << i;
  }
  EXPECT_FALSE(c.link->closed());
}

TEST_F(sim_server_test, FailedMultiRollsBackAndReportsEveryResultAsAnError) {
  auto c = connect();
  proto::multi_request multi;
  multi.ops.push_back(proto::create_op(create("/m1")));
  multi.ops.push_back(proto::set_data_op("/missing", "x"));
  multi.ops.push_back(proto::delete_op("/m1"));
  const auto r = c->call(op_code::multi, multi);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->reply.header.err, 0);
  const auto& results = body<proto::multi_response>(*r).results;
  ASSERT_EQ(results.size(), 3U);
  EXPECT_EQ(results[0].err, 0);
  EXPECT_EQ(results[1].err, static_cast<int>(server_error::no_node));
  EXPECT_EQ(results[2].err, static_cast<int>(server_error::runtime_inconsistency));
  for (const auto& result : results) EXPECT_EQ(result.type, op_code::error);
  EXPECT_EQ(server_.tree().find("/m1"), nullptr);

  proto::multi_request ok;
  ok.ops.push_back(proto::create_op(create("/m2")));
  ok.ops.push_back(proto::check_op("/m2", 0));
  const auto done = c->call(op_code::multi, ok);
  const auto& ok_results = body<proto::multi_response>(*done).results;
  ASSERT_EQ(ok_results.size(), 2U);
  EXPECT_EQ(ok_results[0].type, op_code::create) << "3.8.0 answers a create2 in a multi with a path-only result";
  EXPECT_EQ(ok_results[1].type, op_code::check);
}

TEST_F(sim_server_test, SetWatchesCatchesUpOnWhatChangedSinceTheClientsZxid) {
  auto a = connect();
  ASSERT_TRUE(a->call(op_code::create, create("/s1")));
  ASSERT_TRUE(a->call(op_code::create, create("/s2")));
  const std::int64_t seen = server_.last_zxid();
  ASSERT_TRUE(a->call(op_code::set_data, proto::set_data_request{"/s1", "changed", -1}));
  ASSERT_TRUE(a->call(op_code::create, create("/s3")));

  auto b = connect();
  const auto r =
      b->call(op_code::set_watches, proto::set_watches{seen, {"/s1", "/s2", "/gone"}, {"/s3", "/nothing"}, {"/s2"}});
  ASSERT_TRUE(r);
  std::vector<std::pair<proto::event_type, std::string>> seen_events;
  for (const auto& e : r->events) seen_events.emplace_back(e.type, e.path);
  const std::vector<std::pair<proto::event_type, std::string>> expected = {
      {proto::event_type::node_data_changed, "/s1"},
      {proto::event_type::node_deleted, "/gone"},
      {proto::event_type::node_created, "/s3"},
  };
  EXPECT_EQ(seen_events, expected);
  EXPECT_EQ(server_.watches().size(), 3U);  // data /s2, exist /nothing, child /s2
}

TEST_F(sim_server_test, EmptyContainersThatHadChildrenAreReaped) {
  auto c = connect();
  ASSERT_TRUE(c->call(op_code::create_container, create("/box")));
  ASSERT_TRUE(c->call(op_code::create2, create("/fake", "", proto::create_mode::container)));
  ASSERT_TRUE(c->call(op_code::create, create("/box/item")));
  ASSERT_TRUE(c->call(op_code::create, create("/fake/item")));
  ASSERT_TRUE(c->call(op_code::delete_, proto::delete_request{"/box/item", -1}));
  ASSERT_TRUE(c->call(op_code::delete_, proto::delete_request{"/fake/item", -1}));
  now_ = sim_time{1000};
  server_.tick(now_);
  EXPECT_EQ(server_.tree().find("/box"), nullptr);
  EXPECT_NE(server_.tree().find("/fake"), nullptr) << "the container flag without the opcode makes a plain node";
}

TEST_F(sim_server_test, CloseSessionRepliesThenClosesAndDeletesEphemerals) {
  auto c = connect();
  ASSERT_TRUE(c->call(op_code::create, create("/bye", "", proto::create_mode::ephemeral)));
  const auto r = c->call(op_code::close_session, proto::no_body{});
  ASSERT_TRUE(r);
  EXPECT_EQ(r->reply.header.err, 0);
  EXPECT_TRUE(c.link->closed());
  EXPECT_EQ(server_.tree().find("/bye"), nullptr);
  EXPECT_TRUE(server_.sessions().empty());
}

TEST_F(sim_server_test, UnknownScheme_AuthFailsAndCloses) {
  auto c = connect();
  const auto ok = c->call(op_code::auth, proto::auth_packet{0, "digest", "bob:secret"}, proto::special_xid::auth);
  EXPECT_EQ(ok->reply.header.err, 0);
  const auto who = c->call(op_code::who_am_i, proto::no_body{});
  const auto& info = body<proto::who_am_i_response>(*who).client_info;
  EXPECT_TRUE(std::any_of(info.begin(), info.end(), [](const auto& i) { return i.user == "bob"; }));
  const auto bad = c->call(op_code::auth, proto::auth_packet{0, "nonsense", "x"}, proto::special_xid::auth);
  EXPECT_EQ(bad->reply.header.err, static_cast<int>(server_error::auth_failed));
  EXPECT_TRUE(c.link->closed());
}

}  // namespace
}  // namespace zkwire::sim
