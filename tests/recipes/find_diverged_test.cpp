// recipes::find_diverged, the pure part of the diverged-member check (docs/design.md#diverged-member): which of the
// nodes a member shows a majority of the members' listings lacks, and when a majority cannot be told.

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "zkwire/recipes/member_views.hpp"

namespace zkwire::recipes {
namespace {

member_view listing(std::vector<std::string> children) {
  member_view v;
  v.exists = true;
  v.children = std::move(children);
  return v;
}

member_view unreachable() {
  member_view v;
  v.error = make_error_code(client_errc::connect_timeout);
  return v;
}

TEST(FindDiverged, ANodeAMajorityLacksIsNamedWithItsCounts) {
  const std::vector<member_view> views = {listing({"a", "b"}), listing({"a"}), listing({"a"})};
  const auto found = find_diverged({"a", "b"}, views);
  ASSERT_EQ(found.size(), 1U);
  EXPECT_EQ(found[0].name, "b");
  EXPECT_EQ(found[0].listed_by, 1U);
  EXPECT_EQ(found[0].answered, 3U);
  EXPECT_EQ(found[0].members, 3U);
}

TEST(FindDiverged, ANodeAMajorityListsIsNot) {
  // Two of three list it: the member without it is the odd one (or behind), not the reader's.
  EXPECT_TRUE(find_diverged({"b"}, {listing({"b"}), listing({"b"}), listing({})}).empty());
}

TEST(FindDiverged, AnUnreachableMemberIsNoAnswer) {
  // Two answer and both lack it: a majority of three.
  EXPECT_EQ(find_diverged({"b"}, {unreachable(), listing({}), listing({})}).size(), 1U);
  // One answer without it is no majority.
  EXPECT_TRUE(find_diverged({"b"}, {unreachable(), unreachable(), listing({})}).empty());
  // Two answer, one lists it: one without it is no majority either.
  EXPECT_TRUE(find_diverged({"b"}, {unreachable(), listing({"b"}), listing({})}).empty());
}

TEST(FindDiverged, FiveMembersNeedThreeWithout) {
  const std::vector<member_view> two_without = {listing({"b"}), listing({"b"}), listing({"b"}), listing({}),
                                                listing({})};
  EXPECT_TRUE(find_diverged({"b"}, two_without).empty());
  const std::vector<member_view> three_without = {listing({"b"}), listing({"b"}), listing({}), listing({}),
                                                  listing({})};
  EXPECT_EQ(find_diverged({"b"}, three_without).size(), 1U);
}

}  // namespace
}  // namespace zkwire::recipes
