// The watch registry on its own: routing tables, removal, batches.

#include "watch_registry.hpp"

#include <gtest/gtest.h>

namespace zkwire::proto::session_detail {
namespace {

TEST(WatchRegistry, DuplicateRegistrationIsKeptOnce) {
  watch_registry r;
  r.add(watch_kind::data, "/a", 1);
  r.add(watch_kind::data, "/a", 1);
  EXPECT_EQ(r.watcher_count(watch_kind::data, "/a"), 1U);
  std::vector<watcher_id> out;
  r.add(watch_kind::exist, "/a", 1);
  r.route(event_type::node_created, "/a", out);
  EXPECT_EQ(out, std::vector<watcher_id>{1}) << "one delivery per watcher and event";
  EXPECT_TRUE(r.empty());
}

TEST(WatchRegistry, RegisteredUntilTheLastRegistrationIsGone) {
  watch_registry r;
  r.add(watch_kind::data, "/a", 1);
  r.add(watch_kind::child, "/a", 1);
  r.add(watch_kind::persistent, "/p", 2);
  r.add(watch_kind::exist, "/x", 3);
  std::vector<watcher_id> out;
  r.route(event_type::node_data_changed, "/a", out);
  EXPECT_TRUE(r.registered(1)) << "its child watch is left";
  r.route(event_type::node_children_changed, "/a", out);
  EXPECT_FALSE(r.registered(1));
  r.route(event_type::node_data_changed, "/p", out);
  EXPECT_TRUE(r.registered(2)) << "persistent watches stay";
  std::vector<std::pair<watcher_id, event_type>> removed;
  r.remove("/p", watcher_type::any, removed);
  EXPECT_FALSE(r.registered(2));
  r.forget(3);
  EXPECT_FALSE(r.registered(3));
  EXPECT_TRUE(r.empty());
  r.add(watch_kind::data, "/b", 4);
  r.take_all(out);
  EXPECT_FALSE(r.registered(4));
}

TEST(WatchRegistry, RecursiveOnRootSeesEverythingButChildren) {
  watch_registry r;
  r.add(watch_kind::persistent_recursive, "/", 9);
  std::vector<watcher_id> out;
  r.route(event_type::node_deleted, "/a/b/c", out);
  EXPECT_EQ(out, std::vector<watcher_id>{9});
  out.clear();
  r.route(event_type::node_children_changed, "/a", out);
  EXPECT_TRUE(out.empty());
  out.clear();
  r.route(event_type::none, "/a", out);
  EXPECT_TRUE(out.empty());
  EXPECT_FALSE(r.empty());
}

TEST(WatchRegistry, BatchesKeepOrderAndAnOverlongPathGetsItsOwn) {
  watch_registry r;
  r.add(watch_kind::child, "/c", 1);
  r.add(watch_kind::data, "/d", 1);
  r.add(watch_kind::exist, "/" + std::string(50, 'e'), 1);
  r.add(watch_kind::persistent_recursive, "/r", 1);
  const auto batches = r.set_watches_batches("/root", 42, 20);
  ASSERT_EQ(batches.size(), 3U);
  const auto& first = std::get<set_watches>(batches[0]);
  EXPECT_EQ(first.data_watches, std::vector<std::string>{"/root/d"});
  EXPECT_EQ(first.relative_zxid, 42);
  EXPECT_EQ(std::get<set_watches>(batches[1]).exist_watches.size(), 1U);
  const auto& last = std::get<set_watches2>(batches[2]);
  EXPECT_EQ(last.child_watches, std::vector<std::string>{"/root/c"});
  EXPECT_EQ(last.persistent_recursive_watches, std::vector<std::string>{"/root/r"});
  EXPECT_TRUE(watch_registry{}.set_watches_batches("", 1, 10).empty());
}

TEST(WatchRegistry, TakeAllListsEachWatcherOnceAndClears) {
  watch_registry r;
  r.add(watch_kind::data, "/a", 1);
  r.add(watch_kind::child, "/b", 1);
  r.add(watch_kind::persistent, "/c", 2);
  std::vector<watcher_id> out;
  r.take_all(out);
  EXPECT_EQ(out, (std::vector<watcher_id>{1, 2}));
  EXPECT_TRUE(r.empty());
}

}  // namespace
}  // namespace zkwire::proto::session_detail
