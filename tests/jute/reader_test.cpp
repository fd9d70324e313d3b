#include "zkwire/jute/reader.hpp"

#include <gtest/gtest.h>

#include <string>

namespace zkwire::jute {
namespace {

using namespace std::string_view_literals;

TEST(JuteReader, ReadsBigEndianIntsAndLongs) {
  reader r("\x00\x00\x01\x02\xff\xff\xff\xfe\x80\x00\x00\x00\x00\x00\x00\x01"sv);
  EXPECT_EQ(r.read_int(), 258);
  EXPECT_EQ(r.read_int(), -2);
  EXPECT_EQ(r.read_long(), INT64_MIN + 1);
  EXPECT_FALSE(r.finish());
}

TEST(JuteReader, BooleanAcceptsOnlyZeroAndOne) {
  reader ok("\x00\x01"sv);
  EXPECT_FALSE(ok.read_bool());
  EXPECT_TRUE(ok.read_bool());
  EXPECT_FALSE(ok.finish());

  reader bad("\x02"sv);
  EXPECT_FALSE(bad.read_bool());
  EXPECT_EQ(bad.error(), error::invalid_boolean);
}

TEST(JuteReader, NullBufferIsDistinctFromEmpty) {
  reader r("\xff\xff\xff\xff\x00\x00\x00\x00\x00\x00\x00\x02hi"sv);
  EXPECT_EQ(r.read_buffer(), std::nullopt);
  EXPECT_EQ(r.read_buffer(), std::optional<std::string>(""));
  EXPECT_EQ(r.read_buffer(), std::optional<std::string>("hi"));
  EXPECT_FALSE(r.finish());
}

TEST(JuteReader, NullStringReadsAsEmpty) {
  reader r("\xff\xff\xff\xff"sv);
  EXPECT_EQ(r.read_ustring(), "");
  EXPECT_TRUE(r.ok());
}

TEST(JuteReader, NegativeLengthOtherThanNullIsInvalid) {
  reader r("\xff\xff\xff\xfe"sv);
  r.read_buffer();
  EXPECT_EQ(r.error(), error::negative_length);
}

TEST(JuteReader, LengthOverLimitIsInvalidNotNeedMore) {
  reader r("\x00\x00\x00\x05hello"sv, /*max_length=*/4);
  r.read_ustring();
  EXPECT_EQ(r.error(), error::length_exceeds_limit);

  reader huge("\x7f\xff\xff\xff"sv);
  huge.read_buffer();
  EXPECT_EQ(huge.error(), error::length_exceeds_limit);
}

TEST(JuteReader, ShortInputNeedsMoreBytes) {
  reader r("\x00\x00\x00\x05hel"sv);
  r.read_ustring();
  EXPECT_EQ(r.error(), error::need_more_bytes);

  reader short_int("\x00\x01"sv);
  short_int.read_int();
  EXPECT_EQ(short_int.error(), error::need_more_bytes);
}

TEST(JuteReader, ErrorsAreStickyAndConsumeNothing) {
  reader r("\x00\x00\x00\x2a"sv);
  r.read_long();
  EXPECT_EQ(r.error(), error::need_more_bytes);
  EXPECT_EQ(r.read_int(), 0);  // would succeed on its own, but the reader already failed
  EXPECT_EQ(r.position(), 0U);
  EXPECT_EQ(r.error(), error::need_more_bytes);
}

TEST(JuteReader, HugeVectorCountIsRejectedBeforeAllocation) {
  reader r("\x40\x00\x00\x00"sv);  // 2^30 strings announced, none present
  EXPECT_TRUE(r.read_ustring_vector().empty());
  EXPECT_EQ(r.error(), error::count_exceeds_input);
}

TEST(JuteReader, NegativeVectorCountIsInvalidButMinusOneIsNull) {
  reader null_vec("\xff\xff\xff\xff"sv);
  EXPECT_EQ(null_vec.read_count(4), -1);
  EXPECT_TRUE(null_vec.ok());

  reader bad("\xff\xff\xff\xf0"sv);
  bad.read_count(4);
  EXPECT_EQ(bad.error(), error::negative_length);
}

TEST(JuteReader, ReadsStringVector) {
  reader r("\x00\x00\x00\x02\x00\x00\x00\x01\x61\x00\x00\x00\x00"sv);
  EXPECT_EQ(r.read_ustring_vector(), (std::vector<std::string>{"a", ""}));
  EXPECT_FALSE(r.finish());
}

TEST(JuteReader, FinishRejectsTrailingBytes) {
  reader r("\x00\x00\x00\x01\x00"sv);
  r.read_int();
  EXPECT_EQ(r.finish(), error::trailing_bytes);
}

TEST(JuteReader, BufferViewPointsIntoInput) {
  const std::string input = std::string("\x00\x00\x00\x03xyz"sv);
  reader r(input);
  const std::string_view v = r.read_buffer_view();
  EXPECT_EQ(v, "xyz");
  EXPECT_EQ(v.data(), input.data() + 4);
}

TEST(JuteReader, EveryTruncationOfARecordFailsCleanly) {
  const std::string_view record =
      "\x00\x00\x00\x07\x00\x00\x00\x03"
      "abc"
      "\x01\x00\x00\x00\x00\x00\x00\x00\x09"sv;
  for (std::size_t n = 0; n < record.size(); ++n) {
    reader r(record.substr(0, n));
    r.read_int();
    r.read_ustring();
    r.read_bool();
    r.read_long();
    EXPECT_EQ(r.error(), error::need_more_bytes) << "prefix of " << n << " bytes";
  }
}

TEST(JuteError, MessagesNameTheCategory) {
  const std::error_code ec = error::count_exceeds_input;
  EXPECT_STREQ(ec.category().name(), "zkwire.jute");
  EXPECT_NE(ec.message().find("vector count"), std::string::npos);
  EXPECT_NE(std::error_code(99, category()).message().find("unknown"), std::string::npos);
}

}  // namespace
}  // namespace zkwire::jute
