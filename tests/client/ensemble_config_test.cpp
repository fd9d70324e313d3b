// parse_ensemble_config (the text of /zookeeper/config) and choose_host_after_reconfig (the rebalancing choice of
// client_options::follow_config).

#include <gtest/gtest.h>

#include <cstddef>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "zkwire/client/ensemble_config.hpp"
#include "zkwire/client/errors.hpp"

namespace zkwire {
namespace {

std::vector<host_port> hosts(std::initializer_list<std::uint16_t> ports) {
  std::vector<host_port> out;
  for (const auto port : ports) out.push_back(host_port{"127.0.0.1", port});
  return out;
}

TEST(ensemble_config, ParsesServerLinesAndTheVersion) {
  const std::string text =
      "server.1=127.0.0.1:2888:3888:participant;127.0.0.1:2181\n"
      "server.2=10.0.0.2:2889:3889;0.0.0.0:2182\n"
      "server.3=[::1]:2890:3890:observer;[::1]:2183\n"
      "server.4=10.0.0.4:2891:3891:participant;2184\n"
      "server.5=10.0.0.5:2892:3892\n"
      "group.1=1:2:3\n"
      "\n"
      "version=10000000a\n";
  ensemble_config config;
  std::string reason;
  ASSERT_FALSE(parse_ensemble_config(text, config, &reason)) << reason;
  ASSERT_EQ(config.members.size(), 5U);
  EXPECT_EQ(config.version, 0x10000000a);
  EXPECT_EQ(config.members[0].id, 1);
  EXPECT_EQ(config.members[0].quorum, (host_port{"127.0.0.1", 2888}));
  EXPECT_EQ(config.members[0].election_port, 3888);
  EXPECT_EQ(config.members[0].role, "participant");
  EXPECT_EQ(config.members[0].client, (host_port{"127.0.0.1", 2181}));
  // A wildcard or missing client address: the member's quorum host.
  EXPECT_EQ(config.members[1].client, (host_port{"10.0.0.2", 2182}));
  EXPECT_EQ(config.members[2].quorum, (host_port{"::1", 2890}));
  EXPECT_EQ(config.members[2].role, "observer");
  EXPECT_EQ(config.members[2].client, (host_port{"::1", 2183}));
  EXPECT_EQ(config.members[3].client, (host_port{"10.0.0.4", 2184}));
  EXPECT_FALSE(config.members[4].client.has_value());
  EXPECT_EQ(config.client_hosts(),
            (std::vector<host_port>{{"127.0.0.1", 2181}, {"10.0.0.2", 2182}, {"::1", 2183}, {"10.0.0.4", 2184}}));
}

TEST(ensemble_config, EmptyTextIsAnEmptyConfiguration) {
  ensemble_config config;
  ASSERT_FALSE(parse_ensemble_config("", config));
  EXPECT_TRUE(config.members.empty());
  EXPECT_FALSE(config.version.has_value());
}

TEST(ensemble_config, MalformedLinesGiveAClearErrorAndLeaveTheOutputAlone) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"server.1", "line 1: expected key=value"},
      {"server.x=h:1:2;3", "line 1: bad server id"},
      {"server.-1=h:1:2;3", "line 1: bad server id"},
      {"server.1=h:1", "line 1: expected host:quorumPort:electionPort"},
      {"server.1=h", "line 1: expected host:quorumPort:electionPort"},
      {"server.1=:1:2", "line 1: expected host:quorumPort:electionPort"},
      {"server.1=h:0:2", "line 1: bad quorum port"},
      {"server.1=h:70000:2", "line 1: bad quorum port"},
      {"server.1=h:1:x", "line 1: bad election port"},
      {"server.1=h:1:2:leader", "line 1: unknown role"},
      {"server.1=h:1:2;h:", "line 1: bad client port"},
      {"server.1=h:1:2;[::1:5", "line 1: bad client address"},
      {"server.1=[::1:1:2;5", "line 1: expected host:quorumPort:electionPort"},
      {"\nversion=xyz", "line 2: bad hexadecimal version"},
      {"server.1=h:1:2;3\nserver.1=h:4:5;6", "line 2: duplicate server id"},
      {std::string("server.1=h:1:2;3\0", 17), "line 1: bad client port"},
  };
  for (const auto& [text, expected] : cases) {
    ensemble_config config;
    config.version = 7;
    std::string reason;
    EXPECT_EQ(parse_ensemble_config(text, config, &reason), client_errc::invalid_ensemble_config) << text;
    EXPECT_EQ(reason.rfind(expected, 0), 0U) << "text '" << text << "': " << reason;
    EXPECT_EQ(config.version, 7) << text;  // untouched
  }
  ensemble_config config;
  EXPECT_EQ(parse_ensemble_config("garbage", config), condition::protocol_violation);
}

