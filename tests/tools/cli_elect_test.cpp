// `zkwire elect` and `zkwire leader` (docs/cli.md#elect, docs/cli.md#leader) against a real ZooKeeper server: the
// built binary runs as a subprocess. One leader at a time is checked by the oracle of support/cli_process_test.hpp,
// which does not trust the election: concurrent `elect` runs of all three namings, whose commands must never be
// inside at once, never lose a counter update, and see their fencing tokens grow.

#include <csignal>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <memory>
#include <regex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "support/child_process.hpp"
#include "support/cli_process_test.hpp"
#include "support/eventually.hpp"
#include "support/temp_dir.hpp"
#include "support/zk_test.hpp"

namespace zkwire {
namespace {

using namespace std::chrono_literals;
using json = nlohmann::json;
using test::child_process;
using test::outcome;
using test::read_file;
using ::testing::HasSubstr;

class cli_elect_test : public test::cli_process_test {
 protected:
  // `zkwire leader --json PATH` once it lists `count` participants (within 30 s).
  json wait_for_participants(const std::string& path, std::size_t count) {
    json listed;
    EXPECT_TRUE(test::eventually(
        [&] {
          const auto r = zk({"leader", "--json", path});
          listed = json::parse(r.out, nullptr, false);
          return r.status == 0 && !listed.is_discarded() && listed["participants"].size() == count;
        },
        30s, std::to_string(count) + " participants in " + path, [&] { return listed.dump(); }));
    return listed;
  }

