// The model's ensemble mode (ensemble.hpp: a leader and two followers applying the log after a lag) against a real
// 3-member ZooKeeper 3.8 ensemble. A follower answers from its own applied state, so a read there may be stale
// until a sync; the real followers of a loopback ensemble rarely lag, the model's lag up to 200 ms. Steps whose
// outcome depends on a follower's lag are run loosely (target::loosely): each side is checked against what
// ZooKeeper allows there, and the rest of the transcript must be equal.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>

#include "differential_fixture.hpp"
#include "text.hpp"

namespace zkwire::sim::differential {
namespace {

using proto::op_code;

class differential_ensemble_test : public differential_base<zkwire::test::ensemble_test> {};

std::size_t count_containing(const std::vector<std::string>& lines, const std::string& what) {
  return static_cast<std::size_t>(std::count_if(
      lines.begin(), lines.end(), [&](const std::string& l) { return l.find(what) != std::string::npos; }));
}

// The index of the first line containing `what`, or lines.size().
std::size_t first_containing(const std::vector<std::string>& lines, const std::string& what) {
  return static_cast<std::size_t>(
      std::find_if(lines.begin(), lines.end(),
                   [&](const std::string& l) { return l.find(what) != std::string::npos; }) -
      lines.begin());
}

// c0 on the leader, c1 and c2 on the two followers. c1 writes through its follower and reads its own write; c2,
// watching the node, reads at the other follower before and after a sync. What ZooKeeper allows c2 before its
// sync: the old value or the new one, and the watch event announcing the change no later than the new value (a
// client never sees a change before its watch event); after the sync: the new value, the event delivered. Then a
// node created at one follower is read at the other, loosely before a sync and exactly after it.
TEST_F(differential_ensemble_test, FollowersMayBeStaleUntilSync) {
  std::string base_seen;
  compare(
      [&](target& t, const std::string& base) {
        base_seen = base;
        t.call(0, op_code::create, create(base + "/f", proto::create_mode::persistent, "v0"));
        t.connect(1, 10'000, 1);
        t.connect(2, 10'000, 2);
        t.call(2, op_code::sync, proto::sync_request{base + "/f"});
        t.call(2, op_code::get_data, proto::get_data_request{base + "/f", true});
        t.call(1, op_code::set_data, proto::set_data_request{base + "/f", "v1", -1});
        t.call(1, op_code::get_data, proto::get_data_request{base + "/f", false});
        t.loosely("c2 reads before a sync", [&] {
          t.call(2, op_code::get_data, proto::get_data_request{base + "/f", false});
          t.call(2, op_code::sync, proto::sync_request{base + "/f"});
        });
        t.call(2, op_code::get_data, proto::get_data_request{base + "/f", false});
        t.call(2, op_code::create, create(base + "/f/x", proto::create_mode::ephemeral));
        t.loosely("c1 lists before a sync", [&] {
          t.call(1, op_code::get_children, proto::get_children_request{base + "/f", false});
        });
        t.call(1, op_code::sync, proto::sync_request{base + "/f"});
        t.call(1, op_code::get_children, proto::get_children_request{base + "/f", false});
        t.call(0, op_code::get_children, proto::get_children_request{base + "/f", false});
      },
      [&](const target& real, const target& model) {
        for (const target* side : {&real, &model}) {
          const char* name = side == &real ? "real ensemble" : "model";
          SCOPED_TRACE(name);
          const auto& read = side->loose("c2 reads before a sync");
          const std::string event = cat("c2 event 3 ", base_seen, "/f");  // NodeDataChanged
          const std::size_t get = first_containing(read, "c2 getData err=0");
          const std::size_t sync = first_containing(read, "c2 sync err=0");
          ASSERT_LT(get, read.size()) << "no getData reply";
          ASSERT_LT(sync, read.size()) << "no sync reply";
          const bool fresh = read[get].find("'v1'") != std::string::npos;
          EXPECT_TRUE(fresh || read[get].find("'v0'") != std::string::npos) << read[get];
          EXPECT_EQ(count_containing(read, event), 1U) << "the watch event must come by the sync's reply, once";
          const std::size_t at = first_containing(read, event);
          if (fresh) EXPECT_LT(at, get) << "the new value was read before its watch event";
          if (!fresh) EXPECT_GT(at, get) << "a stale read came after the watch event announcing the change";
          const auto& listed = side->loose("c1 lists before a sync");
          ASSERT_EQ(listed.size(), 1U);
          const bool seen = listed[0].find("[x,]") != std::string::npos;
          EXPECT_TRUE(seen || listed[0].find("[]") != std::string::npos) << listed[0];
          std::printf("%s: c2's read before its sync was %s; c1's listing before its sync %s the new node\n", name,
                      fresh ? "fresh" : "stale", seen ? "had" : "lacked");
        }
      });
}

}  // namespace
}  // namespace zkwire::sim::differential
