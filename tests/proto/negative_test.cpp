// Hostile and broken input: every decoder must fail cleanly (an error, never a crash or a huge allocation).

#include <gtest/gtest.h>

#include <functional>
#include <limits>
#include <string>

#include "allocation_probe.hpp"
#include "samples.hpp"
#include "wire_bytes.hpp"
#include "zkwire/proto/proto.hpp"

namespace zkwire::proto {
namespace {

using test::wire_bytes;

// Decodes every strict prefix of `whole` with `decode_fn` and expects an error each time.
template <class DecodeFn>
void expect_every_truncation_fails(std::string_view whole, DecodeFn decode_fn) {
  for (std::size_t n = 0; n < whole.size(); ++n) {
    SCOPED_TRACE("prefix length " + std::to_string(n));
    const std::string prefix(whole.substr(0, n));  // own copy, so ASan sees reads past the end
    const std::error_code ec = decode_fn(prefix);
    EXPECT_TRUE(ec);
    EXPECT_TRUE(is_protocol_violation(ec)) << ec.message();
  }
}

template <class T>
void expect_every_truncation_fails_for(const T& value) {
  std::string bytes;
  ASSERT_FALSE(encode_append(bytes, value));
  expect_every_truncation_fails(bytes, [](std::string_view in) {
    T out{};
    return decode_exact(in, out);
  });
}

TEST(truncation, records_fail_at_every_offset) {
  expect_every_truncation_fails_for(test::sample_stat());
  expect_every_truncation_fails_for(test::samples<create2_response>().back());
  expect_every_truncation_fails_for(test::samples<get_acl_response>().back());
  expect_every_truncation_fails_for(test::samples<get_data_response>().back());
  expect_every_truncation_fails_for(test::samples<who_am_i_response>().back());
  expect_every_truncation_fails_for(test::samples<set_watches2>().back());
  expect_every_truncation_fails_for(test::samples<create_ttl_request>().back());
  for (const auto& m : test::samples<multi_response>()) expect_every_truncation_fails_for(m);
  for (const auto& m : test::samples<multi_request>()) expect_every_truncation_fails_for(m);
}

TEST(truncation, connect_response_fails_at_every_offset_except_before_read_only) {
  std::string bytes;
  ASSERT_FALSE(encode_append(bytes, test::samples<connect_response>().back()));
  ASSERT_EQ(bytes.size(), connect_response_size);
  for (std::size_t n = 0; n < bytes.size(); ++n) {
    connect_response out;
    const std::error_code ec = decode_connect_response(bytes.substr(0, n), out);
    if (n == connect_response_size_without_read_only) {
      EXPECT_FALSE(ec);  // the optional readOnly byte
    } else {
      EXPECT_EQ(ec, client_error::truncated_frame) << n;
    }
  }
}

TEST(truncation, reply_frames_fail_at_every_offset) {
  const wire_bytes get_data = wire_bytes().i32(1).i64(2).i32(0).str("data").stat_seq(3);
  expect_every_truncation_fails(get_data, [](std::string_view in) {
    reply r;
    return decode_reply(in, op_code::get_data, r);
  });
  const wire_bytes event = wire_bytes().i32(-1).i64(-1).i32(0).i32(1).i32(3).str("/node");
  expect_every_truncation_fails(event, [](std::string_view in) {
    watcher_event e;
    return decode_notification(in, e);
  });
  const wire_bytes multi =
      wire_bytes().i32(1).i64(2).i32(0).i32(1).boolean(false).i32(0).str("/p").i32(-1).boolean(true).i32(-1);
  expect_every_truncation_fails(multi, [](std::string_view in) {
    reply r;
    return decode_reply(in, op_code::multi, r);
  });
}

TEST(lengths, negative_and_huge_buffer_lengths) {
  get_data_response rsp;
  EXPECT_EQ(decode_exact(wire_bytes().i32(-2).stat_seq(0), rsp), jute::error::negative_length);
  EXPECT_EQ(decode_exact(wire_bytes().i32(0x7fffffff).stat_seq(0), rsp), jute::error::length_exceeds_limit);
  EXPECT_EQ(decode_exact(wire_bytes().i32(std::numeric_limits<std::int32_t>::min()).stat_seq(0), rsp),
            jute::error::negative_length);
  // One byte more than what is left.
  EXPECT_TRUE(decode_exact(wire_bytes().i32(69).stat_seq(0), rsp));

  create_response path;
  EXPECT_EQ(decode_exact(wire_bytes().i32(-2), path), jute::error::negative_length);
  EXPECT_EQ(decode_exact(wire_bytes().i32(0x7fffffff).raw("abc"), path), jute::error::length_exceeds_limit);
}

TEST(lengths, negative_vector_count) {
  get_children_response rsp;
  EXPECT_EQ(decode_exact(wire_bytes().i32(-2), rsp), jute::error::negative_length);
}

// libzookeeper_mt 3.8.0 crashes on this (docs/protocol.md#bounded-decoding): a count of 2^30 with nothing behind it.
TEST(lengths, vector_count_of_2_pow_30_is_rejected_without_allocating) {
  const std::int32_t count = 1 << 30;
  const struct {
    const char* name;
    std::string bytes;
    std::function<std::error_code(std::string_view)> decode_fn;
  } cases[] = {
      {"children", wire_bytes().i32(count).bytes(),
       [](std::string_view in) {
         get_children_response r;
         return decode_exact(in, r);
       }},
      {"acl", wire_bytes().i32(count).stat_seq(0).bytes(),
       [](std::string_view in) {
         get_acl_response r;
         return decode_exact(in, r);
       }},
      {"who_am_i", wire_bytes().i32(count).raw(std::string(64, '\0')).bytes(),
       [](std::string_view in) {
         who_am_i_response r;
         return decode_exact(in, r);
       }},
      {"reply", wire_bytes().i32(1).i64(1).i32(0).i32(count).bytes(),
       [](std::string_view in) {
         reply r;
         return decode_reply(in, op_code::get_children2, r);
       }},
  };
  // The probe itself works: a real allocation of that order is seen.
  test::reset_largest_allocation();
  const std::string big(100000, 'x');
  EXPECT_GE(test::largest_allocation(), big.size());

  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    test::reset_largest_allocation();
    EXPECT_EQ(c.decode_fn(c.bytes), jute::error::count_exceeds_input);
    EXPECT_LT(test::largest_allocation(), 4096U);
  }
}

TEST(lengths, element_size_bound_is_tight_enough) {
  // 3 ACL entries need at least 36 bytes; 35 bytes of garbage behind a count of 3 is rejected up front.
  get_acl_response rsp;
  EXPECT_EQ(decode_exact(wire_bytes().i32(3).raw(std::string(35, 'x')), rsp), jute::error::count_exceeds_input);
}

TEST(booleans, only_0_and_1_are_valid) {
  exists_request req;
  EXPECT_EQ(decode_exact(wire_bytes().str("/a").byte(2), req), jute::error::invalid_boolean);
  EXPECT_EQ(decode_exact(wire_bytes().str("/a").byte(0xff), req), jute::error::invalid_boolean);
  ASSERT_FALSE(decode_exact(wire_bytes().str("/a").byte(1), req));
  EXPECT_TRUE(req.watch);

  connect_response rsp;
  EXPECT_EQ(decode_connect_response(wire_bytes().i32(0).i32(1).i64(1).str(std::string(16, '\0')).byte(2), rsp),
            jute::error::invalid_boolean);
}

TEST(trailing, garbage_after_a_complete_record) {
  stat s;
  EXPECT_EQ(decode_exact(wire_bytes().stat_seq(0).byte(0), s), jute::error::trailing_bytes);
  connect_response rsp;
  EXPECT_EQ(decode_connect_response(wire_bytes().i32(0).i32(1).i64(1).str(std::string(16, '\0')).byte(0).byte(0), rsp),
            jute::error::trailing_bytes);
  error_response e;
  EXPECT_EQ(decode_exact(wire_bytes().i32(0).i32(0), e), jute::error::trailing_bytes);
}

TEST(classification, every_decode_error_is_a_protocol_violation) {
  for (auto e : {jute::error::need_more_bytes, jute::error::negative_length, jute::error::length_exceeds_limit,
                 jute::error::count_exceeds_input, jute::error::invalid_boolean, jute::error::trailing_bytes,
                 jute::error::invalid_value}) {
    EXPECT_TRUE(is_protocol_violation(e)) << static_cast<int>(e);
  }
  EXPECT_FALSE(is_protocol_violation(jute::error::value_too_large));
}

TEST(garbage, arbitrary_bytes_never_crash_any_reply_decoder) {
  // A cheap deterministic sweep; the fuzz targets go further. Every input either decodes or is rejected with a
  // protocol violation, and nothing allocates more than the input could describe (a length or count taken from
  // the bytes must be checked against what is left before anything is reserved). Half of the inputs start with a
  // valid, successful reply header, so the body decoders see the garbage too.
  std::uint32_t state = 12345;
  auto next_byte = [&state] {
    state = state * 1103515245U + 12345U;
    return static_cast<char>((state >> 16) & 0xffU);
  };
  // Generous for inputs under 130 bytes: a few element vectors and strings of at most that size.
  constexpr std::size_t allocation_bound = 64 * 1024;
  int decoded = 0;
  int rejected = 0;
  const auto check = [&](std::error_code ec, std::string_view what, int round) {
    if (ec) {
      ++rejected;
      EXPECT_TRUE(is_protocol_violation(ec)) << what << " round " << round << ": " << ec.message();
    } else {
      ++decoded;
    }
    EXPECT_LT(test::largest_allocation(), allocation_bound) << what << " round " << round;
  };
  for (int round = 0; round < 2000; ++round) {
    std::string bytes = round % 2 == 0 ? std::string{} : wire_bytes().i32(7).i64(42).i32(0).bytes();
    const auto garbage = static_cast<std::size_t>(round % 97);
    for (std::size_t i = 0; i < garbage; ++i) bytes += next_byte();
    for (op_code op : {op_code::create2, op_code::get_acl, op_code::multi, op_code::who_am_i, op_code::get_data,
                       op_code::notification, op_code::get_children2}) {
      reply r;
      test::reset_largest_allocation();
      check(decode_reply(bytes, op, r), op_code_name(op), round);
    }
    connect_response c;
    test::reset_largest_allocation();
    check(decode_connect_response(bytes, c), "connect response", round);
    request q;
    test::reset_largest_allocation();
    check(decode_request(bytes, q), "request", round);
  }
  // The sweep exercised both outcomes (a sweep where everything fails at the first byte would prove little).
  EXPECT_GT(decoded, 0);
  EXPECT_GT(rejected, 0);
}

}  // namespace
}  // namespace zkwire::proto
