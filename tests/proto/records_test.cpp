// Every described record (the registry, proto/src/records.hpp): encode -> decode -> equal with its hand-picked
// samples, re-encoding gives the same bytes; and a few exact encodings derived by hand from docs/protocol.md.

#include <gtest/gtest.h>

#include <string>

#include "described_records.hpp"
#include "samples.hpp"
#include "wire_bytes.hpp"
#include "zkwire/proto/proto.hpp"

namespace zkwire::proto {
namespace {

using test::encoded;
using test::samples;
using test::wire_bytes;

template <class T>
class record_round_trip : public ::testing::Test {};

using all_records = test::registry_types<::testing::Types>::type;
TYPED_TEST_SUITE(record_round_trip, all_records);

TYPED_TEST(record_round_trip, encode_decode_equal) {
  for (const TypeParam& original : samples<TypeParam>()) {
    std::string bytes;
    ASSERT_FALSE(encode_append(bytes, original));
    TypeParam decoded{};
    ASSERT_FALSE(decode_exact(bytes, decoded));
    EXPECT_EQ(decoded, original);
    std::string again;
    ASSERT_FALSE(encode_append(again, decoded));
    EXPECT_EQ(again, bytes);
  }
}

TYPED_TEST(record_round_trip, decode_overwrites_previous_contents) {
  const auto values = samples<TypeParam>();
  const TypeParam& last = values.back();
  std::string bytes;
  ASSERT_FALSE(encode_append(bytes, values.front()));
  TypeParam target = last;
  ASSERT_FALSE(decode_exact(bytes, target));
  EXPECT_EQ(target, values.front());
}

TEST(record_bytes, stat_is_68_bytes_in_field_order) {
  const std::string bytes = encoded(test::sample_stat(100));
  EXPECT_EQ(bytes.size(), stat_size);
  EXPECT_EQ(bytes, wire_bytes().stat_seq(100).bytes());
}

TEST(record_bytes, connect_request_is_45_bytes) {
  const connect_request req{0, 0x1122334455667788, 30000, 0, std::string(16, '\0'), false};
  const std::string bytes = encoded(req);
  EXPECT_EQ(bytes.size(), connect_request_size);
  EXPECT_EQ(
      bytes,
      wire_bytes().i32(0).i64(0x1122334455667788).i32(30000).i64(0).str(std::string(16, '\0')).boolean(false).bytes());
}

TEST(record_bytes, connect_response_is_37_bytes_and_36_without_read_only) {
  const connect_response rsp{0, 4000, 0x0100000000000001, std::string(16, '\x11'), true};
  const wire_bytes without = wire_bytes().i32(0).i32(4000).i64(0x0100000000000001).str(std::string(16, '\x11'));
  EXPECT_EQ(encoded(rsp), std::string(without.bytes()) + '\x01');

  connect_response decoded;
  ASSERT_FALSE(decode_connect_response(without, decoded));
  EXPECT_EQ(without.size(), connect_response_size_without_read_only);
  EXPECT_FALSE(decoded.read_only);
  EXPECT_EQ(decoded.session_id, 0x0100000000000001);

  ASSERT_FALSE(decode_connect_response(encoded(rsp), decoded));
  EXPECT_EQ(decoded, rsp);
}

TEST(record_bytes, connect_request_without_read_only_is_accepted_by_the_server_side_decoder) {
  const wire_bytes old = wire_bytes().i32(0).i64(5).i32(10000).i64(77).str(std::string(16, '\x01'));
  EXPECT_EQ(old.size(), connect_request_size_without_read_only);
  connect_request decoded;
  ASSERT_FALSE(decode_connect_request(old, decoded));
  EXPECT_EQ(decoded, (connect_request{0, 5, 10000, 77, std::string(16, '\x01'), false}));
}

TEST(record_bytes, connect_frame_has_a_prefix_and_no_header) {
  std::string out = "keep";
  ASSERT_FALSE(encode_connect_frame(out, connect_request{}));
  EXPECT_EQ(out.size(), 4 + 4 + connect_request_size);
  EXPECT_EQ(out.substr(0, 4), "keep");
  EXPECT_EQ(out.substr(4), wire_bytes().frame(encoded(connect_request{})).bytes());
}

TEST(record_bytes, create_request_keeps_null_data_distinct_from_empty) {
  const create_request with_null{"/a", std::nullopt, open_acl_unsafe(), create_mode::ephemeral};
  const wire_bytes acl_bytes = wire_bytes().i32(1).i32(31).str("world").str("anyone");
  EXPECT_EQ(encoded(with_null), wire_bytes().str("/a").null().raw(acl_bytes).i32(1).bytes());

  create_request with_empty = with_null;
  with_empty.data = std::string();
  EXPECT_EQ(encoded(with_empty), wire_bytes().str("/a").i32(0).raw(acl_bytes).i32(1).bytes());
}

TEST(record_bytes, get_data_response_null_and_empty_data) {
  get_data_response rsp;
  ASSERT_FALSE(decode_exact(wire_bytes().null().stat_seq(1), rsp));
  EXPECT_FALSE(rsp.data.has_value());
  ASSERT_FALSE(decode_exact(wire_bytes().i32(0).stat_seq(1), rsp));
  ASSERT_TRUE(rsp.data.has_value());
  EXPECT_TRUE(rsp.data->empty());
  EXPECT_EQ(rsp.stat, test::sample_stat(1));
}

TEST(record_bytes, common_acls) {
  EXPECT_EQ(open_acl_unsafe(), (std::vector<acl>{{31, {"world", "anyone"}}}));
  EXPECT_EQ(read_acl_unsafe(), (std::vector<acl>{{1, {"world", "anyone"}}}));
  EXPECT_EQ(creator_all_acl(), (std::vector<acl>{{31, {"auth", ""}}}));
}

TEST(record_bytes, watcher_event_and_watch_requests) {
  EXPECT_EQ(encoded(watcher_event{event_type::node_deleted, keeper_state::sync_connected, "/x"}),
            wire_bytes().i32(2).i32(3).str("/x").bytes());
  EXPECT_EQ(encoded(add_watch_request{"/x", add_watch_mode::persistent_recursive}),
            wire_bytes().str("/x").i32(1).bytes());
  EXPECT_EQ(encoded(remove_watches_request{"/x", watcher_type::any}), wire_bytes().str("/x").i32(3).bytes());
  EXPECT_EQ(encoded(set_watches2{9, {"/d"}, {}, {}, {"/p"}, {}}),
            wire_bytes().i64(9).i32(1).str("/d").i32(0).i32(0).i32(1).str("/p").i32(0).bytes());
}

TEST(record_bytes, requests_never_write_null_strings_or_vectors) {
  // Empty vectors and strings are written as length 0, never -1.
  EXPECT_EQ(encoded(set_acl_request{"", {}, -1}), wire_bytes().i32(0).i32(0).i32(-1).bytes());
  EXPECT_EQ(encoded(set_watches{}), wire_bytes().i64(0).i32(0).i32(0).i32(0).bytes());
  EXPECT_EQ(encoded(auth_packet{0, "digest", ""}), wire_bytes().i32(0).str("digest").i32(0).bytes());
}

TEST(record_bytes, reconfig_request_nulls_select_incremental_mode) {
  EXPECT_EQ(encoded(reconfig_request{std::string("server.4=h:1:2"), std::nullopt, std::nullopt, -1}),
            wire_bytes().str("server.4=h:1:2").null().null().i64(-1).bytes());
}

TEST(record_bytes, who_am_i_response) {
  who_am_i_response rsp;
  ASSERT_FALSE(decode_exact(wire_bytes().i32(2).str("digest").str("bob").str("ip").str("127.0.0.1"), rsp));
  EXPECT_EQ(rsp, (who_am_i_response{{{"digest", "bob"}, {"ip", "127.0.0.1"}}}));
}

TEST(record_bytes, null_vectors_and_strings_from_a_peer_read_as_empty) {
  get_children2_response rsp;
  ASSERT_FALSE(decode_exact(wire_bytes().null().stat_seq(0), rsp));
  EXPECT_TRUE(rsp.children.empty());
  create_response created;
  ASSERT_FALSE(decode_exact(wire_bytes().null(), created));
  EXPECT_EQ(created.path, "");
}

}  // namespace
}  // namespace zkwire::proto

namespace zkwire::proto {
namespace {

TEST(watch_names, match_the_java_client) {
  EXPECT_EQ(event_type_name(event_type::node_data_changed), "NodeDataChanged");
  EXPECT_EQ(event_type_name(event_type::none), "None");
  EXPECT_EQ(event_type_name(static_cast<event_type>(42)), "Unknown");
  EXPECT_EQ(keeper_state_name(keeper_state::expired), "Expired");
  EXPECT_EQ(keeper_state_name(keeper_state::sync_connected), "SyncConnected");
  EXPECT_EQ(keeper_state_name(static_cast<keeper_state>(99)), "Unknown");
}

}  // namespace
}  // namespace zkwire::proto
