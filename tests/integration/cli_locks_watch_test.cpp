// `zkwire locks --watch --json` (docs/cli.md#locks) against real contenders (`zkwire lock` subprocesses): one JSON
// object per change of the lock directory, driven by its child watch, with values (ages, grants and their rate)
// that follow from what the test did. The test waits on the lines the command prints, never on time.

#include <csignal>

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "support/child_process.hpp"
#include "support/eventually.hpp"
#include "support/temp_dir.hpp"
#include "support/watch_table.hpp"
#include "support/zk_test.hpp"

namespace zkwire {
namespace {

using namespace std::chrono_literals;
using json = nlohmann::json;
using test::child_process;

std::vector<json> objects_of(const std::string& text) {
  std::vector<json> objects;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) objects.push_back(json::parse(line, nullptr, false));
  return objects;
}

class cli_locks_watch_test : public test::standalone_test {
 protected:
  void SetUp() override {
    standalone_test::SetUp();
    files_ = std::make_unique<test::temp_dir>("zkwire-locks-watch-");
  }
  void TearDown() override { files_.reset(); }

  std::unique_ptr<child_process> start(std::vector<std::string> args) {
    std::vector<std::string> argv = {ZKWIRE_CLI_PATH, "-s", connect_string(), "--connect-timeout", "20000"};
    argv.insert(argv.end(), args.begin(), args.end());
    const auto n = std::to_string(next_++);
    return std::make_unique<child_process>(child_process::spawn(
        argv, test::child_stdio{files_->path() / ("out." + n), files_->path() / ("err." + n), {}}));
  }

  // Waits until the watch has printed an object after the first `after` ones for which `match` holds; returns its
  // index.
  template <class Match>
  std::size_t wait_for_object(child_process& watch, std::size_t after, const std::string& what, Match match) {
    std::size_t found = 0;
    std::vector<json> seen;
    EXPECT_TRUE(test::eventually(
        [&] {
          seen = objects_of(watch.out());
          for (std::size_t i = after; i < seen.size(); ++i) {
            if (!seen[i].is_discarded() && match(seen[i])) {
              found = i;
              return true;
            }
          }
          return false;
        },
        60s, what, [&] { return watch.out() + watch.err(); }));
    return found;
  }

