// `zkwire lock`, `zkwire locks` and `zkwire revoke` (docs/cli.md#lock-commands) against a real ZooKeeper server: the
// built binary runs as a subprocess. Mutual exclusion is checked by an oracle that does not trust the lock: the command
// does a non-atomic read-sleep-write of a counter file (an overlap loses an update), marks "inside" with mkdir
// (fails when another holder is inside) and appends its fencing token (must grow from holder to holder). Kazoo's
// Lock (Debian's python3-kazoo, run with /usr/bin/python3) contends on the same path in both naming modes.

#include <csignal>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <memory>
#include <optional>
#include <regex>
#include <sstream>
#include <string>
#include <system_error>
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
using test::child_process;
using test::outcome;
using test::read_file;
using ::testing::HasSubstr;

class cli_lock_test : public test::cli_process_test {
 protected:
  // `zkwire locks` output lines, once there are `count` of them (within 30 s).
  std::vector<std::string> wait_for_contenders(const std::string& dir, std::size_t count) {
    std::vector<std::string> lines;
    EXPECT_TRUE(test::eventually(
        [&] {
          const auto r = zk({"locks", dir});
          lines = test::lines_of(r.out);
          return r.status == 0 && lines.size() == count;
        },
        30s, std::to_string(count) + " contenders in " + dir,
        [&] { return std::to_string(lines.size()) + " contenders"; }));
    return lines;
  }

  // `rounds` sequential `zkwire lock` runs of the critical section, on a thread of its own.
  std::thread zkwire_worker(const std::string& lock_dir, const std::filesystem::path& oracle, int rounds,
                            const std::string& naming = "curator") {
    return std::thread([this, lock_dir, oracle, rounds, naming] {
      for (int i = 0; i < rounds; ++i) {
        const auto r = run(cli(
            {"lock", "--naming", naming, lock_dir, "--", "sh", "-c", test::critical_section, "cs", oracle.string()}));
        EXPECT_EQ(r.status, 0) << r.err;
      }
    });
  }
};

TEST_F(cli_lock_test, HelpAndUsageErrors) {
  auto r = run({ZKWIRE_CLI_PATH, "lock", "--help"});
  EXPECT_EQ(r.status, 0);
  EXPECT_THAT(r.out, HasSubstr("lock [--read|--write] [--timeout SEC] [--naming curator|kazoo] [--kill-after SEC] "
                               "PATH [PATH...] -- CMD [ARG...]"));
  EXPECT_THAT(r.out, HasSubstr("ZKWIRE_FENCING_TOKEN"));
  EXPECT_EQ(run({ZKWIRE_CLI_PATH, "locks", "--help"}).status, 0);
  EXPECT_EQ(run({ZKWIRE_CLI_PATH, "revoke", "--help"}).status, 0);
  // Rejected before anything is sent (no server needed).
  for (const auto& args : std::vector<std::vector<std::string>>{{"lock", "/x", "true"},
                                                                {"lock", "/x", "--"},
                                                                {"lock", "--read", "--write", "/x", "--", "true"},
                                                                {"lock", "--naming", "zookeeper", "/x", "--", "true"},
                                                                {"lock", "--timeout", "-1", "/x", "--", "true"},
                                                                {"lock", "x", "--", "true"},
                                                                {"lock", "/x", "y", "--", "true"},
                                                                {"lock", "--read", "/x", "/y", "--", "true"},
                                                                {"lock", "/x", "/y", "true"},
                                                                {"locks"},
                                                                {"revoke", "/x/config"}}) {
    std::vector<std::string> argv = {ZKWIRE_CLI_PATH, "-s", "127.0.0.1:1"};
    argv.insert(argv.end(), args.begin(), args.end());
    r = run(argv);
    EXPECT_EQ(r.status, 2) << args.front() << " " << args.back() << ": " << r.err;
    EXPECT_THAT(r.err, ::testing::StartsWith("zkwire: " + args.front() + ": "));
  }
}

