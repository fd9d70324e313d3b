// `zkwire locks --watch --json` (docs/cli.md#locks) against real contenders (`zkwire lock` subprocesses): one JSON
// object per change of the lock directory, driven by its child watch. The test waits on the lines the command
// prints, never on time.

#include <csignal>

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "support/child_process.hpp"
#include "support/eventually.hpp"
#include "support/temp_dir.hpp"
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

TEST_F(cli_locks_watch_test, PrintsOneObjectPerChangeOfTheQueue) {
  const std::string dir = root() + "/locks/job";
  auto watch = start({"locks", "--watch", "--json", dir});
  // The first object: nothing queued (the directory does not even exist yet).
  const auto first = wait_for_object(*watch, 0, "the first view", [](const json&) { return true; });
  const auto view0 = objects_of(watch->out()).at(first);
  EXPECT_EQ(view0["depth"], 0);
  EXPECT_EQ(view0["exists"], false);
  EXPECT_TRUE(view0["holder"].is_null());
  EXPECT_EQ(view0["path"], dir);

  auto holder = start({"lock", dir, "--", "sleep", "1000"});
  const auto held = wait_for_object(*watch, first + 1, "depth 1 with a holder",
                                    [](const json& v) { return v["depth"] == 1 && !v["holder"].is_null(); });
  const auto view1 = objects_of(watch->out()).at(held);
  EXPECT_EQ(view1["holders"], 1);
  EXPECT_EQ(view1["waiters"], 0);
  EXPECT_GE(view1["holder"]["age_ms"].get<std::int64_t>(), -60000);  // the server's clock, roughly ours
  EXPECT_TRUE(view1["oldest_waiter_age_ms"].is_null());

  auto waiter = start({"lock", dir, "--", "true"});
  const auto queued = wait_for_object(*watch, held + 1, "depth 2", [](const json& v) { return v["depth"] == 2; });
  const auto view2 = objects_of(watch->out()).at(queued);
  EXPECT_EQ(view2["holders"], 1);
  EXPECT_EQ(view2["waiters"], 1);
  EXPECT_FALSE(view2["oldest_waiter_age_ms"].is_null());
  EXPECT_EQ(view2["holder"]["node"], view1["holder"]["node"]);

  // The holder releases (SIGTERM is forwarded to its command; the lock is released when it ends); the waiter gets
  // the lock, runs `true` and releases: the queue drains.
  holder->terminate(30s);
  wait_for_object(*watch, queued + 1, "the depth dropping", [](const json& v) { return v["depth"] < 2; });
  EXPECT_EQ(waiter->finish(60s).status, 0);
  wait_for_object(*watch, queued + 1, "an empty queue", [](const json& v) { return v["depth"] == 0; });

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
