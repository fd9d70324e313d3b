// A smoke test of zkwire's election beside the peers' own recipes on one path: Kazoo's Election (Debian's
// python3-kazoo under /usr/bin/python3), Curator's LeaderLatch and LeaderSelector (curator/CuratorElectionWorker.java,
// curator_support.hpp), each with zkwire participants of its naming. A zkwire leader first: the peer joins
// behind it, and both sides' listings name the zkwire participant; the peer leads only after the zkwire leader's
// leadership ended. Then a zkwire participant joins behind the peer: both sides name the peer, and the zkwire
// participant leads only after the peer began to give leadership up. (Wall-clock times of one machine.)

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "curator_support.hpp"
#include "lock_test_support.hpp"
#include "support/child_process.hpp"
#include "support/eventually.hpp"
#include "support/kazoo.hpp"
#include "support/requirements.hpp"
#include "support/temp_dir.hpp"
#include "support/zk_test.hpp"
#include "zkwire/recipes/election.hpp"

namespace zkwire {
namespace {

using asio::use_awaitable;
using recipes::election;
using recipes::election_naming;
using recipes::election_options;
using recipes::election_state;
using recipes::leadership_change;
using test::run_co;
using namespace std::chrono_literals;

// Kazoo's Election with the same protocol as the Java worker (its "leader" is the first of contenders()).
constexpr const char* kazoo_worker = R"(import json, os, sys, threading, time
from kazoo.client import KazooClient
zk = KazooClient(hosts=sys.argv[1])
zk.start(timeout=30)
path, ident, stop = sys.argv[2], sys.argv[3], sys.argv[4]
e = zk.Election(path, ident)
def say(line):
    print(line, flush=True)
def lead():
    say("leads %d" % int(time.time() * 1000))
    while not os.path.exists(stop):
        time.sleep(0.02)
    say("releasing %d" % int(time.time() * 1000))
t = threading.Thread(target=lambda: e.run(lead))
t.start()
seen = None
while t.is_alive():
    c = e.contenders()
    first = c[0] if c else "-"
    if first != seen:
        say("leader " + first)
        seen = first
    time.sleep(0.02)
zk.stop()
say("closed")
)";

std::int64_t now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// The value after `key ` on the last line that starts with it, if any.
std::optional<std::string> last_value(const std::string& output, const std::string& key) {
  std::optional<std::string> value;
  std::istringstream in(output);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind(key + " ", 0) == 0) value = line.substr(key.size() + 1);
  }
  return value;
}

class election_interop_test : public test::standalone_test {
 protected:
  void SetUp() override {
    standalone_test::SetUp();
    admin_ = test::new_client(io_, connect_string());
    path_ = root() + "/election";
  }
  void TearDown() override { admin_.reset(); }

  std::unique_ptr<test::child_process> start_peer(const std::string& peer, const std::string& id) {
    std::vector<std::string> argv;
    if (peer == "kazoo") {
      argv = {test::system_python, "-c", kazoo_worker, connect_string(), path_, id, stop_file().string()};
    } else {
      argv = test::curator_worker_command("CuratorElectionWorker");
      argv.insert(argv.end(), {connect_string(), peer, path_, id, stop_file().string()});
    }
    return std::make_unique<test::child_process>(test::child_process::spawn(
        argv, test::child_stdio{scratch_.path() / (peer + ".out"), scratch_.path() / (peer + ".err"), {}}));
  }
  [[nodiscard]] std::filesystem::path stop_file() const { return scratch_.path() / "stop"; }

  // zkwire's listing's leader id once it lists `count` participants.
  std::string zkwire_leader(std::size_t count) {
    std::string leader;
    EXPECT_TRUE(test::run_until(
        io_,
        [&] {
          const auto listed =
              run_co(io_, recipes::async_participants(*admin_, path_, asio::experimental::as_tuple(use_awaitable)));
          const auto& [ec, list] = listed;
          if (ec || list.size() != count) return false;
          leader = list.front().leader ? list.front().id : "-";
          return true;
        },
        60s, "the participants listing"));
    return leader;
  }