  std::unique_ptr<test::temp_dir> files_;
  int next_ = 0;
};

using steady = std::chrono::steady_clock;

std::int64_t epoch_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

double seconds_between(steady::time_point from, steady::time_point to) {
  return std::chrono::duration<double>(to - from).count();
}

// grants_per_sec is the grants of the last 10 s over min(10 s, the time since the first view), rounded to two
// decimals. The test bounds that time from outside: at least `span_lo` s, at most `span_hi` s. At most `grants`
// were granted in the window, and all of them when the whole watch fits in it.
void expect_rate(const json& view, double grants, double span_lo, double span_hi) {
  const double rate = view["grants_per_sec"].get<double>();
  constexpr double window = 10;
  constexpr double rounding = 0.0051;  // half a hundredth, and floating-point noise
  if (span_lo > 0) EXPECT_LE(rate, grants / std::min(window, span_lo) + rounding) << view.dump();
  if (span_hi <= window) EXPECT_GE(rate, grants / span_hi - rounding) << view.dump();
}

// Each view follows from what the test did: depth, holders and waiters; the holder's node (the one the server
// lists first) and its age (now minus its node's creation, the servers being on this machine's clock); grants and
// their rate; and the server's watches on the directory (an exists watch while it is missing, then a child watch)
// as what refreshes the view, shown also by a change that alters no count.
TEST_F(cli_locks_watch_test, PrintsOneObjectPerChangeOfTheQueue) {
  const std::string dir = root() + "/locks/job";
  const auto watch_started = steady::now();
  auto watch = start({"locks", "--watch", "--json", dir});
  // The first object: nothing queued (the directory does not even exist yet).
  const auto first = wait_for_object(*watch, 0, "the first view", [](const json&) { return true; });
  const auto first_seen = steady::now();
  const auto view0 = objects_of(watch->out()).at(first);
  EXPECT_EQ(view0["depth"], 0);
  EXPECT_EQ(view0["exists"], false);
  EXPECT_TRUE(view0["holder"].is_null());
  EXPECT_EQ(view0["path"], dir);
  EXPECT_EQ(view0["grants"], 0);
  EXPECT_EQ(view0["grants_per_sec"], 0);
  // Watch-driven: while the directory does not exist, the view waits on an exists watch on it (armed before the
  // view was printed), which the server lists; nobody else watches that path yet.
  const auto watches = test::parse_wchp(cluster().four_letter(0, "wchp"));
  ASSERT_TRUE(watches.contains(dir)) << cluster().four_letter(0, "wchp");
  EXPECT_EQ(watches.at(dir).size(), 1U);

  const auto holder_started_ms = epoch_ms();
  auto holder = start({"lock", dir, "--", "sleep", "1000"});
  const auto held = wait_for_object(*watch, first + 1, "depth 1 with a holder",
                                    [](const json& v) { return v["depth"] == 1 && !v["holder"].is_null(); });
  const auto held_seen = steady::now();
  const auto held_seen_ms = epoch_ms();
  const auto view1 = objects_of(watch->out()).at(held);
  EXPECT_EQ(view1["holders"], 1);
  EXPECT_EQ(view1["waiters"], 0);
  EXPECT_TRUE(view1["oldest_waiter_age_ms"].is_null());
  // The holder's node was created after we started it and the view printed before we read it.
  const auto holder_age = view1["holder"]["age_ms"].get<std::int64_t>();
  EXPECT_GE(holder_age, 0);
  EXPECT_LE(holder_age, held_seen_ms - holder_started_ms);
  EXPECT_EQ(view1["grants"], 1);  // the first listing's holders were there before the watch: none
  expect_rate(view1, 1, 0, seconds_between(watch_started, held_seen));
  // Now the directory exists, it waits on a child watch of it: the server holds exactly one child watch (no
  // contender sets any; the holder watches its own node's data, armed after its grant, so counted once it is there).
  std::optional<test::watch_counts> counts;
  ASSERT_TRUE(test::eventually(
      [&] {
        counts = test::watch_counts_of([&](const char* word) { return cluster().four_letter(0, word); });
        return counts && counts->data == 1;
      },
      20s, "the holder's data watch",
      [&] { return cluster().four_letter(0, "wchs") + cluster().four_letter(0, "mntr"); }));
  EXPECT_EQ(counts->child, 1U) << cluster().four_letter(0, "wchs") << cluster().four_letter(0, "mntr");

  const auto waiter_started = steady::now();
  const auto waiter_started_ms = epoch_ms();
  auto waiter = start({"lock", dir, "--", "sleep", "1000"});
  const auto queued = wait_for_object(*watch, held + 1, "depth 2", [](const json& v) { return v["depth"] == 2; });
  const auto queued_seen = steady::now();
  const auto queued_seen_ms = epoch_ms();
  const auto view2 = objects_of(watch->out()).at(queued);
  EXPECT_EQ(view2["holders"], 1);
  EXPECT_EQ(view2["waiters"], 1);
  EXPECT_EQ(view2["holder"]["node"], view1["holder"]["node"]);
  const auto waiter_age = view2["oldest_waiter_age_ms"].get<std::int64_t>();
  EXPECT_GE(waiter_age, 0);
  EXPECT_LE(waiter_age, queued_seen_ms - waiter_started_ms);
  EXPECT_GE(view2["holder"]["age_ms"].get<std::int64_t>(), holder_age);
  EXPECT_EQ(view2["grants"], 1);  // the same holder: not a new grant
  expect_rate(view2, 1, seconds_between(first_seen, waiter_started), seconds_between(watch_started, queued_seen));

  // A sibling that is no contender changes no count: only the child watch can tell the view to refresh, and it
  // does, with the same queue.
  const auto views_before = objects_of(watch->out()).size();
  const auto created = test::run_process(
      {ZKWIRE_CLI_PATH, "-s", connect_string(), "--connect-timeout", "20000", "create", dir + "/not-a-lock", ""});
  ASSERT_EQ(created.status, 0) << created.err;
  const auto refreshed = wait_for_object(*watch, views_before, "the view after a foreign sibling appeared",
                                         [](const json&) { return true; });
  const auto view3 = objects_of(watch->out()).at(refreshed);
  EXPECT_EQ(view3["depth"], 2);
  EXPECT_EQ(view3["holder"]["node"], view1["holder"]["node"]);
  EXPECT_EQ(view3["grants"], 1);

  // The holder releases (SIGTERM is forwarded to its command; the lock is released when it ends): the waiter is
  // granted, a second grant.
  holder->terminate(30s);
  const auto handed = wait_for_object(*watch, refreshed + 1, "the waiter holding", [&](const json& v) {
    return v["depth"] == 1 && !v["holder"].is_null() && v["holder"]["node"] != view1["holder"]["node"];
  });
  const auto handed_seen = steady::now();
  const auto view4 = objects_of(watch->out()).at(handed);
  EXPECT_EQ(view4["grants"], 2);
  expect_rate(view4, 2, seconds_between(first_seen, waiter_started), seconds_between(watch_started, handed_seen));
  waiter->terminate(30s);
  const auto drained =
      wait_for_object(*watch, handed + 1, "an empty queue", [](const json& v) { return v["depth"] == 0; });
  EXPECT_EQ(objects_of(watch->out()).at(drained)["grants"], 2);

  // SIGINT ends the watch cleanly.
  watch->signal(SIGINT);
  const auto done = watch->finish(30s);
  EXPECT_EQ(done.status, 0) << done.err;
  EXPECT_EQ(done.err, "");
}

TEST_F(cli_locks_watch_test, SigtermExitsZeroAndPlainLocksIsUnchanged) {
  const std::string dir = root() + "/locks/other";
  auto watch = start({"locks", "--watch", dir});  // the text view (not a terminal: views follow each other)
  EXPECT_TRUE(test::eventually([&] { return watch->out().find("queue depth") != std::string::npos; }, 60s,
                               "the first text view", [&] { return watch->out() + watch->err(); }));
  watch->signal(SIGTERM);
  const auto done = watch->finish(30s);
  EXPECT_EQ(done.status, 0) << done.err;
  EXPECT_NE(done.out.find(dir + " (does not exist)\n  queue depth    0 (0 holding, 0 waiting)\n"), std::string::npos)
      << done.out;
  // Without --watch: still a snapshot, and a missing directory is still exit 1.
  auto plain = start({"locks", dir});
  EXPECT_EQ(plain->finish(60s).status, 1);
}

}  // namespace
}  // namespace zkwire
