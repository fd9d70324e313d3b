// Constants of the wire protocol (docs/protocol.md): opcodes, xids, create modes, permissions, watch enums, record
// sizes. Values are static_asserts (a wrong constant does not build); the run-time tests cover the functions over them.

#include <gtest/gtest.h>

#include <string>

#include "zkwire/proto/proto.hpp"

namespace zkwire::proto {
namespace {

template <class E>
constexpr std::int32_t v(E e) {
  return static_cast<std::int32_t>(e);
}

static_assert(v(op_code::notification) == 0);
static_assert(v(op_code::create) == 1);
static_assert(v(op_code::delete_) == 2);
static_assert(v(op_code::exists) == 3);
static_assert(v(op_code::get_data) == 4);
static_assert(v(op_code::set_data) == 5);
static_assert(v(op_code::get_acl) == 6);
static_assert(v(op_code::set_acl) == 7);
static_assert(v(op_code::get_children) == 8);
static_assert(v(op_code::sync) == 9);
static_assert(v(op_code::ping) == 11);
static_assert(v(op_code::get_children2) == 12);
static_assert(v(op_code::check) == 13);
static_assert(v(op_code::multi) == 14);
static_assert(v(op_code::create2) == 15);
static_assert(v(op_code::reconfig) == 16);
static_assert(v(op_code::check_watches) == 17);
static_assert(v(op_code::remove_watches) == 18);
static_assert(v(op_code::create_container) == 19);
static_assert(v(op_code::delete_container) == 20);
static_assert(v(op_code::create_ttl) == 21);
static_assert(v(op_code::multi_read) == 22);
static_assert(v(op_code::auth) == 100);
static_assert(v(op_code::set_watches) == 101);
static_assert(v(op_code::sasl) == 102);
static_assert(v(op_code::get_ephemerals) == 103);
static_assert(v(op_code::get_all_children_number) == 104);
static_assert(v(op_code::set_watches2) == 105);
static_assert(v(op_code::add_watch) == 106);
static_assert(v(op_code::who_am_i) == 107);
static_assert(v(op_code::create_session) == -10);
static_assert(v(op_code::close_session) == -11);
static_assert(v(op_code::error) == -1);

TEST(op_codes, names) {
  EXPECT_EQ(op_code_name(op_code::get_data), "getData");
  EXPECT_EQ(op_code_name(op_code::delete_), "delete");
  EXPECT_EQ(op_code_name(op_code::create_ttl), "createTTL");
  EXPECT_EQ(op_code_name(op_code::close_session), "closeSession");
  EXPECT_EQ(op_code_name(static_cast<op_code>(10)), "unknown");
  EXPECT_TRUE(is_known_op_code(107));
  EXPECT_TRUE(is_known_op_code(-11));
  EXPECT_FALSE(is_known_op_code(10));
  EXPECT_FALSE(is_known_op_code(23));
  EXPECT_FALSE(is_known_op_code(108));
}

TEST(op_codes, multi_membership) {
  for (op_code op : {op_code::create, op_code::create2, op_code::create_ttl, op_code::create_container,
                     op_code::delete_, op_code::set_data, op_code::check}) {
    EXPECT_TRUE(is_multi_write_op(op)) << op_code_name(op);
    EXPECT_FALSE(is_multi_read_op(op)) << op_code_name(op);
  }
  for (op_code op : {op_code::get_children, op_code::get_data}) {
    EXPECT_TRUE(is_multi_read_op(op));
    EXPECT_FALSE(is_multi_write_op(op));
  }
  for (op_code op : {op_code::exists, op_code::get_children2, op_code::multi, op_code::sync, op_code::get_acl}) {
    EXPECT_FALSE(is_multi_read_op(op) || is_multi_write_op(op)) << op_code_name(op);
  }
}

static_assert(special_xid::notification == -1);
static_assert(special_xid::ping == -2);
static_assert(special_xid::auth == -4);
static_assert(special_xid::set_watches == -8);

static_assert(v(create_mode::persistent) == 0);
static_assert(v(create_mode::ephemeral) == 1);
static_assert(v(create_mode::persistent_sequential) == 2);
static_assert(v(create_mode::ephemeral_sequential) == 3);
static_assert(v(create_mode::container) == 4);
static_assert(v(create_mode::persistent_with_ttl) == 5);
static_assert(v(create_mode::persistent_sequential_with_ttl) == 6);

TEST(create_modes, values_and_predicates) {
  struct row {
    create_mode mode;
    bool ephemeral, sequential, ttl, container;
    op_code op;
  };
  const row rows[] = {
      {create_mode::persistent, false, false, false, false, op_code::create2},
      {create_mode::ephemeral, true, false, false, false, op_code::create2},
      {create_mode::persistent_sequential, false, true, false, false, op_code::create2},
      {create_mode::ephemeral_sequential, true, true, false, false, op_code::create2},
      {create_mode::container, false, false, false, true, op_code::create_container},
      {create_mode::persistent_with_ttl, false, false, true, false, op_code::create_ttl},
      {create_mode::persistent_sequential_with_ttl, false, true, true, false, op_code::create_ttl},
  };
  for (const auto& r : rows) {
    SCOPED_TRACE(v(r.mode));
    EXPECT_TRUE(is_valid_create_mode(r.mode));
    EXPECT_EQ(is_ephemeral(r.mode), r.ephemeral);
    EXPECT_EQ(is_sequential(r.mode), r.sequential);
    EXPECT_EQ(is_ttl(r.mode), r.ttl);
    EXPECT_EQ(is_container(r.mode), r.container);
    EXPECT_EQ(create_opcode(r.mode), r.op);
    EXPECT_TRUE(is_valid_create(r.op, r.mode, r.ttl ? 1000 : -1));
  }
  EXPECT_FALSE(is_valid_create_mode(static_cast<create_mode>(7)));
  EXPECT_FALSE(is_valid_create_mode(static_cast<create_mode>(-1)));
  static_assert(create_opcode(create_mode::container) == op_code::create_container);
}

static_assert(max_ttl_ms == 1099511627775);

TEST(create_modes, opcode_and_mode_must_agree) {
  EXPECT_TRUE(is_valid_create(op_code::create, create_mode::ephemeral));
  EXPECT_FALSE(is_valid_create(op_code::create2, create_mode::container));
  EXPECT_FALSE(is_valid_create(op_code::create2, create_mode::persistent_with_ttl, 100));
  EXPECT_FALSE(is_valid_create(op_code::create_container, create_mode::persistent));
  EXPECT_FALSE(is_valid_create(op_code::create_ttl, create_mode::persistent, 100));
  EXPECT_FALSE(is_valid_create(op_code::create_ttl, create_mode::persistent_with_ttl, 0));
  EXPECT_TRUE(is_valid_create(op_code::create_ttl, create_mode::persistent_with_ttl, min_ttl_ms));
  EXPECT_TRUE(is_valid_create(op_code::create_ttl, create_mode::persistent_with_ttl, max_ttl_ms));
  EXPECT_FALSE(is_valid_create(op_code::create_ttl, create_mode::persistent_with_ttl, max_ttl_ms + 1));
  EXPECT_FALSE(is_valid_create(op_code::set_data, create_mode::persistent));
}

static_assert(perms::read == 1);
static_assert(perms::write == 2);
static_assert(perms::create == 4);
static_assert(perms::delete_ == 8);
static_assert(perms::admin == 16);
static_assert(perms::all == (perms::read | perms::write | perms::create | perms::delete_ | perms::admin));

static_assert(v(event_type::none) == -1);
static_assert(v(event_type::node_created) == 1);
static_assert(v(event_type::node_deleted) == 2);
static_assert(v(event_type::node_data_changed) == 3);
static_assert(v(event_type::node_children_changed) == 4);
static_assert(v(event_type::data_watch_removed) == 5);
static_assert(v(event_type::child_watch_removed) == 6);
static_assert(v(event_type::persistent_watch_removed) == 7);
static_assert(v(keeper_state::unknown) == -1);
static_assert(v(keeper_state::disconnected) == 0);
static_assert(v(keeper_state::no_sync_connected) == 1);
static_assert(v(keeper_state::sync_connected) == 3);
static_assert(v(keeper_state::auth_failed) == 4);
static_assert(v(keeper_state::connected_read_only) == 5);
static_assert(v(keeper_state::sasl_authenticated) == 6);
static_assert(v(keeper_state::expired) == -112);
static_assert(v(keeper_state::closed) == 7);
static_assert(v(watcher_type::children) == 1);
static_assert(v(watcher_type::data) == 2);
static_assert(v(watcher_type::any) == 3);
static_assert(v(add_watch_mode::persistent) == 0);
static_assert(v(add_watch_mode::persistent_recursive) == 1);

static_assert(wire_protocol_version == 0);
static_assert(password_length == 16U);

TEST(handshake, constants_and_expiry_rule) {
  EXPECT_EQ(connect_request{}.passwd, std::string(16, '\0'));

  const connect_request fresh{};
  EXPECT_FALSE(is_session_expired(fresh, connect_response{0, 4000, 0x1234, std::string(16, 'p'), false}));
  EXPECT_TRUE(is_session_expired(fresh, connect_response{0, 0, 0, std::string(16, '\0'), false}));
  connect_request resume{};
  resume.session_id = 0x1234;
  EXPECT_FALSE(is_session_expired(resume, connect_response{0, 4000, 0x1234, std::string(16, 'p'), false}));
  EXPECT_TRUE(is_session_expired(resume, connect_response{0, 4000, 0x9999, std::string(16, 'p'), false}));
  EXPECT_TRUE(is_session_expired(resume, connect_response{0, -1, 0x1234, std::string(16, 'p'), false}));
}

static_assert(stat_size == 68U);
static_assert(request_header_size == 8U);
static_assert(reply_header_size == 16U);
static_assert(multi_header_size == 9U);
static_assert(connect_request_size == 45U);
static_assert(connect_response_size == 37U);

}  // namespace
}  // namespace zkwire::proto

namespace zkwire::proto {
namespace {

TEST(op_codes, all_op_codes_lists_every_known_value_once) {
  std::size_t known = 0;
  for (std::int32_t v = -1000; v <= 1000; ++v) known += is_known_op_code(v) ? 1U : 0U;
  EXPECT_EQ(known, all_op_codes.size());
  for (std::size_t i = 0; i < all_op_codes.size(); ++i) {
    EXPECT_TRUE(is_known_op_code(static_cast<std::int32_t>(all_op_codes[i])));
    for (std::size_t j = i + 1; j < all_op_codes.size(); ++j) EXPECT_NE(all_op_codes[i], all_op_codes[j]);
  }
}

}  // namespace
}  // namespace zkwire::proto