TEST_F(cli_lock_test, RunsTheCommandWithTheLockInItsEnvironment) {
  const std::string dir = root() + "/a/b/job";  // missing parents are created
  const auto r = zk(
      {"lock", dir, "--", "sh", "-c", R"(echo "$ZKWIRE_LOCK_NODE $ZKWIRE_FENCING_TOKEN $ZKWIRE_SESSION_ID"; exit 3)"});
  EXPECT_EQ(r.status, 3) << r.err;  // the command's own status
  std::smatch m;
  ASSERT_TRUE(
      std::regex_match(r.out, m, std::regex(dir + "/(_c_[0-9a-f-]{36}-lock-0000000000) ([0-9]+) 0x[0-9a-f]+\n")))
      << r.out;
  EXPECT_GT(std::stoll(m[2]), 0);
  EXPECT_EQ(zk({"ls", dir}).out, "");  // released (the server may even have reaped the container directory by now)

  const auto kazoo_named = zk({"lock", "--naming", "kazoo", dir, "--", "sh", "-c", R"(echo "$ZKWIRE_LOCK_NODE")"});
  EXPECT_EQ(kazoo_named.status, 0) << kazoo_named.err;
  EXPECT_TRUE(std::regex_match(kazoo_named.out, std::regex(dir + "/[0-9a-f]{32}__lock__[0-9]{10}\n")))
      << kazoo_named.out;
}

TEST_F(cli_lock_test, ExitStatusOfTheCommand) {
  const std::string dir = root();
  EXPECT_EQ(zk({"lock", dir, "--", "true"}).status, 0);
  EXPECT_EQ(zk({"lock", dir, "--", "sh", "-c", "exit 42"}).status, 42);
  EXPECT_EQ(zk({"lock", dir, "--", "sh", "-c", "kill -KILL $$"}).status, 128 + SIGKILL);
  EXPECT_EQ(zk({"lock", dir, "--", "sh", "-c", "kill -TERM $$"}).status, 128 + SIGTERM);
  const auto missing = zk({"lock", dir, "--", "zkwire-no-such-command"});
  EXPECT_EQ(missing.status, 127);
  EXPECT_THAT(missing.err, HasSubstr("zkwire-no-such-command"));
  EXPECT_EQ(zk({"ls", dir}).out, "");
}

TEST_F(cli_lock_test, TimeoutWhileAnotherProcessHoldsTheLock) {
  const std::string dir = root();
  const auto inside = file("holder-inside");
  auto holder = start(cli({"lock", dir, "--", "sh", "-c", "touch \"$0\"; exec sleep 30", inside.string()}));
  ASSERT_TRUE(wait_for_file(inside));

  auto t0 = std::chrono::steady_clock::now();
  auto r = zk({"lock", "--timeout", "0", dir, "--", "true"});
  EXPECT_EQ(r.status, 75) << r.err;
  EXPECT_THAT(r.err, HasSubstr("zkwire: lock: " + dir + ": "));
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 5s);

  t0 = std::chrono::steady_clock::now();
  r = zk({"lock", "--timeout", "0.5", dir, "--", "true"});
  EXPECT_EQ(r.status, 75) << r.err;
  const auto waited = std::chrono::steady_clock::now() - t0;
  EXPECT_GE(waited, 450ms);
  EXPECT_LT(waited, 10s);

  // The ones that gave up left nothing behind: only the holder's node.
  EXPECT_EQ(wait_for_contenders(dir, 1).size(), 1U);
  holder->signal(SIGTERM);  // forwarded to the command, which dies of it
  EXPECT_EQ(holder->finish().status, 128 + SIGTERM);
  EXPECT_EQ(zk({"ls", dir}).out, "");
}

