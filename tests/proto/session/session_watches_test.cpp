// Watches: registration on success, fan-out, routing by event type, persistent and recursive watches, removal
// events, SetWatches re-arming and batching, chroot.

#include <gtest/gtest.h>

#include "harness.hpp"

namespace zkwire::proto::test::watches {
namespace {

session_config config(std::string chroot = {}) {
  session_config c;
  c.host_count = 2;
  c.shuffle_hosts = false;
  c.seed = 42;
  c.chroot = std::move(chroot);
  return c;
}

std::vector<watcher_id> watchers_of(const std::vector<watch_delivery>& ds) {
  std::vector<watcher_id> out;
  for (const auto& d : ds) out.push_back(d.watcher);
  return out;
}

TEST(SessionWatches, OneEventReachesEveryWatcherOnce) {
  harness h(config());
  h.establish();
  h.submit(op_code::get_data, get_data_request{"/a", true}, 1);
  h.submit(op_code::get_data, get_data_request{"/a", true}, 2);
  h.feed(reply_frame(1, 5, 0, get_data_response{}) + reply_frame(2, 5, 0, get_data_response{}));
  h.completions();
  h.feed(notification_frame(event_type::node_data_changed, "/a"));
  const auto ds = h.watch_deliveries();
  EXPECT_EQ(watchers_of(ds), (std::vector<watcher_id>{1, 2}));
  EXPECT_EQ(ds[0].event.path, "/a");
  EXPECT_EQ(ds[0].event.type, event_type::node_data_changed);
  h.feed(notification_frame(event_type::node_data_changed, "/a"));
  EXPECT_TRUE(h.watch_deliveries().empty()) << "one-shot watchers fire once";
}

TEST(SessionWatches, RegisteredOnlyOnSuccess) {
  harness h(config());
  h.establish();
  h.submit(op_code::get_data, get_data_request{"/a", true}, 1);
  h.feed(error_reply(1, 5, server_error::no_node));
  h.feed(notification_frame(event_type::node_created, "/a"));
  EXPECT_TRUE(h.watch_deliveries().empty());
}

TEST(SessionWatches, EventBeforeReplyIsDeliveredBeforeTheCompletion) {
  harness h(config());
  h.establish();
  h.submit(op_code::get_data, get_data_request{"/a", true}, 1);
  h.feed(reply_frame(1, 5, 0, get_data_response{}));
  h.got.clear();
  h.submit(op_code::set_data, set_data_request{"/a", std::string("v"), -1});
  h.feed(notification_frame(event_type::node_data_changed, "/a") + reply_frame(2, 6, 0, set_data_response{}));
  ASSERT_EQ(h.got.size(), 2U);
  EXPECT_TRUE(std::holds_alternative<watch_delivery>(h.got[0]));
  EXPECT_TRUE(std::holds_alternative<completion>(h.got[1]));
}

TEST(SessionWatches, ExistsOnNoNodeRegistersAnExistWatch) {
  harness h(config());
  h.establish();
  h.submit(op_code::exists, exists_request{"/x", true}, 5);
  h.feed(error_reply(1, 5, server_error::no_node));
  ASSERT_EQ(h.completions()[0].error, server_error::no_node);
  h.feed(notification_frame(event_type::node_children_changed, "/x"));
  EXPECT_TRUE(h.watch_deliveries().empty()) << "an exist watch does not see child changes";
  h.feed(notification_frame(event_type::node_created, "/x"));
  EXPECT_EQ(watchers_of(h.watch_deliveries()), std::vector<watcher_id>{5});
}

// The completion says whether the reply registered the request's watcher, so that a driver keeps the user's
// callback exactly as long as the engine keeps the watcher (the engine is the only owner of the rule).
TEST(SessionWatches, CompletionSaysWhetherTheReplyRegisteredTheWatcher) {
  harness h(config());
  h.establish();
  h.submit(op_code::get_data, get_data_request{"/a", true}, 1);
  h.submit(op_code::get_data, get_data_request{"/b", true}, 2);
  h.submit(op_code::exists, exists_request{"/c", true}, 3);
  h.submit(op_code::exists, exists_request{"/d", true}, 4);
  h.submit(op_code::get_data, get_data_request{"/e", false}, 0);
  h.submit(op_code::add_watch, add_watch_request{"/f", add_watch_mode::persistent}, 6);
  h.feed(reply_frame(1, 5, 0, get_data_response{}) + error_reply(2, 5, server_error::no_node) +
         error_reply(3, 5, server_error::no_node) + error_reply(4, 5, server_error::no_auth) +
         reply_frame(5, 5, 0, get_data_response{}) + reply_frame(6, 5, 0, error_response{0}));
  const auto cs = h.completions();
  ASSERT_EQ(cs.size(), 6U);
  EXPECT_TRUE(cs[0].watch_registered) << "getData that succeeded";
  EXPECT_FALSE(cs[1].watch_registered) << "getData on a missing node";
  EXPECT_TRUE(cs[2].watch_registered) << "exists on a missing node still watches for its creation";
  EXPECT_FALSE(cs[3].watch_registered) << "exists failing otherwise";
  EXPECT_FALSE(cs[4].watch_registered) << "no watcher given";
  EXPECT_TRUE(cs[5].watch_registered) << "addWatch";

  // A request that never got its reply registered nothing either.
  h.submit(op_code::get_data, get_data_request{"/g", true}, 7);
  h.drop();
  const auto lost = h.completions();
  ASSERT_EQ(lost.size(), 1U);
  EXPECT_EQ(lost[0].error, client_error::connection_loss);
  EXPECT_FALSE(lost[0].watch_registered);
}

// watch_delivery::final marks a watcher's last delivery: one-shot events, removals and the session's end, but not
// the events of a persistent watcher.
TEST(SessionWatches, FinalMarksTheLastDeliveryOfAWatcher) {
  harness h(config());
  h.establish();
  h.submit(op_code::get_data, get_data_request{"/a", true}, 1);
  h.submit(op_code::add_watch, add_watch_request{"/a", add_watch_mode::persistent}, 2);
  h.submit(op_code::add_watch, add_watch_request{"/", add_watch_mode::persistent_recursive}, 3);
  h.feed(reply_frame(1, 5, 0, get_data_response{}) + reply_frame(2, 5, 0, error_response{0}) +
         reply_frame(3, 5, 0, error_response{0}));
  ASSERT_EQ(h.completions().size(), 3U);
  h.feed(notification_frame(event_type::node_data_changed, "/a"));
  auto ds = h.watch_deliveries();
  ASSERT_EQ(watchers_of(ds), (std::vector<watcher_id>{1, 2, 3}));
  EXPECT_TRUE(ds[0].final) << "the one-shot data watch fired";
  EXPECT_FALSE(ds[1].final);
  EXPECT_FALSE(ds[2].final);

  h.submit(op_code::remove_watches, remove_watches_request{"/a", watcher_type::any});
  h.feed(reply_frame(4, 6));
  ds = h.watch_deliveries();
  ASSERT_EQ(watchers_of(ds), std::vector<watcher_id>{2});
  EXPECT_EQ(ds[0].event.type, event_type::persistent_watch_removed);
  EXPECT_TRUE(ds[0].final);

  h.s.close(h.now);
  h.pump();
  h.feed(reply_frame(5, 7));
  ds = h.watch_deliveries();
  ASSERT_EQ(watchers_of(ds), std::vector<watcher_id>{3});
  EXPECT_TRUE(ds[0].final);
  EXPECT_EQ(ds[0].error, client_error::closed);
}

TEST(SessionWatches, RoutingByEventType) {
  harness h(config());
  h.establish();
  h.submit(op_code::get_data, get_data_request{"/n", true}, 1);
  h.submit(op_code::get_children, get_children_request{"/n", true}, 2);
  h.submit(op_code::get_children2, get_children2_request{"/m", true}, 3);
  h.submit(op_code::get_data, get_data_request{"/m", true}, 4);
  h.feed(reply_frame(1, 5, 0, get_data_response{}) + reply_frame(2, 5, 0, get_children_response{}) +
         reply_frame(3, 5, 0, get_children2_response{}) + reply_frame(4, 5, 0, get_data_response{}));
  h.feed(notification_frame(event_type::node_children_changed, "/n"));
  EXPECT_EQ(watchers_of(h.watch_deliveries()), std::vector<watcher_id>{2});
  h.feed(notification_frame(event_type::node_data_changed, "/n"));
  EXPECT_EQ(watchers_of(h.watch_deliveries()), std::vector<watcher_id>{1});
  h.feed(notification_frame(event_type::node_deleted, "/m"));
  EXPECT_EQ(watchers_of(h.watch_deliveries()), (std::vector<watcher_id>{3, 4})) << "child table first (C order)";
}

TEST(SessionWatches, PersistentAndRecursiveRouting) {
  harness h(config());
  h.establish();
  h.submit(op_code::add_watch, add_watch_request{"/p", add_watch_mode::persistent}, 1);
  h.submit(op_code::add_watch, add_watch_request{"/r", add_watch_mode::persistent_recursive}, 2);
  h.submit(op_code::add_watch, add_watch_request{"/", add_watch_mode::persistent_recursive}, 3);
  h.feed(reply_frame(1, 5, 0, error_response{0}) + reply_frame(2, 5, 0, error_response{0}) +
         reply_frame(3, 5, 0, error_response{0}));
  ASSERT_EQ(h.completions().size(), 3U);
  for (int i = 0; i < 2; ++i) {
    h.feed(notification_frame(event_type::node_data_changed, "/p"));
    EXPECT_EQ(watchers_of(h.watch_deliveries()), (std::vector<watcher_id>{1, 3})) << "persistent fires again";
  }
  h.feed(notification_frame(event_type::node_children_changed, "/p"));
  EXPECT_EQ(watchers_of(h.watch_deliveries()), std::vector<watcher_id>{1});
  h.feed(notification_frame(event_type::node_children_changed, "/r/a"));
  EXPECT_TRUE(h.watch_deliveries().empty()) << "recursive watches never see NodeChildrenChanged";
  h.feed(notification_frame(event_type::node_created, "/r/a/b"));
  EXPECT_EQ(watchers_of(h.watch_deliveries()), (std::vector<watcher_id>{2, 3}));
  h.feed(notification_frame(event_type::node_deleted, "/p/child"));
  EXPECT_EQ(watchers_of(h.watch_deliveries()), std::vector<watcher_id>{3}) << "persistent is the path only";
  h.feed(notification_frame(event_type::node_deleted, "/rx"));
  EXPECT_EQ(watchers_of(h.watch_deliveries()), std::vector<watcher_id>{3}) << "/rx is not under /r";
}

TEST(SessionWatches, RemoveWatchesDeliversRemovalEvents) {
  harness h(config());
  h.establish();
  h.submit(op_code::get_data, get_data_request{"/a", true}, 1);
  h.submit(op_code::get_children, get_children_request{"/a", true}, 2);
  h.submit(op_code::add_watch, add_watch_request{"/a", add_watch_mode::persistent}, 3);
  h.feed(reply_frame(1, 5, 0, get_data_response{}) + reply_frame(2, 5, 0, get_children_response{}) +
         reply_frame(3, 5, 0, error_response{0}));
  h.completions();
  h.submit(op_code::remove_watches, remove_watches_request{"/a", watcher_type::children});
  h.feed(reply_frame(4, 5));
  auto ds = h.watch_deliveries();
  ASSERT_EQ(ds.size(), 1U);
  EXPECT_EQ(ds[0].watcher, 2U);
  EXPECT_EQ(ds[0].event.type, event_type::child_watch_removed);
  EXPECT_EQ(ds[0].event.path, "/a");
  h.submit(op_code::remove_watches, remove_watches_request{"/a", watcher_type::any});
  h.feed(error_reply(5, 5, server_error::no_watcher));
  EXPECT_TRUE(h.watch_deliveries().empty()) << "a failed removeWatches removes nothing";
  h.submit(op_code::remove_watches, remove_watches_request{"/a", watcher_type::any});
  h.feed(reply_frame(6, 5));
  ds = h.watch_deliveries();
  ASSERT_EQ(ds.size(), 2U);
  EXPECT_EQ(ds[0].watcher, 1U);
  EXPECT_EQ(ds[0].event.type, event_type::data_watch_removed);
  EXPECT_EQ(ds[1].watcher, 3U);
  EXPECT_EQ(ds[1].event.type, event_type::persistent_watch_removed);
  h.feed(notification_frame(event_type::node_deleted, "/a"));
  EXPECT_TRUE(h.watch_deliveries().empty());
}

TEST(SessionWatches, ForgetWatcherIsLocal) {
  harness h(config());
  h.establish();
  h.submit(op_code::get_data, get_data_request{"/a", true}, 1);
  h.submit(op_code::get_data, get_data_request{"/a", true}, 2);
  h.feed(reply_frame(1, 5, 0, get_data_response{}) + reply_frame(2, 5, 0, get_data_response{}));
  h.take_wire();
  h.s.forget_watcher(1);
  h.pump();
  EXPECT_TRUE(h.wire.empty());
  h.feed(notification_frame(event_type::node_deleted, "/a"));
  EXPECT_EQ(watchers_of(h.watch_deliveries()), std::vector<watcher_id>{2});
}

TEST(SessionWatches, SetWatchesRearmsWithCatchUpEventsBeforeItsReply) {
  harness h(config());
  h.establish();
  h.submit(op_code::get_data, get_data_request{"/d", true}, 1);
  h.submit(op_code::exists, exists_request{"/e", true}, 2);
  h.submit(op_code::get_children, get_children_request{"/c", true}, 3);
  h.feed(reply_frame(1, 5, 0, get_data_response{}) + error_reply(2, 6, server_error::no_node) +
         reply_frame(3, 9, 0, get_children_response{}));
  h.completions();
  h.drop();
  const auto queued = h.submit(op_code::exists, exists_request{"/z", false});
  h.connect_ok();
  h.take_wire();
  h.feed(connect_response_frame(6000));
  EXPECT_EQ(h.take_wire(), request_frame(4, op_code::set_watches, set_watches{9, {"/d"}, {"/e"}, {"/c"}}) +
                               request_frame(5, op_code::exists, exists_request{"/z", false}));
  h.got.clear();
  h.feed(notification_frame(event_type::node_created, "/e") + reply_frame(4, 10) +
         reply_frame(5, 10, 0, exists_response{}));
  ASSERT_EQ(h.got.size(), 2U);
  EXPECT_EQ(std::get<watch_delivery>(h.got[0]).watcher, 2U);
  EXPECT_EQ(std::get<completion>(h.got[1]).id, queued);
}

TEST(SessionWatches, SetWatchesTooLargeToEncodeEndsItsWatchesWithTheError) {
  auto c = config();
  const std::string long_path = "/" + std::string(99, 'x');
  c.max_request_size = long_path.size() + 20;  // its getData (13 + n bytes) fits, a SetWatches (32 + n) does not
  c.set_watches_batch_bytes = 1;               // each path in a batch of its own
  harness h(c);
  h.establish();
  h.submit(op_code::get_data, get_data_request{long_path, true}, 1);
  h.submit(op_code::get_data, get_data_request{"/short", true}, 2);
  h.feed(reply_frame(1, 5, 0, get_data_response{}) + reply_frame(2, 6, 0, get_data_response{}));
  EXPECT_EQ(h.completions().size(), 2U);
  h.drop();
  h.connect_ok();
  h.take_wire();
  h.feed(connect_response_frame(6000));
  EXPECT_EQ(h.take_wire(), request_frame(3, op_code::set_watches, set_watches{6, {"/short"}, {}, {}}));
  const auto ended = h.watch_deliveries();
  ASSERT_EQ(ended.size(), 1U);
  EXPECT_EQ(ended[0].watcher, 1U);
  EXPECT_EQ(ended[0].error, client_error::request_too_large);
  EXPECT_EQ(ended[0].event.type, event_type::none);
  EXPECT_EQ(ended[0].event.path, long_path);
  h.feed(reply_frame(3, 7));
  h.feed(notification_frame(event_type::node_data_changed, long_path));
  EXPECT_TRUE(h.watch_deliveries().empty()) << "the watch that could not be re-armed is gone";
  h.feed(notification_frame(event_type::node_data_changed, "/short"));
  EXPECT_EQ(watchers_of(h.watch_deliveries()), std::vector<watcher_id>{2}) << "the re-armed one still fires";
}

TEST(SessionRequests, CloseSessionThatCannotBeEncodedEndsTheSessionAtOnce) {
  auto c = config();
  c.max_request_size = 4;  // below closeSession's 8 bytes; everything else fails too
  harness h(c);
  h.establish();
  h.s.close(h.now);
  h.pump();
  EXPECT_TRUE(h.wire.empty());
  EXPECT_EQ(h.s.state(), session_state::closed);
  EXPECT_EQ(h.s.next_wakeup(), time_point::max());
  EXPECT_EQ(h.closes, 1);
}

TEST(SessionWatches, SetWatchesBatchesUnderTheLimitAndSetWatches2OnlyWithPersistent) {
  auto c = config();
  c.set_watches_batch_bytes = 100;
  harness h(c);
  h.establish();
  std::int32_t xid = 1;
  std::string replies;
  for (int i = 0; i < 7; ++i) {
    h.submit(op_code::get_data, get_data_request{"/" + std::string(30, static_cast<char>('a' + i)), true}, 1);
    replies += reply_frame(xid++, 5, 0, get_data_response{});
  }
  h.submit(op_code::add_watch, add_watch_request{"/p", add_watch_mode::persistent}, 2);
  replies += reply_frame(xid++, 5, 0, error_response{0});
  h.feed(replies);
  h.completions();
  h.drop();
  h.connect_ok();
  h.take_wire();
  h.feed(connect_response_frame(6000));
  frame_reader r;
  r.feed(h.take_wire());
  std::vector<request> frames;
  while (auto p = r.next()) {
    request req;
    ASSERT_FALSE(decode_request(*p, req));
    frames.push_back(req);
  }
  // 31-byte paths, 100 bytes per batch: 3, 3, then the last one with the persistent one (a SetWatches2).
  ASSERT_EQ(frames.size(), 3U);
  EXPECT_EQ(frames[0].header.type, op_code::set_watches);
  EXPECT_EQ(std::get<set_watches>(frames[0].body).data_watches.size(), 3U);
  EXPECT_EQ(frames[1].header.type, op_code::set_watches);
  EXPECT_EQ(frames[2].header.type, op_code::set_watches2);
  EXPECT_EQ(std::get<set_watches2>(frames[2].body).data_watches.size(), 1U);
  EXPECT_EQ(std::get<set_watches2>(frames[2].body).persistent_watches, std::vector<std::string>{"/p"});
  EXPECT_EQ(std::get<set_watches2>(frames[2].body).relative_zxid, 5);
  for (const auto& f : frames) EXPECT_GT(f.header.xid, 0) << "normal xids, like the Java client";
  h.feed(reply_frame(frames[0].header.xid, 6) + reply_frame(frames[1].header.xid, 6) +
         reply_frame(frames[2].header.xid, 6));
  EXPECT_TRUE(h.completions().empty()) << "SetWatches replies are consumed internally";
  EXPECT_EQ(h.s.state(), session_state::connected);
}

TEST(SessionWatches, ChrootOnRequestsResultsEventsAndSetWatches) {
  harness h(config("/app"));
  h.establish();
  h.submit(op_code::create2,
           create_request{"/x", std::nullopt, {acl{31, {"world", "anyone"}}}, create_mode::persistent});
  h.submit(op_code::get_data, get_data_request{"/", true}, 1);
  h.submit(op_code::multi,
           multi_request{
               {delete_op("/y"), create_op(create_request{
                                     "/z", std::nullopt, {acl{31, {"world", "anyone"}}}, create_mode::persistent})}});
  h.submit(op_code::get_ephemerals, get_ephemerals_request{"/e"});
  EXPECT_EQ(
      h.take_wire(),
      request_frame(1, op_code::create2,
                    create_request{"/app/x", std::nullopt, {acl{31, {"world", "anyone"}}}, create_mode::persistent}) +
          request_frame(2, op_code::get_data, get_data_request{"/app", true}) +
          request_frame(
              3, op_code::multi,
              multi_request{{delete_op("/app/y"),
                             create_op(create_request{
                                 "/app/z", std::nullopt, {acl{31, {"world", "anyone"}}}, create_mode::persistent})}}) +
          request_frame(4, op_code::get_ephemerals, get_ephemerals_request{"/e"}));
  multi_response mr;
  mr.results.push_back(multi_result{op_code::delete_, 0, no_body{}});
  mr.results.push_back(multi_result{op_code::create, 0, create_response{"/app/z"}});
  h.feed(reply_frame(1, 5, 0, create2_response{"/app/x", {}}) + reply_frame(2, 5, 0, get_data_response{}) +
         reply_frame(3, 6, 0, mr) + reply_frame(4, 6, 0, get_ephemerals_response{{"/app/e1"}}));
  const auto done = h.completions();
  ASSERT_EQ(done.size(), 4U);
  EXPECT_EQ(std::get<create2_response>(done[0].result.body).path, "/x");
  EXPECT_EQ(std::get<create_response>(std::get<multi_response>(done[2].result.body).results[1].body).path, "/z");
  EXPECT_EQ(std::get<get_ephemerals_response>(done[3].result.body).ephemerals, std::vector<std::string>{"/app/e1"});
  h.drop();
  h.connect_ok();
  h.take_wire();
  h.feed(connect_response_frame(6000));
  EXPECT_EQ(h.take_wire(), request_frame(5, op_code::set_watches, set_watches{6, {"/app"}, {}, {}}));
  h.feed(notification_frame(event_type::node_data_changed, "/app"));
  const auto ds = h.watch_deliveries();
  ASSERT_EQ(ds.size(), 1U);
  EXPECT_EQ(ds[0].event.path, "/");
}

}  // namespace
}  // namespace zkwire::proto::test::watches
