// The lock node-name parser and ordering (recipes/node_name.hpp): every known family, wrap-around, foreign
// siblings, and the names we create.

#include "zkwire/recipes/node_name.hpp"

#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

namespace zkwire::recipes {
namespace {

TEST(node_name, ParsesCuratorExclusive) {
  const auto n = parse_node_name("_c_0b6b5a60-3d3a-4b0e-9d8a-6b2f1c2d3e4f-lock-0000000042");
  EXPECT_EQ(n.kind, contender_kind::exclusive);
  EXPECT_EQ(n.family, node_family::curator);
  EXPECT_EQ(n.sequence, 42);
  EXPECT_EQ(n.guid, "0b6b5a60-3d3a-4b0e-9d8a-6b2f1c2d3e4f");
  EXPECT_EQ(n.prefix, "_c_0b6b5a60-3d3a-4b0e-9d8a-6b2f1c2d3e4f-lock-");
}

TEST(node_name, ParsesCuratorReadAndWrite) {
  const auto r = parse_node_name("_c_0b6b5a60-3d3a-4b0e-9d8a-6b2f1c2d3e4f-__READ__0000000007");
  EXPECT_EQ(r.kind, contender_kind::read);
  EXPECT_EQ(r.family, node_family::curator);
  EXPECT_EQ(r.sequence, 7);
  EXPECT_EQ(r.guid, "0b6b5a60-3d3a-4b0e-9d8a-6b2f1c2d3e4f");
  const auto w = parse_node_name("_c_0b6b5a60-3d3a-4b0e-9d8a-6b2f1c2d3e4f-__WRIT__0000000008");
  EXPECT_EQ(w.kind, contender_kind::write);
  EXPECT_EQ(w.sequence, 8);
}

TEST(node_name, ParsesUnprotectedCuratorName) {
  const auto n = parse_node_name("lock-0000000003");
  EXPECT_EQ(n.kind, contender_kind::exclusive);
  EXPECT_EQ(n.sequence, 3);
  EXPECT_EQ(n.guid, "");
}

TEST(node_name, ParsesGoZookeeper) {
  const auto n = parse_node_name("_c_0123456789abcdef0123456789abcdef-lock-0000000005");
  EXPECT_EQ(n.kind, contender_kind::exclusive);
  EXPECT_EQ(n.family, node_family::go);
  EXPECT_EQ(n.sequence, 5);
  EXPECT_EQ(n.guid, "0123456789abcdef0123456789abcdef");
}

TEST(node_name, ParsesKazoo) {
  const auto l = parse_node_name("0123456789abcdef0123456789abcdef__lock__0000000011");
  EXPECT_EQ(l.kind, contender_kind::exclusive);
  EXPECT_EQ(l.family, node_family::kazoo);
  EXPECT_EQ(l.sequence, 11);
  EXPECT_EQ(l.guid, "0123456789abcdef0123456789abcdef");
  EXPECT_EQ(l.prefix, "0123456789abcdef0123456789abcdef__lock__");
  const auto r = parse_node_name("0123456789abcdef0123456789abcdef__rlock__0000000012");
  EXPECT_EQ(r.kind, contender_kind::read);
  EXPECT_EQ(r.family, node_family::kazoo);
  EXPECT_EQ(r.sequence, 12);
}

TEST(node_name, ParsesZooKeeperRecipes) {
  const auto java = parse_node_name("x-72057594037927936-0000000004");  // decimal session id
  EXPECT_EQ(java.kind, contender_kind::exclusive);
  EXPECT_EQ(java.family, node_family::zookeeper_recipe);
  EXPECT_EQ(java.sequence, 4);
  EXPECT_EQ(java.guid, "72057594037927936");
  const auto c = parse_node_name("x-0100000a4f2b0003-0000000009");  // %016lx
  EXPECT_EQ(c.family, node_family::zookeeper_recipe);
  EXPECT_EQ(c.sequence, 9);
  EXPECT_EQ(c.guid, "0100000a4f2b0003");
}

TEST(node_name, ParsesCuratorLatchAsExclusive) {
  const auto n = parse_node_name("_c_0b6b5a60-3d3a-4b0e-9d8a-6b2f1c2d3e4f-latch-0000000001");
  EXPECT_EQ(n.kind, contender_kind::exclusive);
  EXPECT_EQ(n.sequence, 1);
}

TEST(node_name, ParsesWrappedSequences) {
  EXPECT_EQ(parse_node_name("_c_g-lock--2147483648").sequence, -2147483648);
  EXPECT_EQ(parse_node_name("abc__lock__-2147483647").sequence, -2147483647);
  EXPECT_EQ(parse_node_name("x-123--000000005").sequence, -5);  // Java's %010d of -5
  EXPECT_EQ(parse_node_name("x-123--000000005").guid, "123");
  EXPECT_EQ(parse_node_name("_c_g-lock-2147483647").sequence, 2147483647);
}

TEST(node_name, RejectsBadSuffixesAsForeign) {
  for (const char* name : {"lock-", "lock-123", "lock-00000000001", "lock-2147483648", "lock--2147483649",
                           "_c_x-lock-00000000a1", "x--0000000001", "x-zz-0000000001", "leader", "", "__lock__",
                           "readme-0000000001", "x-12-", "_c_u-__READ__12"}) {
    const auto n = parse_node_name(name);
    EXPECT_EQ(n.kind, contender_kind::foreign) << name;
    EXPECT_FALSE(n.is_contender()) << name;
  }
}

TEST(node_name, ParseSequence) {
  EXPECT_EQ(parse_sequence("0000000000"), 0);
  EXPECT_EQ(parse_sequence("2147483647"), 2147483647);
  EXPECT_EQ(parse_sequence("-2147483648"), -2147483648);
  EXPECT_EQ(parse_sequence("-000000001"), -1);
  EXPECT_FALSE(parse_sequence("2147483648"));
  EXPECT_FALSE(parse_sequence("000000001"));
  EXPECT_FALSE(parse_sequence("+000000001"));
  EXPECT_FALSE(parse_sequence("-"));
  // Exactly what the server's "%010d" prints (the sign counts in the width), which C's printf prints alike.
  for (const std::int32_t v : {0, 1, 999999999, 1000000000, 2147483647, -1, -999999999, -1000000000, -2147483647,
                               std::numeric_limits<std::int32_t>::min()}) {
    std::array<char, 16> printed{};
    ASSERT_GT(std::snprintf(printed.data(), printed.size(), "%010d", v), 0);
    EXPECT_EQ(parse_sequence(printed.data()), v) << printed.data();
  }
  EXPECT_FALSE(parse_sequence("-0000000001"));  // never printed: the padding would make 11 characters
  EXPECT_FALSE(parse_sequence("-00000001"));
  EXPECT_FALSE(parse_sequence("-2147483649"));
}

TEST(node_name, SequenceOrderWrapsAround) {
  EXPECT_TRUE(sequence_before(1, 2));
  EXPECT_FALSE(sequence_before(2, 1));
  EXPECT_FALSE(sequence_before(5, 5));
  EXPECT_TRUE(sequence_before(2147483647, -2147483648));
  EXPECT_FALSE(sequence_before(-2147483648, 2147483647));
  EXPECT_TRUE(sequence_before(-1, 0));
  EXPECT_TRUE(sequence_before(2147483000, -2147483000));
}

std::vector<std::string> names_of(const std::vector<node_name>& sorted) {
  std::vector<std::string> names;
  names.reserve(sorted.size());
  for (const auto& n : sorted) names.push_back(n.name);
  return names;
}

TEST(node_name, SortsMixedFamiliesBySequenceAndForeignLast) {
  const std::vector<std::string> children{
      "zookeeper-stats",
      "abc__lock__0000000004",
      "_c_0b6b5a60-3d3a-4b0e-9d8a-6b2f1c2d3e4f-lock-0000000002",
      "x-72057594037927936-0000000003",
      "_c_0123456789abcdef0123456789abcdef-lock-0000000001",
      "_c_0b6b5a60-3d3a-4b0e-9d8a-6b2f1c2d3e4f-__READ__0000000005",
      "another-foreign",
  };
  EXPECT_EQ(names_of(sort_in_lock_order(children)),
            (std::vector<std::string>{"_c_0123456789abcdef0123456789abcdef-lock-0000000001",
                                      "_c_0b6b5a60-3d3a-4b0e-9d8a-6b2f1c2d3e4f-lock-0000000002",
                                      "x-72057594037927936-0000000003", "abc__lock__0000000004",
                                      "_c_0b6b5a60-3d3a-4b0e-9d8a-6b2f1c2d3e4f-__READ__0000000005", "another-foreign",
                                      "zookeeper-stats"}));
}

TEST(node_name, SortsAcrossTheWrap) {
  const std::vector<std::string> children{"_c_d-lock--2147483647", "_c_a-lock-2147483646", "_c_c-lock--2147483648",
                                          "_c_b-lock-2147483647"};
  EXPECT_EQ(names_of(sort_in_lock_order(children)),
            (std::vector<std::string>{"_c_a-lock-2147483646", "_c_b-lock-2147483647", "_c_c-lock--2147483648",
                                      "_c_d-lock--2147483647"}));
  // Whatever element the order is computed from, the result is the same.
  const std::vector<std::string> reversed{children.rbegin(), children.rend()};
  EXPECT_EQ(names_of(sort_in_lock_order(reversed)), names_of(sort_in_lock_order(children)));
}

TEST(node_name, SortsFromZeroAgainAfterTheNegativeRange) {
  const std::vector<std::string> children{"_c_b-lock-0000000000", "_c_a-lock--000000001", "_c_c-lock-0000000001"};
  EXPECT_EQ(names_of(sort_in_lock_order(children)),
            (std::vector<std::string>{"_c_a-lock--000000001", "_c_b-lock-0000000000", "_c_c-lock-0000000001"}));
}

TEST(node_name, MakesCuratorAndKazooNames) {
  const auto uuid = make_guid(naming::curator);
  ASSERT_EQ(uuid.size(), 36U);
  EXPECT_EQ(uuid[8], '-');
  EXPECT_EQ(uuid[14], '4');
  EXPECT_NE(make_guid(naming::curator), uuid);
  const auto hex = make_guid(naming::kazoo);
  ASSERT_EQ(hex.size(), 32U);
  EXPECT_EQ(hex.find_first_not_of("0123456789abcdef"), std::string::npos);

  EXPECT_EQ(node_prefix(naming::curator, lock_kind::exclusive, uuid), "_c_" + uuid + "-lock-");
  EXPECT_EQ(node_prefix(naming::curator, lock_kind::read, uuid), "_c_" + uuid + "-__READ__");
  EXPECT_EQ(node_prefix(naming::curator, lock_kind::write, uuid), "_c_" + uuid + "-__WRIT__");
  EXPECT_EQ(node_prefix(naming::kazoo, lock_kind::exclusive, hex), hex + "__lock__");
  EXPECT_EQ(node_prefix(naming::kazoo, lock_kind::read, hex), hex + "__rlock__");
  EXPECT_EQ(node_prefix(naming::kazoo, lock_kind::write, hex), hex + "__lock__");
  EXPECT_EQ(lease_prefix(uuid), "_c_" + uuid + "-lease-");
}

// A seeded source replays its guids (lock_options::guids, for a run that must replay exactly); copies share one
// sequence; the default source stays random.
TEST(node_name, SeededGuidSourcesReplayTheirGuids) {
  const auto a = guid_source::seeded(42);
  const auto b = guid_source::seeded(42);
  const auto first = make_guid(naming::curator, a);
  EXPECT_EQ(make_guid(naming::curator, b), first);
  EXPECT_EQ(first[14], '4');
  const auto copy = a;
  EXPECT_NE(make_guid(naming::curator, copy), first) << "a copy goes on with the same sequence";
  EXPECT_NE(make_guid(naming::kazoo, guid_source::seeded(43)), make_guid(naming::kazoo, guid_source::seeded(42)));
  EXPECT_FALSE(guid_source{}.is_seeded());
  EXPECT_NE(make_guid(naming::curator, guid_source{}), make_guid(naming::curator, guid_source{}));
}

TEST(node_name, OurOwnNamesParseBackWithTheirGuid) {
  for (const auto format : {naming::curator, naming::kazoo}) {
    for (const auto kind : {lock_kind::exclusive, lock_kind::read, lock_kind::write}) {
      const auto guid = make_guid(format);
      const auto prefix = node_prefix(format, kind, guid);
      const auto n = parse_node_name(prefix + "0000000123");
      EXPECT_TRUE(n.is_contender());
      EXPECT_EQ(n.guid, guid);
      EXPECT_EQ(n.prefix, prefix);
      EXPECT_EQ(n.sequence, 123);
      EXPECT_TRUE(has_prefix_and_sequence(prefix + "0000000123", prefix));
      EXPECT_TRUE(has_prefix_and_sequence(prefix + "-2147483648", prefix));
      EXPECT_FALSE(has_prefix_and_sequence(prefix + "x", prefix));
      const auto expected = kind == lock_kind::read                                 ? contender_kind::read
                            : kind == lock_kind::write && format == naming::curator ? contender_kind::write
                                                                                    : contender_kind::exclusive;
      EXPECT_EQ(n.kind, expected);
    }
  }
}

TEST(node_name, Names) {
  EXPECT_EQ(contender_kind_name(contender_kind::exclusive), "exclusive");
  EXPECT_EQ(contender_kind_name(contender_kind::read), "read");
  EXPECT_EQ(contender_kind_name(contender_kind::write), "write");
  EXPECT_EQ(contender_kind_name(contender_kind::foreign), "foreign");
  EXPECT_EQ(node_family_name(node_family::zookeeper_recipe), "zookeeper");
}

}  // namespace
}  // namespace zkwire::recipes
