// The simulated server against a real ZooKeeper 3.8 server: the same operation sequences (scripted, and seeded
// random ones) go to both, frame by frame, and the transcripts — results, errors, stats, zxid accounting, watch
// events — must be equal, so the model cannot drift into fiction (differential_target.hpp says what is normalised).
// The scenarios where time matters (expiry, containers, cuts, pipelining, auth) are in differential_time_test.cpp.

#include <gtest/gtest.h>

#include <cstdlib>
#include <random>

#include "differential_fixture.hpp"
#include "text.hpp"

namespace zkwire::sim::differential {
namespace {

using proto::op_code;

TEST_F(differential_test, NodesStatsAndErrors) {
  compare([](target& t, const std::string& base) {
    t.call(0, op_code::create2, create(base + "/a", proto::create_mode::persistent, "data"));
    t.call(0, op_code::create, create(base + "/a"));
    t.call(0, op_code::create, create(base + "/missing/x"));
    t.call(0, op_code::create, create(base + "/bad/"));
    t.call(0, op_code::create2, proto::create_request{base + "/noacl", "", {}, proto::create_mode::persistent});
    t.call(0, op_code::create2, create(base + "/a/s-", proto::create_mode::persistent_sequential));
    t.call(0, op_code::create2, create(base + "/a/s-", proto::create_mode::ephemeral_sequential));
    t.call(0, op_code::delete_, proto::delete_request{base + "/a/s-0000000000", -1});
    t.call(0, op_code::create2, create(base + "/a/s-", proto::create_mode::persistent_sequential));
    t.call(0, op_code::set_data, proto::set_data_request{base + "/a", "new", 0});
    t.call(0, op_code::set_data, proto::set_data_request{base + "/a", "newer", 0});
    t.call(0, op_code::delete_, proto::delete_request{base + "/a", -1});
    t.call(0, op_code::create, create(base + "/a/s-0000000001/under"));
    t.call(0, op_code::get_data, proto::get_data_request{base + "/a", false});
    t.call(0, op_code::get_children2, proto::get_children2_request{base + "/a", false});
    t.call(0, op_code::get_acl, proto::get_acl_request{base + "/a"});
    t.call(0, op_code::set_acl, proto::set_acl_request{base + "/a", proto::read_acl_unsafe(), 0});
    t.call(0, op_code::set_acl, proto::set_acl_request{base + "/a", proto::open_acl_unsafe(), 0});
    t.call(0, op_code::get_all_children_number, proto::get_all_children_number_request{base});
    t.call(0, op_code::get_ephemerals, proto::get_ephemerals_request{base});
    t.call(0, op_code::exists, proto::exists_request{base + "/nothing", false});
    t.call(0, op_code::get_data, proto::get_data_request{"not/a/path", false});
    t.call(0, op_code::create2, create(base + "/box", proto::create_mode::container));
    t.call(0, op_code::create_container, create(base + "/box2"));
    t.call(0, op_code::exists, proto::exists_request{base + "/box2", false});
  });
}

TEST_F(differential_test, WatchesAcrossSessions) {
  compare([](target& t, const std::string& base) {
    t.connect(1);
    t.call(0, op_code::create, create(base + "/w"));
    t.call(1, op_code::get_data, proto::get_data_request{base + "/w", true});
    t.call(1, op_code::get_children, proto::get_children_request{base + "/w", true});
    t.call(1, op_code::exists, proto::exists_request{base + "/w/new", true});
    t.call(0, op_code::create, create(base + "/w/new", proto::create_mode::ephemeral));
    t.call(1, op_code::exists, proto::exists_request{base, false});  // a barrier: events arrive before its reply
    t.call(1, op_code::check_watches, proto::check_watches_request{base + "/w", proto::watcher_type::data});
    t.call(1, op_code::check_watches, proto::check_watches_request{base + "/w", proto::watcher_type::children});
    t.call(1, op_code::remove_watches, proto::remove_watches_request{base + "/w", proto::watcher_type::data});
    t.call(1, op_code::remove_watches, proto::remove_watches_request{base + "/w", proto::watcher_type::data});
    t.call(1, op_code::add_watch, proto::add_watch_request{base + "/w", proto::add_watch_mode::persistent_recursive});
    t.call(0, op_code::set_data, proto::set_data_request{base + "/w/new", "1", -1});
    t.call(0, op_code::create, create(base + "/w/second"));
    t.call(0, op_code::delete_, proto::delete_request{base + "/w/second", -1});
    t.call(1, op_code::exists, proto::exists_request{base, false});
    t.call(1, op_code::get_data, proto::get_data_request{base + "/w/new", true});
    t.call(0, op_code::close_session, proto::no_body{});  // deletes the ephemeral /w/new
    t.call(1, op_code::exists, proto::exists_request{base, false});
    t.call(1, op_code::remove_watches, proto::remove_watches_request{base + "/w", proto::watcher_type::any});
  });
}

TEST_F(differential_test, MultiAndMultiRead) {
  compare([](target& t, const std::string& base) {
    proto::multi_request ok;
    ok.ops.push_back(proto::create_op(create(base + "/m")));
    ok.ops.push_back(proto::create_op(create(base + "/m/q-", proto::create_mode::persistent_sequential)));
    ok.ops.push_back(proto::set_data_op(base + "/m", "x"));
    ok.ops.push_back(proto::check_op(base + "/m", 1));
    t.call(0, op_code::multi, ok);
    proto::multi_request failing;
    failing.ops.push_back(proto::create_op(create(base + "/n")));
    failing.ops.push_back(proto::delete_op(base + "/m"));
    failing.ops.push_back(proto::set_data_op(base + "/m", "y"));
    t.call(0, op_code::multi, failing);
    t.call(0, op_code::multi, proto::multi_request{});
    proto::multi_request reads;
    reads.ops.push_back(proto::get_data_op(base + "/m"));
    reads.ops.push_back(proto::get_children_op(base + "/m"));
    reads.ops.push_back(proto::get_data_op(base + "/absent"));
    t.call(0, op_code::multi_read, reads);
    t.call(0, op_code::create2, create(base + "/m/q-", proto::create_mode::persistent_sequential));
  });
}

TEST_F(differential_test, SetWatchesAfterAReconnectCatchesUp) {
  compare([](target& t, const std::string& base) {
    t.connect(1);
    t.call(0, op_code::create, create(base + "/r"));
    t.call(0, op_code::create, create(base + "/r/keep"));
    t.call(1, op_code::get_data, proto::get_data_request{base + "/r", true});
    t.reconnect(1);  // the server drops the connection's watches; the client re-arms them with SetWatches
    t.call(0, op_code::set_data, proto::set_data_request{base + "/r", "changed", -1});
    t.call(0, op_code::create, create(base + "/r/new"));
    t.call(0, op_code::delete_, proto::delete_request{base + "/r/keep", -1});
    t.call(1, op_code::set_watches,
           proto::set_watches{1, {base + "/r", base + "/r/keep"}, {base + "/r/new", base + "/r/never"}, {base + "/r"}});
    t.call(0, op_code::create, create(base + "/r/never"));
    t.call(1, op_code::exists, proto::exists_request{base, false});
  });
}

// Seeded random sequences over a few paths and three sessions. ZKWIRE_DIFF_SEED replays one seed.
TEST_F(differential_test, RandomOperationSequences) {
  std::vector<std::uint64_t> seeds = {1, 2, 3};
  if (const char* env = std::getenv("ZKWIRE_DIFF_SEED")) seeds = {std::strtoull(env, nullptr, 10)};
  for (const auto seed : seeds) {
    SCOPED_TRACE(cat("seed ", seed, " (replay: ZKWIRE_DIFF_SEED=", seed, ")"));
    compare([seed](target& t, const std::string& base) {
      std::mt19937_64 random(seed);
      const auto pick = [&](std::size_t n) { return static_cast<std::size_t>(random() % n); };
      const std::vector<std::string> names = {"/a", "/b", "/a/x", "/a/y", "/b/x", "/a/x/z"};
      t.connect(1);
      t.connect(2);
      for (int step = 0; step < 120; ++step) {
        const std::size_t c = pick(3);
        const std::string path = cat(base, names[pick(names.size())]);
        const auto version = static_cast<std::int32_t>(pick(3)) - 1;
        switch (pick(10)) {
          case 0:
          case 1: {
            const proto::create_mode modes[] = {proto::create_mode::persistent, proto::create_mode::ephemeral,
                                                proto::create_mode::persistent_sequential,
                                                proto::create_mode::ephemeral_sequential};
            t.call(c, op_code::create2, create(path, modes[pick(4)], std::string(pick(3), 'd')));
            break;
          }
          case 2:
            t.call(c, op_code::delete_, proto::delete_request{path, version});
            break;
          case 3:
            t.call(c, op_code::set_data, proto::set_data_request{path, std::string(pick(5), 's'), version});
            break;
          case 4:
            t.call(c, op_code::exists, proto::exists_request{path, pick(2) == 0});
            break;
          case 5:
            t.call(c, op_code::get_data, proto::get_data_request{path, pick(2) == 0});
            break;
          case 6:
            t.call(c, op_code::get_children2, proto::get_children2_request{path, pick(2) == 0});
            break;
          case 7: {
            proto::multi_request m;
            m.ops.push_back(proto::create_op(create(path)));
            m.ops.push_back(proto::set_data_op(base + names[pick(names.size())], "m", version));
            m.ops.push_back(proto::check_op(base + names[pick(names.size())], version));
            t.call(c, op_code::multi, m);
            break;
          }
          case 8:
            t.call(c, op_code::remove_watches, proto::remove_watches_request{path, proto::watcher_type::any});
            break;
          default:
            t.call(c, op_code::exists, proto::exists_request{base, false});  // collects pending events
            break;
        }
      }
    });
  }
}

}  // namespace
}  // namespace zkwire::sim::differential
