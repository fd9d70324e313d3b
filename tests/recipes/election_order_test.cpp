// The election's pure decisions (recipes/election_order.hpp): the three namings, each peer's rule as the peer
// implements it, zkwire's decision (the peer rule AND nobody ahead in sequence order), and the listing's view.

#include "zkwire/recipes/election_order.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

namespace zkwire::recipes {
namespace {

std::string seq(std::int64_t n) {
  char buffer[16];
  std::snprintf(buffer, sizeof buffer, "%010lld", static_cast<long long>(n));
  return buffer;
}
// A node of each naming with a given guid-ish tag and sequence.
std::string latch(const std::string& tag, std::int64_t n) { return "_c_" + tag + "-latch-" + seq(n); }
std::string selector(const std::string& tag, std::int64_t n) { return "_c_" + tag + "-lock-" + seq(n); }
std::string kazoo(const std::string& hex, std::int64_t n) { return hex + "__lock__" + seq(n); }

constexpr const char* uuid_a = "0b6b5a60-3d3a-4b0e-9d8a-6b2f1c2d3e4f";
constexpr const char* uuid_b = "7c1d2e3f-4a5b-4c6d-8e7f-8091a2b3c4d5";
// Kazoo's hex starting with a letter: under Curator's rules (whole name) it sorts after every ten-digit key.
constexpr const char* hex_k = "fa51c0de0123456789abcdef01234567";

TEST(election_order, NamingsOfNodeNames) {
  EXPECT_EQ(election_naming_of(latch(uuid_a, 3)), election_naming::latch);
  EXPECT_EQ(election_naming_of(selector(uuid_a, 3)), election_naming::lock);
  EXPECT_EQ(election_naming_of("_c_0123456789abcdef0123456789abcdef-lock-0000000005"), election_naming::lock);  // go
  EXPECT_EQ(election_naming_of(kazoo(hex_k, 3)), election_naming::kazoo);
  EXPECT_EQ(election_naming_of(std::string(hex_k) + "__rlock__" + seq(3)), std::nullopt);
  EXPECT_EQ(election_naming_of("_c_" + std::string(uuid_a) + "-__READ__" + seq(3)), std::nullopt);
  EXPECT_EQ(election_naming_of("x-72057594037927936-" + seq(3)), std::nullopt);
  EXPECT_EQ(election_naming_of("config"), std::nullopt);
  EXPECT_EQ(election_naming_name(election_naming::latch), "latch");
  EXPECT_EQ(election_naming_name(election_naming::lock), "lock");
  EXPECT_EQ(election_naming_name(election_naming::kazoo), "kazoo");
}

TEST(election_order, OurNamesAreThePeersNames) {
  const auto seeded = guid_source::seeded(7);
  const std::string uuid = make_election_guid(election_naming::latch, seeded);
  EXPECT_EQ(uuid.size(), 36U);
  EXPECT_EQ(election_node_prefix(election_naming::latch, uuid), "_c_" + uuid + "-latch-");
  EXPECT_EQ(election_node_prefix(election_naming::lock, uuid), "_c_" + uuid + "-lock-");
  const std::string hex = make_election_guid(election_naming::kazoo, seeded);
  EXPECT_EQ(hex.size(), 32U);
  EXPECT_EQ(election_node_prefix(election_naming::kazoo, hex), hex + "__lock__");
  // The names we make parse back as the naming we made them with.
  for (const auto naming : {election_naming::latch, election_naming::lock, election_naming::kazoo}) {
    const std::string name = election_node_prefix(naming, make_election_guid(naming, seeded)) + seq(12);
    EXPECT_EQ(election_naming_of(name), naming) << name;
  }
  // A seeded source replays its guids.
  EXPECT_EQ(make_election_guid(election_naming::latch, guid_source::seeded(7)), uuid);
}

TEST(election_order, CuratorRulesSortByTheTextAfterTheirLastMarker) {
  const std::vector<std::string> children = {latch(uuid_a, 3), latch(uuid_b, 1), selector(uuid_a, 2), "zz",
                                             kazoo(hex_k, 4)};
  // LeaderLatch: latch keys first (digits), then whole names: "_c_..." (0x5F) before "fa51..." before "zz".
  EXPECT_EQ(peer_order(election_naming::latch, children),
            (std::vector<std::string>{latch(uuid_b, 1), latch(uuid_a, 3), selector(uuid_a, 2), kazoo(hex_k, 4), "zz"}));
  // LeaderSelector: the lock- key first; the latch names' whole names start with "_c_0b6b" and "_c_7c1d".
  EXPECT_EQ(peer_order(election_naming::lock, children),
            (std::vector<std::string>{selector(uuid_a, 2), latch(uuid_a, 3), latch(uuid_b, 1), kazoo(hex_k, 4), "zz"}));
  EXPECT_EQ(peer_leader(election_naming::latch, children), latch(uuid_b, 1));
  EXPECT_EQ(peer_leader(election_naming::lock, children), selector(uuid_a, 2));
  // The key is the text after the LAST marker.
  EXPECT_EQ(peer_order(election_naming::latch, {"_c_u-latch-9-latch-" + seq(2), latch(uuid_a, 5)}).front(),
            "_c_u-latch-9-latch-" + seq(2));
}

TEST(election_order, JavaOrderIsUtf16) {
  // U+FF5E (3 bytes in UTF-8, one UTF-16 unit 0xFF5E) against U+1F600 (4 bytes, surrogates 0xD83D 0xDE00): by
  // bytes U+1F600 sorts last, by Java's UTF-16 units it sorts first.
  const std::string fullwidth = "\xEF\xBD\x9E";
  const std::string emoji = "\xF0\x9F\x98\x80";
  EXPECT_EQ(peer_order(election_naming::latch, {fullwidth, emoji}), (std::vector<std::string>{emoji, fullwidth}));
}

TEST(election_order, KazooCountsOnlyItsPatternAndSortsTheDigitsAsText) {
  const std::vector<std::string> children = {
      kazoo("h1", 5),
      "h2__lock__-2147483648",  // '-' and ten digits: counted, and '-' sorts before digits
      "h3__lock__-000000001",   // '-' and nine digits (a wrapped counter near zero): not counted
      "h4__lock__00000000012",  // eleven digits: not counted
      latch(uuid_a, 1),         // Curator's: ignored
      "h5__rlock__0000000002",  // Kazoo's readers: not an election contender
  };
  EXPECT_EQ(peer_order(election_naming::kazoo, children),
            (std::vector<std::string>{"h2__lock__-2147483648", kazoo("h1", 5)}));
  EXPECT_EQ(peer_leader(election_naming::kazoo, {latch(uuid_a, 1)}), std::nullopt);
}

TEST(election_order, OneNamingTheLowestLeadsAndEachWaitsForTheOneBefore) {
  for (const auto naming : {election_naming::latch, election_naming::lock, election_naming::kazoo}) {
    const auto make = [&](const std::string& tag, std::int64_t n) {
      return naming == election_naming::kazoo ? kazoo(hex_k + tag, n)
                                              : election_node_prefix(naming, uuid_a + tag) + seq(n);
    };
    const std::vector<std::string> children = {make("3", 30), make("1", 10), make("2", 20)};
    const auto first = decide_leadership(naming, children, make("1", 10));
    EXPECT_TRUE(first.found && first.leads);
    EXPECT_EQ(first.ahead, 0U);
    EXPECT_EQ(first.wait_for, std::nullopt);
    const auto third = decide_leadership(naming, children, make("3", 30));
    EXPECT_FALSE(third.leads);
    EXPECT_EQ(third.ahead, 2U);
    EXPECT_EQ(third.wait_for, make("2", 20));  // only the one right before: one waiter wakes per change
    EXPECT_EQ(peer_leader(naming, children), make("1", 10));
    EXPECT_FALSE(decide_leadership(naming, children, make("9", 90)).found);
  }
}

TEST(election_order, NeverLeadsWhileAContenderOfAnyFamilyIsAhead) {
  // A LeaderLatch here would lead (its rule puts our latch node first): zkwire waits for the Kazoo leader.
  const std::vector<std::string> mixed = {kazoo(hex_k, 1), latch(uuid_a, 2)};
  EXPECT_EQ(peer_leader(election_naming::latch, mixed), latch(uuid_a, 2));
  auto d = decide_leadership(election_naming::latch, mixed, latch(uuid_a, 2));
  EXPECT_FALSE(d.leads);
  EXPECT_EQ(d.ahead, 1U);
  EXPECT_EQ(d.wait_for, kazoo(hex_k, 1));
  // And the other way round: Kazoo's Election ignores the latch node ahead; zkwire with kazoo naming does not.
  d = decide_leadership(election_naming::kazoo, {latch(uuid_a, 1), kazoo(hex_k, 2)}, kazoo(hex_k, 2));
  EXPECT_FALSE(d.leads);
  EXPECT_EQ(d.wait_for, latch(uuid_a, 1));
  // Lock nodes of other recipes count too: a read lock's, ZooKeeper's recipe's.
  for (const std::string& ahead : {"_c_" + std::string(uuid_b) + "-__READ__" + seq(1), "x-1234-" + seq(1)}) {
    d = decide_leadership(election_naming::lock, {ahead, selector(uuid_a, 2)}, selector(uuid_a, 2));
    EXPECT_FALSE(d.leads) << ahead;
    EXPECT_EQ(d.wait_for, ahead);
  }
  // Foreign siblings do not, unless the peer's own rule ranks them first.
  d = decide_leadership(election_naming::kazoo, {"config", kazoo(hex_k, 2)}, kazoo(hex_k, 2));
  EXPECT_TRUE(d.leads);
}

TEST(election_order, ThePeerRuleDecidesToo) {
  // LeaderLatch sorts a stray "-x" (whole name) before every ten-digit key and waits for it: so do we.
  auto d = decide_leadership(election_naming::latch, {"-x", latch(uuid_a, 1)}, latch(uuid_a, 1));
  EXPECT_FALSE(d.leads);
  EXPECT_EQ(d.ahead, 0U);
  EXPECT_EQ(d.wait_for, "-x");
  // A child ranked equal to ours by the peer (its stable sort would follow the server's listing order) counts as
  // ahead.
  d = decide_leadership(election_naming::latch, {seq(5), latch(uuid_a, 5)}, latch(uuid_a, 5));
  EXPECT_FALSE(d.leads);
  EXPECT_EQ(d.wait_for, seq(5));
}

TEST(election_order, AfterTheCounterWrapsNeitherOrderIsOverruled) {
  // Sequence order (serial arithmetic) puts 2147483647 first; Curator's and Kazoo's text order put "-2147483648"
  // first. zkwire leads on neither node, rather than against one of the orders.
  for (const auto naming : {election_naming::latch, election_naming::kazoo}) {
    const std::string before_wrap =
        naming == election_naming::kazoo ? kazoo("a1", 2147483647) : latch(uuid_a, 2147483647);
    const std::string after_wrap =
        naming == election_naming::kazoo ? "b2__lock__-2147483648" : "_c_" + std::string(uuid_b) + "-latch--2147483648";
    const std::vector<std::string> children = {before_wrap, after_wrap};
    EXPECT_FALSE(decide_leadership(naming, children, before_wrap).leads);
    EXPECT_FALSE(decide_leadership(naming, children, after_wrap).leads);
    EXPECT_EQ(peer_leader(naming, children), after_wrap);
    const auto view = view_election(children);
    ASSERT_EQ(view.order.size(), 2U);
    EXPECT_EQ(view.order[0].name, before_wrap);
    EXPECT_EQ(view.leader, std::nullopt);
    EXPECT_EQ(view.also_leading, std::vector<std::size_t>{1});
  }
}

TEST(election_order, KazooTakesTheLastContenderForThePredecessorOfAnUncountedNode) {
  // Our kazoo-named node with a nine-digit wrapped suffix is no contender to Kazoo's pattern; Kazoo's Lock then
  // waits for the last contender it counts, and so do we.
  const std::string ours = "a1__lock__-000000005";
  const auto d = decide_leadership(election_naming::kazoo, {ours, kazoo("b2", 1)}, ours);
  EXPECT_FALSE(d.leads);
  EXPECT_EQ(d.wait_for, kazoo("b2", 1));
  EXPECT_TRUE(decide_leadership(election_naming::kazoo, {ours}, ours).leads);
}

TEST(election_order, ViewOfAMixedPathNamesTheLeaderAndThePeersThatLeadBeside) {
  const std::vector<std::string> children = {"config", latch(uuid_a, 4), selector(uuid_b, 3), latch(uuid_b, 2),
                                             kazoo(hex_k, 1)};
  const auto view = view_election(children);
  ASSERT_EQ(view.order.size(), 4U);  // "config" is no participant
  EXPECT_EQ(view.order[0].name, kazoo(hex_k, 1));
  EXPECT_EQ(view.leader, 0U);
  // LeaderLatch's rule puts latch 2 first, LeaderSelector's puts the selector first: each would lead beside Kazoo's.
  EXPECT_EQ(view.also_leading, (std::vector<std::size_t>{1, 2}));
  EXPECT_EQ(view.order[1].name, latch(uuid_b, 2));
  EXPECT_EQ(view.order[2].name, selector(uuid_b, 3));
  EXPECT_TRUE(view_election({}).order.empty());
  EXPECT_EQ(view_election({"config"}).leader, std::nullopt);
}

// Random listings: with one naming (and foreign siblings that sort after the keys), exactly one node leads, the
// peer's leader, the lowest sequence; each other node waits for the one right before it. With mixed namings, at
// most one node leads by zkwire's decision, and only the lowest sequence.
TEST(election_order, RandomListingsElectOneLeader) {
  std::mt19937_64 rng(20240601);
  const election_naming namings[] = {election_naming::latch, election_naming::lock, election_naming::kazoo};
  for (int round = 0; round < 600; ++round) {
    const bool mixed = round % 2 == 1;
    const auto one = namings[round % 3];
    const std::size_t count = 1 + rng() % 8;
    std::vector<std::int64_t> sequences;
    auto next = static_cast<std::int64_t>(rng() % 1000000000);
    for (std::size_t i = 0; i < count; ++i) sequences.push_back(next += 1 + static_cast<std::int64_t>(rng() % 5));
    std::vector<std::string> children;
    std::vector<election_naming> child_naming;
    for (std::size_t i = 0; i < count; ++i) {
      const auto n = mixed ? namings[rng() % 3] : one;
      const std::string tag = std::to_string(rng() % 100000);
      children.push_back(n == election_naming::kazoo ? kazoo(hex_k + tag, sequences[i])
                                                     : election_node_prefix(n, uuid_a + tag) + seq(sequences[i]));
      child_naming.push_back(n);
    }
    if (rng() % 2 == 0) children.emplace_back("zk-config");
    std::vector<std::size_t> shuffled(children.size());
    for (std::size_t i = 0; i < shuffled.size(); ++i) shuffled[i] = i;
    std::shuffle(shuffled.begin(), shuffled.end(), rng);
    std::vector<std::string> listing;
    for (const auto i : shuffled) listing.push_back(children[i]);

    int leaders = 0;
    for (std::size_t i = 0; i < count; ++i) {
      const auto d = decide_leadership(child_naming[i], listing, children[i]);
      ASSERT_TRUE(d.found);
      if (d.leads) {
        ++leaders;
        EXPECT_EQ(i, 0U) << "a node led with a lower sequence listed";
      }
      if (!mixed) {
        EXPECT_EQ(d.leads, i == 0);
        if (i > 0) EXPECT_EQ(d.wait_for, children[i - 1]);
      }
    }
    EXPECT_LE(leaders, 1);
    if (!mixed) {
      EXPECT_EQ(leaders, 1);
      EXPECT_EQ(peer_leader(one, listing), children[0]);
      const auto view = view_election(listing);
      EXPECT_EQ(view.leader, 0U);
      EXPECT_TRUE(view.also_leading.empty());
    }
  }
}

}  // namespace
}  // namespace zkwire::recipes
