// The opcode table (op_traits.hpp): lookups, and the facts other layers read from it, pinned op by op so that a
// changed row shows up here and not as a misrouted frame.

#include "zkwire/proto/op_traits.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <set>
#include <string>

namespace zkwire::proto {
namespace {

std::set<op_code> ops_where(bool (*pred)(const op_traits&)) {
  std::set<op_code> out;
  for (const auto& t : op_table) {
    if (pred(t)) out.insert(t.op);
  }
  return out;
}

TEST(op_traits, every_op_code_finds_its_own_row) {
  EXPECT_EQ(op_table.size(), all_op_codes.size());
  for (const op_code op : all_op_codes) {
    const op_traits* t = find_op_traits(op);
    ASSERT_NE(t, nullptr) << static_cast<int>(op);
    EXPECT_EQ(t->op, op);
    EXPECT_EQ(op_code_name(op), t->name);
  }
}

TEST(op_traits, unknown_values_have_no_row) {
  for (const std::int32_t v : {-12, -9, -2, 10, 23, 99, 108, std::numeric_limits<std::int32_t>::min(),
                               std::numeric_limits<std::int32_t>::max()}) {
    EXPECT_EQ(find_op_traits(static_cast<op_code>(v)), nullptr) << v;
    EXPECT_FALSE(is_known_op_code(v)) << v;
    EXPECT_EQ(op_code_name(static_cast<op_code>(v)), "unknown") << v;
  }
}

TEST(op_traits, user_submittable_ops) {
  using o = op_code;
  const std::set<op_code> expected = {o::create,     o::delete_,       o::exists,         o::get_data,
                                      o::set_data,   o::get_acl,       o::set_acl,        o::get_children,
                                      o::sync,       o::get_children2, o::multi,          o::create2,
                                      o::reconfig,   o::check_watches, o::remove_watches, o::create_container,
                                      o::create_ttl, o::multi_read,    o::get_ephemerals, o::get_all_children_number,
                                      o::add_watch,  o::who_am_i};
  EXPECT_EQ(ops_where([](const op_traits& t) { return t.user_submittable; }), expected);
}

TEST(op_traits, request_paths) {
  using o = op_code;
  const std::set<op_code> with_path = {o::create,
                                       o::delete_,
                                       o::exists,
                                       o::get_data,
                                       o::set_data,
                                       o::get_acl,
                                       o::set_acl,
                                       o::get_children,
                                       o::sync,
                                       o::get_children2,
                                       o::check,
                                       o::create2,
                                       o::check_watches,
                                       o::remove_watches,
                                       o::create_container,
                                       o::create_ttl,
                                       o::get_all_children_number,
                                       o::add_watch};
  EXPECT_EQ(ops_where([](const op_traits& t) { return t.path == op_path::path; }), with_path);
  EXPECT_EQ(ops_where([](const op_traits& t) { return t.path == op_path::prefix; }),
            std::set<op_code>{o::get_ephemerals});
}

TEST(op_traits, special_xids) {
  EXPECT_EQ(special_xid_op(special_xid::notification), op_code::notification);
  EXPECT_EQ(special_xid_op(special_xid::ping), op_code::ping);
  EXPECT_EQ(special_xid_op(special_xid::auth), op_code::auth);
  EXPECT_EQ(special_xid_op(special_xid::set_watches), op_code::set_watches);
  for (const std::int32_t xid : {-3, -5, -11, 0, 1, 2, 4, std::numeric_limits<std::int32_t>::min()}) {
    EXPECT_EQ(special_xid_op(xid), std::nullopt) << xid;
  }
  EXPECT_EQ(ops_where([](const op_traits& t) { return t.special_xid != 0; }).size(), 4U);
}

TEST(op_traits, multi_bodies_match_the_request_records) {
  for (const auto& t : op_table) {
    if (t.in_multi == multi_use::none) {
      EXPECT_EQ(t.multi_op_body, std::variant_npos) << t.name;
      continue;
    }
    // The same record type in both variants: decode a multi op the way a standalone request is decoded.
    request_body standalone;
    detail::emplace_index(standalone, t.request_body);
    multi_op_body inner;
    detail::emplace_index(inner, t.multi_op_body);
    std::visit(
        [&](const auto& a, const auto& b) {
          EXPECT_TRUE((std::is_same_v<std::decay_t<decltype(a)>, std::decay_t<decltype(b)>>)) << t.name;
        },
        standalone, inner);
  }
}

TEST(op_traits, multi_result_types) {
  using o = op_code;
  // createTTL and createContainer results come back with type create2; a type the server never sends as a result
  // must be rejected by the decoder.
  const std::set<op_code> expected = {o::error,    o::create, o::create2,      o::delete_,
                                      o::set_data, o::check,  o::get_children, o::get_data};
  EXPECT_EQ(ops_where([](const op_traits& t) { return t.multi_result_body != std::variant_npos; }), expected);
}

}  // namespace
}  // namespace zkwire::proto
