// `zkwire elect` participants and the peers' own election recipes on one election path of a real server: Curator's
// LeaderLatch and LeaderSelector (curator/CuratorElectionPeer.java, compiled with javac at test time against Debian's
// libcurator-*-java: curator_support.hpp) and Kazoo's Election (kazoo/kazoo_election_peer.py, Debian's python3-kazoo
// under /usr/bin/python3), each with the zkwire naming that peer uses. Every leader, whichever recipe elected it, runs
// the same critical section (kazoo/election_oracle.py; the Java program has the same): it marks itself inside (a second
// leader inside is a violation), asks `zkwire leader --json` who leads, and records its interval on CLOCK_MONOTONIC
// with its fencing token. Meanwhile the peer asks its own recipe who leads, every 20 ms (getLeader() for Curator,
// contenders() for Kazoo), each answer recorded with the interval it was asked in. The oracle: one leader at a time
// (no two sections overlap, tokens grow in their order), every participant of both sides leads every round, and
// every answer asked and answered within a section names that section's leader: `zkwire leader` names the peer's
// leaders and zkwire's, the peer's listing names zkwire's leaders too.

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "curator_support.hpp"
#include "support/child_process.hpp"
#include "support/eventually.hpp"
#include "support/kazoo.hpp"
#include "support/requirements.hpp"
#include "support/temp_dir.hpp"
#include "support/zk_test.hpp"

namespace zkwire {
namespace {

using namespace std::chrono_literals;

// One peer recipe and the zkwire naming that elects with it.
struct election_peer {
  const char* name;    // the parameter's name: latch, selector, kazoo
  const char* naming;  // `zkwire elect --naming`
};

constexpr int peer_rounds = 2;   // leaderships of each participant
constexpr int participants = 2;  // per side
constexpr int section_hold_ms = 150;

struct leader_section {
  std::string id;
  std::int64_t token = 0;
  std::int64_t start = 0;
  std::int64_t end = 0;
};

struct leader_answer {
  std::string side;  // who asked: zkwire, curator, kazoo
  std::int64_t before = 0;
  std::int64_t after = 0;
  std::string leader;  // "-": nobody; "?": no answer
};

std::vector<leader_section> read_leader_sections(const std::filesystem::path& file) {
  std::vector<leader_section> out;
  std::ifstream in(file);
  leader_section s;
  while (in >> s.id >> s.token >> s.start >> s.end) out.push_back(s);
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.start < b.start; });
  return out;
}

std::vector<leader_answer> read_leader_answers(const std::filesystem::path& file) {
  std::vector<leader_answer> out;
  std::ifstream in(file);
  leader_answer a;
  while (in >> a.side >> a.before >> a.after >> a.leader) out.push_back(a);
  return out;
}

class election_peers_test : public test::standalone_test, public ::testing::WithParamInterface<election_peer> {
 protected:
  [[nodiscard]] bool is_kazoo() const { return std::string(GetParam().name) == "kazoo"; }

  void SetUp() override {
    standalone_test::SetUp();
    if (is_kazoo()) {
      ZKWIRE_REQUIRE(test::have_kazoo(), "python3-kazoo for /usr/bin/python3 (scripts/setup installs it)");
    } else {
      ZKWIRE_REQUIRE(!test::curator_worker_classes().empty(),
                     "javac or Debian's libcurator-*-java (scripts/setup installs them)");
    }
  }

  // /usr/bin/env with what the critical section needs to ask `zkwire leader` (election_oracle.py), then `argv`.
  [[nodiscard]] static std::vector<std::string> with_listing(const std::string& path, std::vector<std::string> argv) {
    std::vector<std::string> out{"/usr/bin/env", std::string("ZKWIRE_LISTING_CLI=") + ZKWIRE_CLI_PATH,
                                 "ZKWIRE_LISTING_CONNECT=" + connect_string(), "ZKWIRE_LISTING_PATH=" + path};
    out.insert(out.end(), argv.begin(), argv.end());
    return out;
  }

  // The peer's program in interop mode, with `participants` participants of `peer_rounds` rounds.
  [[nodiscard]] std::vector<std::string> peer_command(const std::string& path) const {
    const std::string prefix = is_kazoo() ? "kazoo" : "curator";
    if (is_kazoo()) {
      return {test::system_python,
              ZKWIRE_KAZOO_ELECTION_PEER,
              "interop",
              connect_string(),
              path,
              files_.path().string(),
              prefix,
              std::to_string(participants),
              std::to_string(peer_rounds),
              std::to_string(section_hold_ms)};
    }
    auto argv = test::curator_worker_command("CuratorElectionPeer");
    for (std::string arg :
         {std::string("interop"), connect_string(), std::string(GetParam().name), path, files_.path().string(), prefix,
          std::to_string(participants), std::to_string(peer_rounds), std::to_string(section_hold_ms)}) {
      argv.push_back(std::move(arg));
    }
    return argv;
  }