  // A command that notes it leads (touches $0) and then sleeps.
  std::unique_ptr<child_process> start_leader(const std::string& path, const std::string& id,
                                              const std::filesystem::path& inside) {
    return start(cli({"elect", "--id", id, path, "--", "sh", "-c", "touch \"$0\"; exec sleep 30", inside.string()}));
  }
};

TEST_F(cli_elect_test, HelpAndUsageErrors) {
  auto r = run({ZKWIRE_CLI_PATH, "elect", "--help"});
  EXPECT_EQ(r.status, 0);
  EXPECT_THAT(r.out, HasSubstr("elect [--id ID] [--naming latch|lock|kazoo] [--timeout MS] [--safety-margin MS] "
                               "[--kill-after SEC] PATH -- CMD [ARG...]"));
  EXPECT_THAT(r.out, HasSubstr("ZKWIRE_LEADER_ID"));
  r = run({ZKWIRE_CLI_PATH, "leader", "--help"});
  EXPECT_EQ(r.status, 0);
  EXPECT_THAT(r.out, HasSubstr("leader [--json] [--watch] PATH"));
  // Rejected before anything is sent (no server needed).
  for (const auto& args : std::vector<std::vector<std::string>>{{"elect", "/x", "true"},
                                                                {"elect", "/x", "--"},
                                                                {"elect", "--naming", "curator", "/x", "--", "true"},
                                                                {"elect", "--timeout", "-1", "/x", "--", "true"},
                                                                {"elect", "--timeout", "0.5", "/x", "--", "true"},
                                                                {"elect", "x", "--", "true"},
                                                                {"elect", "/x", "/y", "--", "true"},
                                                                {"leader"},
                                                                {"leader", "x"}}) {
    std::vector<std::string> argv = {ZKWIRE_CLI_PATH, "-s", "127.0.0.1:1"};
    argv.insert(argv.end(), args.begin(), args.end());
    r = run(argv);
    EXPECT_EQ(r.status, 2) << args.front() << " " << args.back() << ": " << r.err;
    EXPECT_THAT(r.err, ::testing::StartsWith("zkwire: " + args.front() + ": "));
  }
}

TEST_F(cli_elect_test, RunsTheCommandWhileLeadingWithItsIdAndToken) {
  const std::string path = root() + "/a/b/election";  // missing parents are created
  const auto r =
      zk({"elect", "--id", "node-7", path, "--", "sh", "-c",
          R"(echo "$ZKWIRE_LEADER_ID $ZKWIRE_FENCING_TOKEN $ZKWIRE_LEADER_NODE $ZKWIRE_SESSION_ID"; exit 3)"});
  EXPECT_EQ(r.status, 3) << r.err;  // the command's own status
  std::smatch m;
  ASSERT_TRUE(std::regex_match(
      r.out, m, std::regex("node-7 ([0-9]+) " + path + "/_c_[0-9a-f-]{36}-latch-0000000000 0x[0-9a-f]+\n")))
      << r.out;
  EXPECT_GT(std::stoll(m[1]), 0);
  EXPECT_EQ(zk({"ls", path}).out, "");  // left (the container may even be reaped by now)

  for (const auto& [naming, pattern] : std::vector<std::pair<std::string, std::string>>{
           {"lock", "/_c_[0-9a-f-]{36}-lock-[0-9]{10}\n"}, {"kazoo", "/[0-9a-f]{32}__lock__[0-9]{10}\n"}}) {
    const auto named = zk({"elect", "--naming", naming, path, "--", "sh", "-c", R"(echo "$ZKWIRE_LEADER_NODE")"});
    EXPECT_EQ(named.status, 0) << named.err;
    EXPECT_TRUE(std::regex_match(named.out, std::regex(path + pattern))) << named.out;
  }
  // The default id: <hostname>:<pid>.
  const auto defaulted = zk({"elect", path, "--", "sh", "-c", R"(echo "$ZKWIRE_LEADER_ID")"});
  EXPECT_TRUE(std::regex_match(defaulted.out, std::regex(".+:[0-9]+\n"))) << defaulted.out;
  EXPECT_EQ(zk({"elect", path, "--", "zkwire-no-such-command"}).status, 127);
}

TEST_F(cli_elect_test, TimeoutLeavesNoNodeAndTheListingNamesTheLeader) {
  const std::string path = root();
  ASSERT_EQ(zk({"create", path}).status, 0);  // persistent: the empty listing at the end finds it
  EXPECT_EQ(zk({"leader", path + "/none"}).status, 1);
  EXPECT_THAT(zk({"leader", path + "/none"}).err, HasSubstr("(NONODE)"));
  const auto inside = file("leader-inside");
  auto leader = start_leader(path, "first", inside);
  ASSERT_TRUE(wait_for_file(inside));

  auto r = zk({"elect", "--timeout", "0", path, "--", "true"});
  EXPECT_EQ(r.status, 75) << r.err;
  EXPECT_THAT(r.err, HasSubstr("zkwire: elect: " + path + ": another participant leads"));
  const auto t0 = std::chrono::steady_clock::now();
  r = zk({"elect", "--timeout", "500", path, "--", "true"});
  EXPECT_EQ(r.status, 75) << r.err;
  EXPECT_GE(std::chrono::steady_clock::now() - t0, 450ms);
  EXPECT_THAT(r.err, HasSubstr("not leading within 0.5 s"));
  const auto alone = wait_for_participants(path, 1);  // the ones that gave up left nothing behind
  EXPECT_EQ(alone["leader"], "first");

  auto waiter = start(cli({"elect", "--id", "second", path, "--", "true"}));
  const auto two = wait_for_participants(path, 2);
  EXPECT_EQ(two["leader"], "first");
  ASSERT_EQ(two["participants"].size(), 2U);
  EXPECT_EQ(two["participants"][0]["id"], "first");
  EXPECT_EQ(two["participants"][0]["leader"], true);
  EXPECT_EQ(two["participants"][1]["id"], "second");
  EXPECT_EQ(two["participants"][1]["leader"], false);
  EXPECT_TRUE(std::regex_match(two["participants"][1]["node"].get<std::string>(),
                               std::regex(path + "/_c_[0-9a-f-]{36}-latch-[0-9]{10}")));
  EXPECT_TRUE(std::regex_match(two["participants"][1]["session"].get<std::string>(), std::regex("0x[0-9a-f]+")));
  const auto text = test::lines_of(zk({"leader", path}).out);
  ASSERT_EQ(text.size(), 2U);
  EXPECT_TRUE(std::regex_match(text[0], std::regex("leader +first +" + path + "/_c_.*-latch-[0-9]{10} +0x[0-9a-f]+")))
      << text[0];
  EXPECT_TRUE(std::regex_match(text[1], std::regex("waiting +second +.*"))) << text[1];

  leader->signal(SIGTERM);  // forwarded to the command, which dies of it; then the waiter leads and ends
  EXPECT_EQ(leader->finish().status, 128 + SIGTERM);
  EXPECT_EQ(waiter->finish(30s).status, 0) << waiter->err();
  EXPECT_EQ(zk({"leader", "--json", path}).out, "{\"leader\":null,\"participants\":[]}\n");
}

TEST_F(cli_elect_test, NodeDeletedByOthersEndsTheLeadershipAndTheCommand) {
  const std::string path = root();
  const auto inside = file("inside");
  auto leader = start(cli({"elect", "--kill-after", "0.5", path, "--", "sh", "-c",
                           "trap '' TERM; touch \"$0\"; while :; do sleep 0.05; done", inside.string()}));
  ASSERT_TRUE(wait_for_file(inside));
  const auto listed = wait_for_participants(path, 1);
  EXPECT_EQ(zk({"rm", listed["participants"][0]["node"].get<std::string>()}).status, 0);
  EXPECT_EQ(leader->finish(20s).status, 76);
  EXPECT_THAT(leader->err(), HasSubstr("leadership lost"));
  EXPECT_EQ(zk({"ls", path}).out, "");  // it did not join again
}

TEST_F(cli_elect_test, OneLeaderAtATimeAmongConcurrentElectRuns) {
  const std::string path = root() + "/election";
  const auto oracle = make_oracle("oracle");
  constexpr int workers = 3;
  constexpr int rounds = 4;
  std::vector<std::unique_ptr<child_process>> running;
  // Started from this thread (the children die with the thread that spawned them); each worker's runs follow
  // each other through a shell loop.
  for (int w = 0; w < workers; ++w) {
    const std::string naming = w == 0 ? "latch" : w == 1 ? "lock" : "kazoo";
    std::string loop = "for i in $(seq " + std::to_string(rounds) + "); do \"$0\" -s \"$1\" --connect-timeout 20000 " +
                       "elect --naming " + naming + " --id w" + std::to_string(w) +
                       "-$i \"$2\" -- sh -c \"$3\" cs \"$4\" || exit 1; done";
    running.push_back(start(
        {"/bin/sh", "-c", loop, ZKWIRE_CLI_PATH, connect_string(), path, test::critical_section, oracle.string()}));
  }
  for (auto& r : running) EXPECT_EQ(r->finish(120s).status, 0) << r->err();
  check_oracle(oracle, workers * rounds);
}

TEST_F(cli_elect_test, LeaderWatchPrintsOneObjectPerChange) {
  const std::string path = root() + "/watched";
  auto watch = start(cli({"leader", "--watch", "--json", path}));
  const auto objects = [&] {
    std::vector<json> out;
    for (const auto& line : test::lines_of(watch->out())) out.push_back(json::parse(line, nullptr, false));
    return out;
  };
  const auto wait_for = [&](const std::string& what, auto match) {
    EXPECT_TRUE(test::eventually(
        [&] {
          for (const auto& o : objects()) {
            if (!o.is_discarded() && match(o)) return true;
          }
          return false;
        },
        60s, what, [&] { return watch->out() + watch->err(); }));
  };
  wait_for("a view of the missing path", [&](const json& o) {
    return o["path"] == path && o["exists"] == false && o["leader"].is_null() && o["participants"].empty();
  });
  const auto inside = file("inside");
  auto leader = start_leader(path, "watched-leader", inside);
  wait_for("the leader", [](const json& o) { return o["exists"] == true && o["leader"] == "watched-leader"; });
  leader->signal(SIGTERM);
  EXPECT_EQ(leader->finish().status, 128 + SIGTERM);
  EXPECT_TRUE(test::eventually(
      [&] {
        const auto all = objects();
        return !all.empty() && !all.back().is_discarded() && all.back()["leader"].is_null() &&
               all.back()["participants"].empty();
      },
      60s, "a view without a leader after it left", [&] { return watch->out() + watch->err(); }));
  watch->signal(SIGTERM);
  EXPECT_EQ(watch->finish(20s).status, 0) << watch->err();
}

}  // namespace
}  // namespace zkwire
