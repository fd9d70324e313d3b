// multi and multiRead: request shape, result dispatch by result type, failed multis, the 3.8.0 create2 quirk.

#include <gtest/gtest.h>

#include <string>

#include "samples.hpp"
#include "wire_bytes.hpp"
#include "zkwire/proto/proto.hpp"

namespace zkwire::proto {
namespace {

using test::wire_bytes;

// MultiHeader{-1, true, -1}
wire_bytes& terminator(wire_bytes& w) { return w.i32(-1).boolean(true).i32(-1); }

reply decode_multi_reply(std::string_view payload, op_code op = op_code::multi) {
  reply out;
  EXPECT_FALSE(decode_reply(payload, op, out));
  return out;
}

TEST(multi, request_frame_bytes) {
  const multi_request req{{create_op(create_request{"/a", std::string("x"), open_acl_unsafe(), create_mode::ephemeral}),
                           delete_op("/b", 4), check_op("/c", 2)}};
  std::string frame;
  ASSERT_FALSE(encode_request_frame(frame, 7, multi_opcode(req), req));

  wire_bytes payload;
  payload.i32(7).i32(14);
  payload.i32(15).boolean(false).i32(-1);  // create2, the opcode create_op picks for a non-container mode
  payload.str("/a").str("x").i32(1).i32(31).str("world").str("anyone").i32(1);
  payload.i32(2).boolean(false).i32(-1).str("/b").i32(4);
  payload.i32(13).boolean(false).i32(-1).str("/c").i32(2);
  terminator(payload);
  EXPECT_EQ(frame, wire_bytes().frame(payload).bytes());
}

TEST(multi, empty_multi_is_only_the_terminator) {
  std::string frame;
  ASSERT_FALSE(encode_request_frame(frame, 3, op_code::multi, multi_request{}));
  wire_bytes payload;
  terminator(payload.i32(3).i32(14));
  EXPECT_EQ(frame, wire_bytes().frame(payload).bytes());

  wire_bytes reply_bytes;
  terminator(reply_bytes.i32(3).i64(10).i32(0));
  const reply r = decode_multi_reply(reply_bytes);
  EXPECT_EQ(std::get<multi_response>(r.body), multi_response{});
  EXPECT_FALSE(first_error(std::get<multi_response>(r.body)));
}

TEST(multi, successful_results_are_decoded_by_type) {
  wire_bytes payload;
  payload.i32(9).i64(0x200000001).i32(0);
  payload.i32(15).boolean(false).i32(0).str("/a").stat_seq(10);
  payload.i32(2).boolean(false).i32(0);
  payload.i32(5).boolean(false).i32(0).stat_seq(20);
  payload.i32(13).boolean(false).i32(0);
  terminator(payload);

  const reply r = decode_multi_reply(payload);
  EXPECT_EQ(r.header, (reply_header{9, 0x200000001, 0}));
  const auto& m = std::get<multi_response>(r.body);
  ASSERT_EQ(m.results.size(), 4U);
  EXPECT_EQ(m.results[0], (multi_result{op_code::create2, 0, create2_response{"/a", test::sample_stat(10)}}));
  EXPECT_EQ(m.results[1], (multi_result{op_code::delete_, 0, no_body{}}));
  EXPECT_EQ(m.results[2], (multi_result{op_code::set_data, 0, set_data_response{test::sample_stat(20)}}));
  EXPECT_EQ(m.results[3], (multi_result{op_code::check, 0, no_body{}}));
  EXPECT_FALSE(first_error(m));
  EXPECT_FALSE(first_error_index(m));
}

// 3.8.0/3.8.1 (ZOOKEEPER-4026): a create2 sent inside a multi comes back as a type-1 result with only the path.
TEST(multi, create2_result_with_type_1_is_a_path_only_create_response) {
  wire_bytes payload;
  payload.i32(4).i64(77).i32(0);
  payload.i32(1).boolean(false).i32(0).str("/seq-0000000001");
  terminator(payload);

  const reply r = decode_multi_reply(payload);
  const auto& m = std::get<multi_response>(r.body);
  ASSERT_EQ(m.results.size(), 1U);
  EXPECT_EQ(m.results[0].type, op_code::create);
  EXPECT_EQ(std::get<create_response>(m.results[0].body).path, "/seq-0000000001");
}

// A failed multi: ReplyHeader.err 0, every result type -1 with an ErrorResponse body; earlier ops 0, the failing
// op its error, later ops RUNTIMEINCONSISTENCY.
TEST(multi, failed_multi_shape_and_first_error) {
  wire_bytes payload;
  payload.i32(5).i64(78).i32(0);
  payload.i32(-1).boolean(false).i32(0).i32(0);
  payload.i32(-1).boolean(false).i32(-110).i32(-110);
  payload.i32(-1).boolean(false).i32(-2).i32(-2);
  terminator(payload);

  const reply r = decode_multi_reply(payload);
  EXPECT_EQ(r.header.err, 0);
  const auto& m = std::get<multi_response>(r.body);
  ASSERT_EQ(m.results.size(), 3U);
  for (const auto& result : m.results) {
    EXPECT_EQ(result.type, op_code::error);
    EXPECT_TRUE(std::holds_alternative<no_body>(result.body));
  }
  EXPECT_EQ(m.results[0].err, 0);
  EXPECT_EQ(m.results[1].err, -110);
  EXPECT_EQ(m.results[2].err, -2);
  EXPECT_EQ(first_error(m), server_error::node_exists);
  EXPECT_EQ(first_error_index(m), 1U);

  // Re-encoding gives the same bytes.
  std::string again;
  ASSERT_FALSE(encode_reply_frame(again, r));
  EXPECT_EQ(again, wire_bytes().frame(payload).bytes());
}

TEST(multi, error_result_err_comes_from_the_error_response_body) {
  wire_bytes body;
  body.i32(-1).boolean(false).i32(0).i32(-101);
  terminator(body);
  multi_response m;
  ASSERT_FALSE(decode_multi_response(body, m));
  EXPECT_EQ(m.results.at(0).err, -101);
}

TEST(multi, first_error_skips_zero_and_runtime_inconsistency) {
  multi_response m{{multi_result{op_code::error, -2, no_body{}}, multi_result{op_code::error, 0, no_body{}},
                    multi_result{op_code::error, -103, no_body{}}}};
  EXPECT_EQ(first_error(m), server_error::bad_version);
  EXPECT_EQ(first_error_index(m), 2U);

  multi_response only_inconsistent{
      {multi_result{op_code::error, 0, no_body{}}, multi_result{op_code::error, -2, no_body{}}}};
  EXPECT_EQ(first_error(only_inconsistent), server_error::runtime_inconsistency);
  EXPECT_EQ(first_error_index(only_inconsistent), 1U);
}

TEST(multi, multi_read_results_are_independent) {
  const multi_request req{{get_data_op("/a"), get_children_op("/b"), get_data_op("/missing")}};
  EXPECT_EQ(multi_opcode(req), op_code::multi_read);
  std::string frame;
  ASSERT_FALSE(encode_request_frame(frame, 11, op_code::multi_read, req));

  wire_bytes payload;
  payload.i32(11).i64(80).i32(0);
  payload.i32(4).boolean(false).i32(0).null().stat_seq(1);
  payload.i32(8).boolean(false).i32(0).i32(2).str("x").str("y");
  payload.i32(-1).boolean(false).i32(-101).i32(-101);
  terminator(payload);
  const reply r = decode_multi_reply(payload, op_code::multi_read);
  const auto& m = std::get<multi_response>(r.body);
  ASSERT_EQ(m.results.size(), 3U);
  EXPECT_EQ(std::get<get_data_response>(m.results[0].body), (get_data_response{std::nullopt, test::sample_stat(1)}));
  EXPECT_EQ(std::get<get_children_response>(m.results[1].body).children, (std::vector<std::string>{"x", "y"}));
  EXPECT_EQ(first_error(m), server_error::no_node);
}

TEST(multi, mixing_read_and_write_ops_is_rejected) {
  const multi_request mixed{{delete_op("/a"), get_data_op("/b")}};
  EXPECT_EQ(multi_opcode(mixed), op_code::multi);
  std::string frame = "prefix";
  EXPECT_EQ(encode_request_frame(frame, 1, op_code::multi, mixed), client_error::invalid_argument);
  EXPECT_EQ(encode_request_frame(frame, 1, op_code::multi_read, mixed), client_error::invalid_argument);
  EXPECT_EQ(frame, "prefix");
  EXPECT_EQ(validate(op_code::multi, mixed), client_error::invalid_argument);

  // Write ops in a multiRead, read ops in a multi.
  EXPECT_EQ(validate(op_code::multi_read, multi_request{{delete_op("/a")}}), client_error::invalid_argument);
  EXPECT_EQ(validate(op_code::multi, multi_request{{get_children_op("/a")}}), client_error::invalid_argument);
  EXPECT_FALSE(validate(op_code::multi_read, multi_request{}));
  EXPECT_EQ(validate(op_code::get_data, multi_request{}), client_error::invalid_argument);
}

TEST(multi, op_type_must_fit_its_body) {
  const multi_request wrong{{multi_op{op_code::delete_, check_version_request{"/a", 1}}}};
  EXPECT_EQ(validate(op_code::multi, wrong), client_error::invalid_argument);
  std::string out;
  EXPECT_EQ(encode_append(out, wrong), jute::error::invalid_value);
  EXPECT_TRUE(out.empty());

  const multi_response bad_result{{multi_result{op_code::create2, 0, create_response{"/a"}}}};
  EXPECT_EQ(encode_append(out, bad_result), jute::error::invalid_value);
}

TEST(multi, create_ops_are_checked_like_standalone_creates) {
  // create2 with the container flag would silently make a plain node; createTTL needs a TTL mode and a TTL.
  const create_request container{"/c", std::nullopt, open_acl_unsafe(), create_mode::container};
  EXPECT_EQ(create_op(container).type, op_code::create_container);
  EXPECT_FALSE(validate(op_code::multi, multi_request{{create_op(container)}}));
  EXPECT_EQ(validate(op_code::multi, multi_request{{multi_op{op_code::create2, container}}}),
            client_error::invalid_argument);
  const create_ttl_request no_ttl{"/t", std::nullopt, open_acl_unsafe(), create_mode::persistent_with_ttl, 0};
  EXPECT_EQ(validate(op_code::multi, multi_request{{create_op(no_ttl)}}), client_error::invalid_argument);
}

TEST(multi, unknown_result_or_op_type_is_invalid) {
  wire_bytes body;
  body.i32(3).boolean(false).i32(0).stat_seq(0);  // exists cannot be in a multi
  terminator(body);
  multi_response m;
  EXPECT_EQ(decode_multi_response(body, m), jute::error::invalid_value);
  multi_request req;
  EXPECT_EQ(decode_exact(body, req), jute::error::invalid_value);
}

TEST(multi, missing_terminator_is_truncation) {
  wire_bytes body;
  body.i32(2).boolean(false).i32(0);
  multi_response m;
  EXPECT_EQ(decode_multi_response(body, m), client_error::truncated_frame);
  EXPECT_EQ(decode_multi_response("", m), client_error::truncated_frame);
}

TEST(multi, bytes_after_the_terminator_are_trailing_garbage) {
  wire_bytes body;
  terminator(body).byte(0);
  multi_response m;
  EXPECT_EQ(decode_multi_response(body, m), jute::error::trailing_bytes);
}

TEST(multi, bad_done_byte_is_rejected) {
  wire_bytes body;
  body.i32(-1).byte(2).i32(-1);
  multi_response m;
  EXPECT_EQ(decode_multi_response(body, m), jute::error::invalid_boolean);
}

}  // namespace
}  // namespace zkwire::proto