  // `zkwire elect` as participant `id`, `peer_rounds` times, each leadership running the oracle's section.
  [[nodiscard]] std::thread zkwire_participant(const std::string& path, const std::string& id) {
    return std::thread([this, path, id] {
      for (int round = 0; round < peer_rounds; ++round) {
        const auto out = test::run_process(
            with_listing(path, {ZKWIRE_CLI_PATH, "-s", connect_string(), "--connect-timeout", "20000", "elect", "--id",
                                id, "--naming", GetParam().naming, path, "--", test::system_python,
                                ZKWIRE_ELECTION_ORACLE, files_.path().string(), id, std::to_string(section_hold_ms)}),
            {}, 120s);
        EXPECT_EQ(out.status, 0) << id << " round " << round << ": " << out.err;
      }
    });
  }

  test::temp_dir files_{"zkwire-election-peers-"};
};

TEST_P(election_peers_test, OneLeaderAtATimeAndEveryListingNamesIt) {
  const std::string path = root() + "/election/" + GetParam().name;
  auto peer = test::child_process::spawn(with_listing(path, peer_command(path)),
                                         test::child_stdio{files_.path() / "peer.out", files_.path() / "peer.err", {}});
  std::vector<std::thread> zkwire_side;
  zkwire_side.reserve(participants);
  for (int n = 0; n < participants; ++n) zkwire_side.push_back(zkwire_participant(path, "zkwire-" + std::to_string(n)));
  for (auto& t : zkwire_side) t.join();
  // The peer's participants had their rounds when the sections file has all of them.
  constexpr std::size_t expected_sections = 2 * participants * peer_rounds;
  EXPECT_TRUE(test::eventually(
      [&] { return read_leader_sections(files_.path() / "sections").size() >= expected_sections || !peer.running(); },
      120s, "every section recorded"));
  std::ofstream(files_.path() / "stop").close();  // the peer's observer stops
  const auto peer_out = peer.finish(60s);
  ASSERT_EQ(peer_out.status, 0) << peer_out.out << peer_out.err;

  const auto sections = read_leader_sections(files_.path() / "sections");
  EXPECT_EQ(test::read_file(files_.path() / "violations"), "");
  ASSERT_EQ(sections.size(), expected_sections) << test::read_file(files_.path() / "sections");
  std::map<std::string, int> led;
  for (std::size_t i = 0; i < sections.size(); ++i) {
    ++led[sections[i].id];
    if (i == 0) continue;
    const auto& before = sections[i - 1];
    EXPECT_LE(before.end, sections[i].start) << before.id << " still led " << (before.end - sections[i].start) / 1000000
                                             << " ms into " << sections[i].id << "'s leadership";
    EXPECT_LT(before.token, sections[i].token)
        << sections[i].id << " led with token " << sections[i].token << " after " << before.id << "'s " << before.token;
  }
  EXPECT_EQ(led.size(), static_cast<std::size_t>(2 * participants));
  for (const auto& [id, n] : led) EXPECT_EQ(n, peer_rounds) << id;

  // Every answer asked and answered within one leader's section names that leader.
  const auto answers = read_leader_answers(files_.path() / "observations");
  std::map<std::string, int> named_zkwire;  // per side that asked: answers naming a zkwire leader
  std::map<std::string, int> named_peer;    // and a peer's leader
  int wrong = 0;
  for (const auto& a : answers) {
    if (a.leader == "?") continue;
    const auto inside = std::find_if(sections.begin(), sections.end(),
                                     [&](const auto& s) { return s.start <= a.before && a.after <= s.end; });
    if (inside == sections.end()) continue;
    if (a.leader != inside->id) {
      ++wrong;
      ADD_FAILURE() << a.side << "'s listing named " << a.leader << " while " << inside->id << " led";
      continue;
    }
    ++(inside->id.starts_with("zkwire-") ? named_zkwire : named_peer)[a.side];
  }
  EXPECT_EQ(wrong, 0);
  const std::string peer_side = is_kazoo() ? "kazoo" : "curator";
  // Each side's listing was asked while each side led (the CLI from inside every section, so every time).
  EXPECT_EQ(named_zkwire["zkwire-cli"], participants * peer_rounds) << "`zkwire leader` within zkwire's sections";
  EXPECT_EQ(named_peer["zkwire-cli"], participants * peer_rounds) << "`zkwire leader` within " << peer_side << "'s";
  EXPECT_GT(named_zkwire[peer_side], 0) << peer_side << "'s listing never named a zkwire leader";
  EXPECT_GT(named_peer[peer_side], 0) << peer_side << "'s listing never named its own leader";
}

INSTANTIATE_TEST_SUITE_P(Peers, election_peers_test,
                         ::testing::Values(election_peer{"latch", "latch"}, election_peer{"selector", "lock"},
                                           election_peer{"kazoo", "kazoo"}),
                         [](const auto& param_info) { return std::string(param_info.param.name); });

}  // namespace
}  // namespace zkwire
