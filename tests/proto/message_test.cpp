// Whole messages: request frames, reply decoding by opcode, notifications, the request/reply variants.

#include <gtest/gtest.h>

#include <string>
#include <variant>

#include "samples.hpp"
#include "wire_bytes.hpp"
#include "zkwire/proto/proto.hpp"

namespace zkwire::proto {
namespace {

using test::wire_bytes;

// A non-default body for each op, valid for that op.
request_body sample_request_body(op_code op) {
  request_body body;
  detail::emplace_index(body, request_body_index(op));
  std::visit(
      [op](auto& b) {
        using T = std::decay_t<decltype(b)>;
        b = test::samples<T>().back();
        if constexpr (std::is_same_v<T, create_request>) {
          b.flags = op == op_code::create_container ? create_mode::container : create_mode::persistent_sequential;
        } else if constexpr (std::is_same_v<T, multi_request>) {
          b = test::samples<multi_request>()[op == op_code::multi ? 1 : 2];
        }
      },
      body);
  return body;
}

response_body sample_response_body(op_code op) {
  response_body body;
  detail::emplace_index(body, response_body_index(op));
  std::visit([](auto& b) { b = test::samples<std::decay_t<decltype(b)>>().back(); }, body);
  return body;
}

TEST(request_frame, ping_is_header_only) {
  std::string out;
  ASSERT_FALSE(encode_request_frame(out, special_xid::ping, op_code::ping, no_body{}));
  EXPECT_EQ(out, wire_bytes().i32(8).i32(-2).i32(11).bytes());
}

TEST(request_frame, close_session_and_who_am_i_have_no_body) {
  std::string out;
  ASSERT_FALSE(encode_request_frame(out, 5, op_code::close_session, no_body{}));
  ASSERT_FALSE(encode_request_frame(out, 6, op_code::who_am_i, no_body{}));
  EXPECT_EQ(out, wire_bytes().i32(8).i32(5).i32(-11).i32(8).i32(6).i32(107).bytes());
}

TEST(request_frame, get_data_bytes) {
  std::string out;
  ASSERT_FALSE(encode_request_frame(out, 1, op_code::get_data, get_data_request{"/zk", true}));
  EXPECT_EQ(out, wire_bytes().frame(wire_bytes().i32(1).i32(4).str("/zk").boolean(true)).bytes());
}

TEST(request_frame, appends_and_reuses_capacity) {
  std::string out;
  out.reserve(4096);
  const char* const data = out.data();
  for (int round = 0; round < 3; ++round) {
    out.clear();
    for (std::int32_t xid = 1; xid <= 20; ++xid) {
      ASSERT_FALSE(encode_request_frame(out, xid, op_code::exists, exists_request{"/some/path", false}));
    }
    EXPECT_EQ(out.data(), data);  // no reallocation once grown
  }
  EXPECT_EQ(out.size(), 20 * (4 + 8 + 4 + 10 + 1U));
}

TEST(request_frame, body_must_fit_the_opcode) {
  std::string out = "x";
  EXPECT_EQ(encode_request_frame(out, 1, op_code::get_data, exists_request{"/a", false}),
            client_error::invalid_argument);
  EXPECT_EQ(encode_request_frame(out, 1, op_code::ping, get_data_request{}), client_error::invalid_argument);
  EXPECT_EQ(encode_request_frame(out, 1, op_code::notification, no_body{}), client_error::invalid_argument);
  EXPECT_EQ(encode_request_frame(out, 1, op_code::delete_container, no_body{}), client_error::invalid_argument);
  EXPECT_EQ(encode_request_frame(out, 1, op_code::create_session, no_body{}), client_error::invalid_argument);
  EXPECT_EQ(out, "x");
}

TEST(request_frame, create_mode_must_fit_the_opcode) {
  std::string out;
  const create_request container{"/c", std::nullopt, open_acl_unsafe(), create_mode::container};
  EXPECT_EQ(encode_request_frame(out, 1, op_code::create2, container), client_error::invalid_argument);
  EXPECT_EQ(encode_request_frame(out, 1, op_code::create, container), client_error::invalid_argument);
  EXPECT_FALSE(encode_request_frame(out, 1, create_opcode(container.flags), container));
  create_request plain = container;
  plain.flags = create_mode::ephemeral;
  EXPECT_EQ(encode_request_frame(out, 1, op_code::create_container, plain), client_error::invalid_argument);
  plain.flags = static_cast<create_mode>(7);
  EXPECT_EQ(encode_request_frame(out, 1, op_code::create2, plain), client_error::invalid_argument);

  create_ttl_request ttl{"/t", std::nullopt, open_acl_unsafe(), create_mode::persistent_with_ttl, 0};
  EXPECT_EQ(encode_request_frame(out, 1, op_code::create_ttl, ttl), client_error::invalid_argument);
  ttl.ttl = max_ttl_ms + 1;
  EXPECT_EQ(encode_request_frame(out, 1, op_code::create_ttl, ttl), client_error::invalid_argument);
  ttl.ttl = max_ttl_ms;
  EXPECT_FALSE(encode_request_frame(out, 1, op_code::create_ttl, ttl));
  ttl.flags = create_mode::persistent;
  ttl.ttl = 1000;
  EXPECT_EQ(encode_request_frame(out, 1, op_code::create_ttl, ttl), client_error::invalid_argument);
}

TEST(request_frame, max_size_counts_the_payload_not_the_prefix) {
  // header 8 + path (4 + 2) + data (4 + n) + version 4 = 22 + n
  const std::size_t fits = default_max_request_size - 22;
  std::string out;
  ASSERT_FALSE(encode_request_frame(out, 1, op_code::set_data, set_data_request{"/a", std::string(fits, 'x'), -1}));
  EXPECT_EQ(out.size(), 4 + default_max_request_size);
  EXPECT_EQ(out.substr(0, 4), wire_bytes().i32(0xfffff).bytes());

  out = "keep";
  EXPECT_EQ(encode_request_frame(out, 1, op_code::set_data, set_data_request{"/a", std::string(fits + 1, 'x'), -1}),
            client_error::request_too_large);
  EXPECT_EQ(out, "keep");

  // A caller-chosen limit.
  EXPECT_EQ(encode_request_frame(out, 1, op_code::sync, sync_request{"/abc"}, 11), client_error::request_too_large);
  EXPECT_FALSE(encode_request_frame(out, 1, op_code::sync, sync_request{"/abc"}, 16));
}

TEST(request_frame, every_client_opcode_round_trips_through_decode_request) {
  for (op_code op : all_op_codes) {
    SCOPED_TRACE(std::string(op_code_name(op)));
    if (request_body_index(op) == std::variant_npos) continue;
    const request original{request_header{42, op}, sample_request_body(op)};
    std::string frame;
    ASSERT_FALSE(encode_request_frame(frame, original));
    frame_reader frames;
    frames.feed(frame);
    const auto payload = frames.next();
    ASSERT_TRUE(payload);
    request decoded;
    ASSERT_FALSE(decode_request(*payload, decoded));
    EXPECT_EQ(decoded, original);
  }
}

TEST(request_frame, decode_request_rejects_types_clients_never_send) {
  request decoded;
  EXPECT_EQ(decode_request(wire_bytes().i32(1).i32(20).str("/a"), decoded), client_error::protocol_violation);
  EXPECT_EQ(decode_request(wire_bytes().i32(1).i32(12345), decoded), client_error::protocol_violation);
  EXPECT_EQ(decode_request(wire_bytes().i32(1), decoded), client_error::truncated_frame);
}

TEST(body_tables, known_pairs) {
  EXPECT_EQ(request_body_index(op_code::create_container), request_body_index(op_code::create2));
  EXPECT_EQ(request_body_index(op_code::multi_read), request_body_index(op_code::multi));
  EXPECT_EQ(response_body_index(op_code::reconfig), response_body_index(op_code::get_data));
  EXPECT_EQ(response_body_index(op_code::create_ttl), response_body_index(op_code::create2));
  EXPECT_NE(response_body_index(op_code::create), response_body_index(op_code::create2));
  EXPECT_EQ(response_body_index(op_code::add_watch), (detail::index_of_v<error_response, response_body>));
  EXPECT_EQ(response_body_index(op_code::notification), (detail::index_of_v<watcher_event, response_body>));
  EXPECT_EQ(response_body_index(op_code::error), std::variant_npos);
  EXPECT_EQ(response_body_index(static_cast<op_code>(55)), std::variant_npos);
  EXPECT_EQ(request_body_index(static_cast<op_code>(55)), std::variant_npos);
}

TEST(reply, every_opcode_round_trips) {
  for (op_code op : all_op_codes) {
    SCOPED_TRACE(std::string(op_code_name(op)));
    if (response_body_index(op) == std::variant_npos) continue;
    const reply original{reply_header{17, 0x300000004, 0}, sample_response_body(op)};
    std::string frame;
    ASSERT_FALSE(encode_reply_frame(frame, original));
    frame_reader frames;
    frames.feed(frame);
    const auto payload = frames.next();
    ASSERT_TRUE(payload);
    reply decoded;
    ASSERT_FALSE(decode_reply(*payload, op, decoded));
    EXPECT_EQ(decoded, original);
  }
}

TEST(reply, error_reply_ignores_trailing_bytes) {
  for (op_code op : all_op_codes) {
    if (response_body_index(op) == std::variant_npos) continue;
    reply decoded;
    decoded.body = get_data_response{};
    ASSERT_FALSE(decode_reply(wire_bytes().i32(3).i64(-1).i32(-101).raw("junk after an error"), op, decoded));
    EXPECT_EQ(decoded.header, (reply_header{3, -1, -101}));
    EXPECT_TRUE(std::holds_alternative<no_body>(decoded.body));
    EXPECT_EQ(error_from_wire(decoded.header.err), server_error::no_node);
  }
}

TEST(reply, success_reply_must_consume_every_byte) {
  reply decoded;
  EXPECT_EQ(decode_reply(wire_bytes().i32(3).i64(9).i32(0).i32(0).byte(0), op_code::add_watch, decoded),
            jute::error::trailing_bytes);
  EXPECT_EQ(decode_reply(wire_bytes().i32(3).i64(9).i32(0).byte(0), op_code::delete_, decoded),
            jute::error::trailing_bytes);
  EXPECT_EQ(decode_reply(wire_bytes().i32(3).i64(9).i32(0).i32(0).raw("xx"), op_code::add_watch, decoded),
            jute::error::trailing_bytes);
}

TEST(reply, add_watch_reply_has_a_4_byte_body) {
  const wire_bytes payload = wire_bytes().i32(8).i64(0x10).i32(0).i32(0);
  EXPECT_EQ(payload.size(), reply_header_size + 4);
  reply decoded;
  ASSERT_FALSE(decode_reply(payload, op_code::add_watch, decoded));
  EXPECT_EQ(std::get<error_response>(decoded.body).err, 0);
  // Without its body it is truncated.
  EXPECT_EQ(decode_reply(wire_bytes().i32(8).i64(0x10).i32(0), op_code::add_watch, decoded),
            client_error::truncated_frame);
}

TEST(reply, ping_and_auth_replies) {
  reply decoded;
  ASSERT_FALSE(decode_reply(wire_bytes().i32(-2).i64(55).i32(0), *special_xid_op(-2), decoded));
  EXPECT_EQ(decoded.header, (reply_header{-2, 55, 0}));
  ASSERT_FALSE(decode_reply(wire_bytes().i32(-4).i64(0).i32(-115), *special_xid_op(-4), decoded));
  EXPECT_EQ(error_from_wire(decoded.header.err), server_error::auth_failed);
  EXPECT_TRUE(is_session_fatal(error_from_wire(decoded.header.err)));
}

TEST(reply, typed_decode) {
  reply_header header;
  get_data_response body;
  ASSERT_FALSE(decode_reply(wire_bytes().i32(2).i64(3).i32(0).str("v").stat_seq(0), header, body));
  EXPECT_EQ(body, (get_data_response{std::string("v"), test::sample_stat(0)}));
  body = get_data_response{std::string("untouched"), {}};
  ASSERT_FALSE(decode_reply(wire_bytes().i32(2).i64(3).i32(-101).raw("zz"), header, body));
  EXPECT_EQ(header.err, -101);
  EXPECT_EQ(body.data, "untouched");
}

TEST(reply, unknown_opcode_is_an_argument_error) {
  reply decoded;
  EXPECT_EQ(decode_reply(wire_bytes().i32(2).i64(3).i32(0), op_code::error, decoded), client_error::invalid_argument);
  EXPECT_EQ(decode_reply(wire_bytes().i32(2).i64(3).i32(0), static_cast<op_code>(77), decoded),
            client_error::invalid_argument);
}

TEST(reply, header_only_peek) {
  reply_header header;
  ASSERT_FALSE(decode_reply_header(wire_bytes().i32(-1).i64(-1).i32(0).raw("whatever follows"), header));
  EXPECT_EQ(header, (reply_header{-1, -1, 0}));
  EXPECT_EQ(special_xid_op(header.xid), op_code::notification);
  EXPECT_EQ(decode_reply_header(wire_bytes().i32(-1).i64(-1), header), client_error::truncated_frame);
}

TEST(notification, decodes_a_watch_event) {
  watcher_event event;
  ASSERT_FALSE(decode_notification(wire_bytes().i32(-1).i64(-1).i32(0).i32(3).i32(3).str("/app/x"), event));
  EXPECT_EQ(event, (watcher_event{event_type::node_data_changed, keeper_state::sync_connected, "/app/x"}));
  EXPECT_EQ(strip_chroot("/app", event.path), "/x");

  reply via_reply;
  ASSERT_FALSE(
      decode_reply(wire_bytes().i32(-1).i64(-1).i32(0).i32(3).i32(3).str("/app/x"), op_code::notification, via_reply));
  EXPECT_EQ(std::get<watcher_event>(via_reply.body), event);
}

TEST(notification, wrong_xid_or_error_is_a_protocol_violation) {
  watcher_event event;
  EXPECT_EQ(decode_notification(wire_bytes().i32(5).i64(-1).i32(0).i32(3).i32(3).str("/x"), event),
            client_error::protocol_violation);
  EXPECT_EQ(decode_notification(wire_bytes().i32(-1).i64(-1).i32(-4), event), client_error::protocol_violation);
  EXPECT_EQ(decode_notification(wire_bytes().i32(-1).i64(-1).i32(0).i32(3).i32(3).str("/x").byte(1), event),
            jute::error::trailing_bytes);
}

TEST(special_xids, map_to_their_operations) {
  EXPECT_EQ(special_xid_op(special_xid::notification), op_code::notification);
  EXPECT_EQ(special_xid_op(special_xid::ping), op_code::ping);
  EXPECT_EQ(special_xid_op(special_xid::auth), op_code::auth);
  EXPECT_EQ(special_xid_op(special_xid::set_watches), op_code::set_watches);
  EXPECT_EQ(special_xid_op(1), std::nullopt);
  EXPECT_EQ(special_xid_op(-3), std::nullopt);
  EXPECT_EQ(special_xid_op(0), std::nullopt);
}

}  // namespace
}  // namespace zkwire::proto