TEST_F(cli_lock_test, SignalWhileWaitingGivesUpAndDeletesTheNode) {
  const std::string dir = root();
  const auto inside = file("holder-inside");
  auto holder = start(cli({"lock", dir, "--", "sh", "-c", "touch \"$0\"; exec sleep 30", inside.string()}));
  ASSERT_TRUE(wait_for_file(inside));
  for (const int sig : {SIGTERM, SIGINT}) {
    auto waiter = start(cli({"lock", dir, "--", "true"}));
    ASSERT_EQ(wait_for_contenders(dir, 2).size(), 2U);
    waiter->signal(sig);
    EXPECT_EQ(waiter->finish(20s).status, 128 + sig);
    const auto left = wait_for_contenders(dir, 1);
    ASSERT_EQ(left.size(), 1U);
    EXPECT_THAT(left[0], HasSubstr("\"holder\":true"));
  }
  holder->signal(SIGKILL);  // zkwire dies: its command is killed with it (PR_SET_PDEATHSIG)
  EXPECT_EQ(holder->finish().status, 128 + SIGKILL);
}

TEST_F(cli_lock_test, NodeDeletedByOthersMeansLostAndTheCommandIsTerminated) {
  const std::string dir = root();
  const auto inside = file("inside");
  const auto got_term = file("got-term");
  // The command ignores SIGTERM (noting it) so that the escalation to SIGKILL is exercised too.
  auto holder = start(cli({"lock", "--kill-after", "0.5", dir, "--", "sh", "-c",
                           "trap 'touch \"$1\"' TERM; touch \"$0\"; while :; do sleep 0.05; done", inside.string(),
                           got_term.string()}));
  ASSERT_TRUE(wait_for_file(inside));
  const auto node = zk({"ls", dir}).out;
  ASSERT_FALSE(node.empty());
  EXPECT_EQ(zk({"rm", dir + "/" + node.substr(0, node.size() - 1)}).status, 0);
  const auto t0 = std::chrono::steady_clock::now();
  EXPECT_EQ(holder->finish(20s).status, 76);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 10s);
  EXPECT_TRUE(wait_for_file(got_term));
  EXPECT_THAT(holder->err(), HasSubstr("lock lost"));
}

TEST_F(cli_lock_test, SilentServerMeansLostBeforeTheSessionCanExpire) {
  const std::string dir = root();
  const auto inside = file("inside");
  const auto got_term = file("got-term");
  constexpr auto session_timeout = 4s;
  // The command notes when SIGTERM reached it (wall-clock nanoseconds, written atomically): the time is taken where
  // the property is, not when this thread gets round to noticing.
  auto holder = start({ZKWIRE_CLI_PATH, "-s", connect_string(), "-t", "4000", "--connect-timeout", "20000", "lock", dir,
                       "--", "sh", "-c",
                       "trap 'date +%s%N > \"$1.tmp\"; mv \"$1.tmp\" \"$1\"; exit 0' TERM; touch \"$0\"; "
                       "while :; do sleep 0.05; done",
                       inside.string(), got_term.string()});
  ASSERT_TRUE(wait_for_file(inside));
  cluster().pause(0);
  // The server last heard from the client before this moment; a server that kept running could expire the session
  // one session timeout after that. Measuring from here can only make `after` shorter than the truth.
  const auto paused_at = std::chrono::system_clock::now();
  const auto terminated = wait_for_file(got_term);
  cluster().resume(0);
  ASSERT_TRUE(terminated);
  const std::chrono::system_clock::time_point term_at{std::chrono::duration_cast<std::chrono::system_clock::duration>(
      std::chrono::nanoseconds(std::stoll(read_file(got_term))))};
  const auto after = term_at - paused_at;
  // No margin: the session timeout is the property. The client gives itself T/3 of it (it stops the command at
  // its read timeout, 2T/3), which is the room for signal delivery on a loaded machine.
  EXPECT_LT(after, session_timeout) << "the command must stop before the server could expire the session";
  EXPECT_GT(after, std::chrono::system_clock::duration::zero()) << "terminated before the server stopped";
  EXPECT_EQ(holder->finish(30s).status, 76) << holder->err();
}