  void run_beside(const std::string& peer, election_naming naming) {
    auto c1 = test::new_client(io_, connect_string());
    auto c2 = test::new_client(io_, connect_string());
    election_options first_options = election_options::with_naming(naming);
    first_options.id = "zkwire-1";
    election_options second_options = election_options::with_naming(naming);
    second_options.id = "zkwire-2";
    election first(*c1, path_, first_options);
    election second(*c2, path_, second_options);
    std::int64_t first_lost_ms = 0;
    std::int64_t second_gained_ms = 0;
    first.set_listener([&](const recipes::leadership_event& e) {
      if (e.change == leadership_change::lost) first_lost_ms = now_ms();
    });
    second.set_listener([&](const recipes::leadership_event& e) {
      if (e.change == leadership_change::gained) second_gained_ms = now_ms();
    });
    run_co(io_, first.async_await_leadership(10s, use_awaitable));

    auto worker = start_peer(peer, "peer-1");
    EXPECT_EQ(zkwire_leader(2), "zkwire-1");
    EXPECT_TRUE(test::eventually([&] { return last_value(worker->out(), "leader") == "zkwire-1"; }, 60s,
                                 peer + " naming zkwire-1 its leader", [&] { return worker->out() + worker->err(); }));
    EXPECT_FALSE(last_value(worker->out(), "leads").has_value()) << peer << " led beside zkwire's leader";

    run_co(io_, first.async_leave(use_awaitable));
    ASSERT_TRUE(test::eventually([&] { return last_value(worker->out(), "leads").has_value(); }, 60s, peer + " leading",
                                 [&] { return worker->out() + worker->err(); }));
    EXPECT_GE(std::stoll(*last_value(worker->out(), "leads")), first_lost_ms);

    run_co(io_, second.async_join(use_awaitable));
    EXPECT_EQ(zkwire_leader(2), "peer-1");
    EXPECT_TRUE(test::eventually([&] { return last_value(worker->out(), "leader") == "peer-1"; }, 60s,
                                 peer + " naming itself the leader", [&] { return worker->out(); }));
    run_co(io_, test::settle(*c2));
    EXPECT_EQ(second.state(), election_state::candidate) << "zkwire led beside " << peer << "'s leader";

    std::ofstream(stop_file()).put('\n');
    ASSERT_TRUE(test::run_until(
        io_, [&] { return second.has_leadership(); }, 60s, "zkwire-2 leading"));
    const auto releasing = last_value(worker->out(), "releasing");
    ASSERT_TRUE(releasing.has_value()) << worker->out();
    EXPECT_GE(second_gained_ms, std::stoll(*releasing));
    const auto done = worker->finish(60s);
    EXPECT_EQ(done.status, 0) << done.err;
    run_co(io_, second.async_leave(use_awaitable));
  }

  asio::io_context io_;
  std::unique_ptr<client> admin_;
  std::string path_;
  test::temp_dir scratch_{"zkwire-election-interop-"};
};

TEST_F(election_interop_test, KazooElectionBesideZkwireWithKazooNames) {
  ZKWIRE_REQUIRE(test::have_kazoo(), "Kazoo under /usr/bin/python3 (scripts/setup installs python3-kazoo)");
  run_beside("kazoo", election_naming::kazoo);
}

TEST_F(election_interop_test, CuratorLeaderLatchBesideZkwireWithLatchNames) {
  ZKWIRE_REQUIRE(!test::curator_worker_classes().empty(),
                 "javac or Debian's libcurator-*-java (scripts/setup installs them)");
  run_beside("latch", election_naming::latch);
}

TEST_F(election_interop_test, CuratorLeaderSelectorBesideZkwireWithLockNames) {
  ZKWIRE_REQUIRE(!test::curator_worker_classes().empty(),
                 "javac or Debian's libcurator-*-java (scripts/setup installs them)");
  run_beside("selector", election_naming::lock);
}

}  // namespace
}  // namespace zkwire
