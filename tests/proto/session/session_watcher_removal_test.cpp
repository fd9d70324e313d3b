// Watchers shared by several requests (one id, as a C client's function and context) and the removal of one
// watcher: checkWatches that takes that watcher alone once it succeeds, the local removal of one watcher, and the
// C client's order of the watchers one event reaches (docs/protocol.md#watches).

#include <gtest/gtest.h>

#include "harness.hpp"

namespace zkwire::proto::test::watcher_removal {
namespace {

session_config config() {
  session_config c;
  c.host_count = 1;
  c.shuffle_hosts = false;
  c.seed = 7;
  return c;
}

std::vector<watcher_id> watchers_of(const std::vector<watch_delivery>& ds) {
  std::vector<watcher_id> out;
  for (const auto& d : ds) out.push_back(d.watcher);
  return out;
}

// Registers watcher `w` with getData (data table) or exists on a missing node (exist table) or getChildren2.
void arm(harness& h, std::int32_t xid, watch_kind kind, const std::string& path, watcher_id w) {
  if (kind == watch_kind::data) {
    h.submit(op_code::get_data, get_data_request{path, true}, w);
    h.feed(reply_frame(xid, 5, 0, get_data_response{}));
  } else if (kind == watch_kind::exist) {
    h.submit(op_code::exists, exists_request{path, true}, w);
    h.feed(error_reply(xid, 5, server_error::no_node));
  } else {
    h.submit(op_code::get_children2, get_children2_request{path, true}, w);
    h.feed(reply_frame(xid, 5, 0, get_children2_response{}));
  }
  ASSERT_TRUE(h.completions().at(0).watch_registered);
}

TEST(SessionWatcherRemoval, OneEventReachesASharedWatcherOnceInTheCClientsOrder) {
  harness h(config());
  h.establish();
  // As the C client's tables hold them: data /a: 1, 2, 4 (4's second registration kept once); child /a: 3, 1, 2.
  arm(h, 1, watch_kind::data, "/a", 1);
  arm(h, 2, watch_kind::data, "/a", 2);
  arm(h, 3, watch_kind::child, "/a", 3);
  arm(h, 4, watch_kind::data, "/a", 4);
  arm(h, 5, watch_kind::child, "/a", 1);
  arm(h, 6, watch_kind::child, "/a", 2);
  arm(h, 7, watch_kind::data, "/a", 4);
  h.feed(notification_frame(event_type::node_deleted, "/a"));
  const auto ds = h.watch_deliveries();
  // The child table's watchers that no earlier table holds, then the data table's, each in registration order.
  EXPECT_EQ(watchers_of(ds), (std::vector<watcher_id>{3, 1, 2, 4}));
  for (const auto& d : ds) EXPECT_TRUE(d.final) << "watcher " << d.watcher;
  // Created/changed: the exist table's watchers before the data table's.
  arm(h, 8, watch_kind::data, "/b", 5);
  arm(h, 9, watch_kind::exist, "/b", 6);
  arm(h, 10, watch_kind::exist, "/b", 5);
  h.feed(notification_frame(event_type::node_data_changed, "/b"));
  EXPECT_EQ(watchers_of(h.watch_deliveries()), (std::vector<watcher_id>{6, 5}));
}

TEST(SessionWatcherRemoval, CheckWatchesRemovesThatWatcherAloneOnceItSucceeds) {
  harness h(config());
  h.establish();
  arm(h, 1, watch_kind::data, "/a", 1);
  arm(h, 2, watch_kind::data, "/a", 2);
  arm(h, 3, watch_kind::child, "/a", 2);
  EXPECT_TRUE(h.s.watching("/a", watcher_type::data, 2));
  h.take_wire();
  h.got.clear();
  h.submit(op_code::check_watches, check_watches_request{"/a", watcher_type::data}, 2);
  EXPECT_EQ(h.take_wire(), request_frame(4, op_code::check_watches, check_watches_request{"/a", watcher_type::data}))
      << "the server's watch is checked, not removed: it serves watcher 1 too";
  h.feed(reply_frame(4, 5));
  ASSERT_EQ(h.got.size(), 2U) << "the removal event, then the completion";
  const auto& removed = std::get<watch_delivery>(h.got[0]);
  EXPECT_EQ(removed.watcher, 2U);
  EXPECT_EQ(removed.event.type, event_type::data_watch_removed);
  EXPECT_FALSE(removed.final) << "its child watch is left";
  EXPECT_FALSE(std::get<completion>(h.got[1]).error);
  h.got.clear();
  EXPECT_FALSE(h.s.watching("/a", watcher_type::data, 2));
  EXPECT_TRUE(h.s.watching("/a", watcher_type::any, 2));
  h.feed(notification_frame(event_type::node_data_changed, "/a"));
  EXPECT_EQ(watchers_of(h.watch_deliveries()), std::vector<watcher_id>{1}) << "the other watcher keeps its watch";
}

TEST(SessionWatcherRemoval, CheckWatchesForAWatcherWithoutThatWatchFailsUnsent) {
  harness h(config());
  h.establish();
  arm(h, 1, watch_kind::data, "/a", 1);
  h.take_wire();
  h.submit(op_code::check_watches, check_watches_request{"/a", watcher_type::children}, 1);
  h.submit(op_code::check_watches, check_watches_request{"/a", watcher_type::data}, 9);
  EXPECT_TRUE(h.take_wire().empty());
  const auto done = h.completions();
  ASSERT_EQ(done.size(), 2U);
  for (const auto& c : done) EXPECT_EQ(c.error, server_error::no_watcher);
  // A failed checkWatches (the watch fired meanwhile) removes nothing; without a watcher it only asks.
  h.submit(op_code::check_watches, check_watches_request{"/a", watcher_type::data}, 1);
  h.feed(error_reply(2, 5, server_error::no_watcher));
  h.submit(op_code::check_watches, check_watches_request{"/a", watcher_type::data});
  h.feed(reply_frame(3, 5));
  EXPECT_TRUE(h.watch_deliveries().empty());
  EXPECT_TRUE(h.s.watcher_registered(1));
}

TEST(SessionWatcherRemoval, LocalRemovalOfOneWatcher) {
  harness h(config());
  h.establish();
  arm(h, 1, watch_kind::child, "/a", 1);
  arm(h, 2, watch_kind::child, "/a", 2);
  h.take_wire();
  EXPECT_FALSE(h.s.remove_local_watches("/a", watcher_type::children, 3));
  EXPECT_TRUE(h.s.remove_local_watches("/a", watcher_type::children, 2));
  h.pump();
  EXPECT_TRUE(h.wire.empty()) << "no request";
  const auto ds = h.watch_deliveries();
  ASSERT_EQ(ds.size(), 1U);
  EXPECT_EQ(ds[0].watcher, 2U);
  EXPECT_EQ(ds[0].event.type, event_type::child_watch_removed);
  EXPECT_TRUE(ds[0].final);
  EXPECT_FALSE(h.s.watcher_registered(2));
  h.feed(notification_frame(event_type::node_children_changed, "/a"));
  EXPECT_EQ(watchers_of(h.watch_deliveries()), std::vector<watcher_id>{1});
}

}  // namespace
}  // namespace zkwire::proto::test::watcher_removal