TEST_F(cli_lock_test, LocksListsContendersInLockOrder) {
  const std::string dir = root();
  EXPECT_EQ(zk({"locks", dir}).status, 1);  // no such directory
  const auto inside = file("inside");
  auto holder = start(cli({"lock", "--read", dir, "--", "sh", "-c", "touch \"$0\"; exec sleep 30", inside.string()}));
  ASSERT_TRUE(wait_for_file(inside));
  auto writer = start(cli({"lock", "--write", dir, "--", "true"}));
  ASSERT_EQ(wait_for_contenders(dir, 2).size(), 2U);
  auto kazoo_style = start(cli({"lock", "--naming", "kazoo", dir, "--", "true"}));
  ASSERT_EQ(wait_for_contenders(dir, 3).size(), 3U);
  ASSERT_EQ(zk({"create", dir + "/config", "x"}).status, 0);  // a sibling that is no lock node

  const auto r = zk({"locks", dir});
  EXPECT_EQ(r.status, 0) << r.err;
  const auto lines = test::lines_of(r.out);
  ASSERT_EQ(lines.size(), 4U) << r.out;
  const std::string session = R"("session":"0x[0-9a-f]+","ctime":[0-9]+,)";
  EXPECT_TRUE(std::regex_match(
      lines[0],
      std::regex(R"(\{"node":")" + dir + R"(/_c_[0-9a-f-]{36}-__READ__0000000000","sequence":0,"kind":"read",)" +
                 session + R"("holder":true,"data":"[^"]+:[0-9]+"\})")))
      << lines[0];
  EXPECT_TRUE(std::regex_match(
      lines[1],
      std::regex(R"(\{"node":")" + dir + R"(/_c_[0-9a-f-]{36}-__WRIT__0000000001","sequence":1,"kind":"write",)" +
                 session + R"("holder":false,.*)")))
      << lines[1];
  EXPECT_TRUE(std::regex_match(
      lines[2],
      std::regex(R"(\{"node":")" + dir + R"(/[0-9a-f]{32}__lock__0000000002","sequence":2,"kind":"exclusive",)" +
                 session + R"("holder":false,.*)")))
      << lines[2];
  EXPECT_TRUE(std::regex_match(
      lines[3],
      std::regex(
          R"(\{"node":")" + dir +
          R"(/config","sequence":null,"kind":"foreign","session":"0x0","ctime":[0-9]+,"holder":false,"data":"x"\})")))
      << lines[3];

  holder->signal(SIGTERM);
  EXPECT_EQ(holder->finish().status, 128 + SIGTERM);
  EXPECT_EQ(writer->finish().status, 0);
  EXPECT_EQ(kazoo_style->finish().status, 0);
  // An empty directory lists nothing (a persistent one: the server may reap an empty container at any time).
  const std::string empty_dir = root() + "-empty";
  ASSERT_EQ(zk({"create", empty_dir}).status, 0);
  const auto empty = zk({"locks", empty_dir});
  EXPECT_EQ(empty.status, 0) << empty.err;
  EXPECT_EQ(empty.out, "");
  EXPECT_EQ(zk({"rm", empty_dir}).status, 0);
}

TEST_F(cli_lock_test, RevokeAsksTheHolderToRelease) {
  const std::string dir = root();
  const auto inside = file("inside");
  auto holder =
      start(cli({"lock", dir, "--", "sh", "-c",
                 "trap 'echo released; exit 9' TERM; touch \"$0\"; while :; do sleep 0.05; done", inside.string()}));
  ASSERT_TRUE(wait_for_file(inside));
  auto waiter = start(cli({"lock", dir, "--", "true"}));
  const auto lines = wait_for_contenders(dir, 2);
  ASSERT_EQ(lines.size(), 2U);
  std::smatch m;
  ASSERT_TRUE(std::regex_search(lines[0], m, std::regex(R"re("node":"([^"]+)")re")));
  const auto r = zk({"revoke", m[1].str()});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(holder->finish(20s).status, 9);  // the command's status: it chose to end
  EXPECT_EQ(holder->out(), "released\n");
  EXPECT_THAT(holder->err(), HasSubstr("release requested"));
  EXPECT_EQ(waiter->finish(20s).status, 0);  // and the next one got the lock

  EXPECT_EQ(zk({"revoke", dir + "/_c_00000000-0000-4000-8000-000000000000-lock-0000000099"}).status, 1);
}

TEST_F(cli_lock_test, ReadersShareWritersExclude) {
  const std::string dir = root();
  // Each reader waits (inside the lock) until the other one is inside too: both succeed only if they overlap. Then
  // both stay inside until the test has tried the writer and the exclusive contender.
  const auto a = file("reader-a");
  const auto b = file("reader-b");
  const auto done = file("readers-done");
  const std::string meet =
      "touch \"$0\"; i=0; while [ ! -e \"$1\" ]; do i=$((i+1)); [ $i -gt 400 ] && exit 1; "
      "sleep 0.05; done; i=0; while [ ! -e \"$2\" ]; do i=$((i+1)); [ $i -gt 600 ] && exit 1; sleep 0.05; done";
  auto reader_a = start(cli({"lock", "--read", dir, "--", "sh", "-c", meet, a.string(), b.string(), done.string()}));
  auto reader_b = start(cli({"lock", "--read", dir, "--", "sh", "-c", meet, b.string(), a.string(), done.string()}));
  ASSERT_TRUE(wait_for_file(a));
  ASSERT_TRUE(wait_for_file(b));
  // A writer cannot get in while they read, and neither can an exclusive contender.
  EXPECT_EQ(zk({"lock", "--write", "--timeout", "0", dir, "--", "true"}).status, 75);
  EXPECT_EQ(zk({"lock", "--timeout", "0", dir, "--", "true"}).status, 75);
  std::ofstream(done).put('\n');
  EXPECT_EQ(reader_a->finish().status, 0);
  EXPECT_EQ(reader_b->finish().status, 0);
  EXPECT_EQ(zk({"lock", "--write", "--timeout", "5", dir, "--", "true"}).status, 0);
}

// Several PATHs: every lock is held while CMD runs (one node and token per path, in sorted order), and a multi-lock
// that times out on one path leaves nothing behind on the other.
TEST_F(cli_lock_test, MultiPathLockHoldsEveryPathAndGivesUpAsAWhole) {
  const std::string a = root() + "/a";
  const std::string b = root() + "/b";
  const auto inside = file("multi-inside");
  const auto env = file("multi-env");
  auto holder =
      start(cli({"lock", b, a, "--", "sh", "-c",
                 R"(printf '%s\n%s\n' "$ZKWIRE_LOCK_NODE" "$ZKWIRE_FENCING_TOKEN" > "$1"; touch "$0"; exec sleep 30)",
                 inside.string(), env.string()}));
  ASSERT_TRUE(wait_for_file(inside));
  const auto lines = test::lines_of(read_file(env));
  ASSERT_EQ(lines.size(), 4U) << read_file(env);
  EXPECT_TRUE(std::regex_match(lines[0], std::regex(a + "/_c_[0-9a-f-]{36}-lock-0000000000"))) << lines[0];
  EXPECT_TRUE(std::regex_match(lines[1], std::regex(b + "/_c_[0-9a-f-]{36}-lock-0000000000"))) << lines[1];
  EXPECT_GT(std::stoll(lines[2]), 0);
  EXPECT_GT(std::stoll(lines[3]), 0);
  EXPECT_NE(lines[2], lines[3]);
  // Both are held: single locks and a multi-lock in the other order time out (75).
  EXPECT_EQ(zk({"lock", "--timeout", "0", a, "--", "true"}).status, 75);
  EXPECT_EQ(zk({"lock", "--timeout", "0", b, "--", "true"}).status, 75);
  const auto r = zk({"lock", "--timeout", "0.5", a, b, "--", "true"});
  EXPECT_EQ(r.status, 75) << r.err;
  EXPECT_THAT(r.err, HasSubstr("zkwire: lock: " + a + " " + b + ": "));
  holder->signal(SIGTERM);
  EXPECT_EQ(holder->finish().status, 128 + SIGTERM);

  // Only b is held now: the multi-lock takes a, times out on b and gives a back.
  auto b_holder = start(cli({"lock", b, "--", "sh", "-c", "touch \"$0\"; exec sleep 30", inside.string() + "-b"}));
  ASSERT_TRUE(wait_for_file(inside.string() + "-b"));
  const auto timed_out = zk({"lock", "--timeout", "1", b, a, "--", "true"});
  EXPECT_EQ(timed_out.status, 75) << timed_out.err;
  EXPECT_TRUE(test::eventually([&] { return zk({"ls", a}).out.empty(); }, 30s, "no node left under " + a));
  EXPECT_EQ(wait_for_contenders(b, 1).size(), 1U);
  EXPECT_EQ(zk({"lock", "--timeout", "0", a, "--", "true"}).status, 0);
  b_holder->signal(SIGTERM);
  EXPECT_EQ(b_holder->finish().status, 128 + SIGTERM);
  EXPECT_EQ(zk({"lock", "--timeout", "5", a, b, "--", "true"}).status, 0);
}

TEST_F(cli_lock_test, MutualExclusionAcrossProcesses) {
  const std::string dir = root() + "/mutex";
  const auto oracle = make_oracle("oracle");
  constexpr int workers = 4;
  constexpr int rounds = 10;
  std::vector<std::thread> threads;
  threads.reserve(workers);
  for (int w = 0; w < workers; ++w) threads.push_back(zkwire_worker(dir, oracle, rounds));
  for (auto& t : threads) t.join();
  check_oracle(oracle, workers * rounds);
  EXPECT_EQ(zk({"ls", dir}).out, "");
}

// zkwire and Kazoo's Lock on one path: zkwire orders Kazoo's `__lock__` nodes; Kazoo orders ours when we use its
// naming, or Curator's with extra_lock_patterns=["-lock-"].
class cli_lock_kazoo_test : public cli_lock_test, public ::testing::WithParamInterface<const char*> {};

TEST_P(cli_lock_kazoo_test, ZkwireAndKazooExcludeEachOther) {
  const std::string naming = GetParam();
  const std::string dir = root() + "/shared";
  const auto oracle = make_oracle("oracle");
  constexpr int rounds = 8;
  const std::string extra_pattern = naming == "curator" ? "-lock-" : "";
  std::vector<std::unique_ptr<child_process>> kazoo;
  for (int k = 0; k < 2; ++k) {
    kazoo.push_back(start({"/usr/bin/python3", ZKWIRE_KAZOO_LOCK_WORKER, connect_string(), dir, std::to_string(rounds),
                           oracle.string(), extra_pattern}));
  }
  std::vector<std::thread> threads;
  threads.reserve(2);
  for (int w = 0; w < 2; ++w) threads.push_back(zkwire_worker(dir, oracle, rounds, naming));
  for (auto& t : threads) t.join();
  for (auto& k : kazoo) {
    EXPECT_EQ(k->finish(120s).status, 0) << k->err();
  }
  check_oracle(oracle, 4 * rounds);
  const auto tokens = read_file(oracle / "tokens");
  EXPECT_THAT(tokens, HasSubstr(" kazoo\n"));
  EXPECT_THAT(tokens, HasSubstr(" zkwire\n"));
}

INSTANTIATE_TEST_SUITE_P(Naming, cli_lock_kazoo_test, ::testing::Values("curator", "kazoo"));

}  // namespace
}  // namespace zkwire
