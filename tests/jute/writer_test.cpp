#include "zkwire/jute/writer.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "zkwire/jute/reader.hpp"

namespace zkwire::jute {
namespace {

using namespace std::string_literals;

TEST(JuteWriter, WritesBigEndianPrimitives) {
  std::string out;
  writer w(out);
  w.write_int(258);
  w.write_long(-2);
  w.write_bool(true);
  w.write_bool(false);
  EXPECT_TRUE(w.ok());
  EXPECT_EQ(out, "\x00\x00\x01\x02\xff\xff\xff\xff\xff\xff\xff\xfe\x01\x00"s);
}

TEST(JuteWriter, BuffersCarryLengthAndNullIsMinusOne) {
  std::string out;
  writer w(out);
  w.write_buffer(std::string_view("ab"));
  w.write_buffer(std::optional<std::string>{});
  w.write_buffer(std::optional<std::string>{""});
  EXPECT_EQ(out,
            "\x00\x00\x00\x02"
            "ab"
            "\xff\xff\xff\xff"
            "\x00\x00\x00\x00"s);
}

TEST(JuteWriter, AppendsToExistingOutputAndCountsOnlyItsOwnBytes) {
  std::string out = "prefix";
  writer w(out);
  w.write_int(1);
  EXPECT_EQ(w.size(), 4U);
  EXPECT_EQ(out.substr(0, 6), "prefix");
}

TEST(JuteWriter, LimitIsStickyAndStopsOutput) {
  std::string out;
  writer w(out, /*max_size=*/6);
  w.write_int(1);
  w.write_int(2);  // would reach 8 bytes
  EXPECT_EQ(w.error(), error::value_too_large);
  w.write_bool(true);  // ignored after the failure
  EXPECT_EQ(out.size(), 4U);
}

TEST(JuteWriter, LengthPrefixIsPatched) {
  std::string out;
  writer w(out);
  const std::size_t at = w.begin_length_prefix();
  w.write_int(7);
  w.write_ustring("xyz");
  w.end_length_prefix(at);
  EXPECT_EQ(out, "\x00\x00\x00\x0b\x00\x00\x00\x07\x00\x00\x00\x03xyz"s);
}

TEST(JuteWriter, VectorRoundTripsThroughReader) {
  const std::vector<std::string> names{"a", "bc", ""};
  std::string out;
  writer w(out);
  w.write_vector(names, [](writer& wr, const std::string& s) { wr.write_ustring(s); });
  ASSERT_TRUE(w.ok());
  reader r(out);
  EXPECT_EQ(r.read_ustring_vector(), names);
  EXPECT_FALSE(r.finish());
}

TEST(JuteWriter, ExtremeValuesRoundTrip) {
  std::string out;
  writer w(out);
  for (std::int64_t v : {INT64_MIN, std::int64_t{-1}, std::int64_t{0}, INT64_MAX}) w.write_long(v);
  for (std::int32_t v : {INT32_MIN, -1, 0, INT32_MAX}) w.write_int(v);
  reader r(out);
  for (std::int64_t v : {INT64_MIN, std::int64_t{-1}, std::int64_t{0}, INT64_MAX}) EXPECT_EQ(r.read_long(), v);
  for (std::int32_t v : {INT32_MIN, -1, 0, INT32_MAX}) EXPECT_EQ(r.read_int(), v);
  EXPECT_FALSE(r.finish());
}

}  // namespace
}  // namespace zkwire::jute