TEST(ensemble_config, RebalanceStaysWhenTheCurrentMemberRemainsAndNothingWasAdded) {
  std::mt19937_64 rng(1);
  const auto old_hosts = hosts({1, 2, 3});
  const auto choice = choose_host_after_reconfig(old_hosts, hosts({3, 1}), host_port{"127.0.0.1", 1}, rng);
  EXPECT_EQ(choice.current, 1U);
  EXPECT_FALSE(choice.move_to.has_value());
}

TEST(ensemble_config, RebalanceMovesWhenTheCurrentMemberIsRemoved) {
  for (std::uint64_t seed = 1; seed <= 50; ++seed) {
    std::mt19937_64 rng(seed);
    const auto new_hosts = hosts({1, 2});
    const auto choice = choose_host_after_reconfig(hosts({1, 2, 3}), new_hosts, host_port{"127.0.0.1", 3}, rng);
    EXPECT_FALSE(choice.current.has_value());
    ASSERT_TRUE(choice.move_to.has_value());
    EXPECT_LT(*choice.move_to, new_hosts.size());
  }
  // Removed and replaced (same size): some go to the kept members, some to the added one.
  std::map<std::size_t, int> targets;
  std::mt19937_64 rng(42);
  for (int i = 0; i < 3000; ++i) {
    const auto choice = choose_host_after_reconfig(hosts({1, 2, 3}), hosts({1, 2, 4}), host_port{"127.0.0.1", 3}, rng);
    ASSERT_TRUE(choice.move_to.has_value());
    ++targets[*choice.move_to];
  }
  // old 3, new 3, kept 2: p(kept) = 2 * 0 / (3 * 1) = 0, so every client of the removed member goes to the new one.
  EXPECT_EQ(targets[2], 3000);
}

TEST(ensemble_config, RebalanceMovesAShareOfClientsToAddedMembers) {
  // 3 -> 4 members: a client of a remaining member moves to the new one with probability 1 - 3/4.
  std::mt19937_64 rng(7);
  int moved = 0;
  constexpr int trials = 4000;
  for (int i = 0; i < trials; ++i) {
    const auto choice =
        choose_host_after_reconfig(hosts({1, 2, 3}), hosts({1, 2, 3, 4}), host_port{"127.0.0.1", 2}, rng);
    EXPECT_EQ(choice.current, 1U);
    if (choice.move_to) {
      EXPECT_EQ(*choice.move_to, 3U);  // only ever to the added member
      ++moved;
    }
  }
  EXPECT_NEAR(static_cast<double>(moved) / trials, 0.25, 0.03);
}

TEST(ensemble_config, RebalanceIsRepeatableWithASeed) {
  const auto run = [](std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::vector<int> choices;
    for (int i = 0; i < 100; ++i) {
      const auto c =
          choose_host_after_reconfig(hosts({1, 2, 3}), hosts({1, 2, 3, 4, 5}), host_port{"127.0.0.1", 1}, rng);
      choices.push_back(c.move_to ? static_cast<int>(*c.move_to) : -1);
    }
    return choices;
  };
  EXPECT_EQ(run(99), run(99));
  EXPECT_NE(run(99), run(100));
}

TEST(ensemble_config, RebalanceWithoutAConnectionOrWithoutHostsChoosesNothing) {
  std::mt19937_64 rng(3);
  EXPECT_FALSE(choose_host_after_reconfig(hosts({1}), hosts({2}), std::nullopt, rng).move_to.has_value());
  const auto none = choose_host_after_reconfig(hosts({1}), {}, host_port{"127.0.0.1", 1}, rng);
  EXPECT_FALSE(none.move_to.has_value());
  EXPECT_FALSE(none.current.has_value());
}

}  // namespace
}  // namespace zkwire
