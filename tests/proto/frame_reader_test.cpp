// frame_reader: splitting a byte stream into frames, limits, and the zero-copy prepare/commit path.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <span>
#include <string>
#include <vector>

#include "wire_bytes.hpp"
#include "zkwire/proto/proto.hpp"

namespace zkwire::proto {
namespace {

using test::wire_bytes;

std::vector<std::string> drain(frame_reader& r) {
  std::vector<std::string> frames;
  while (auto payload = r.next()) frames.emplace_back(*payload);
  return frames;
}

std::string frames_of(const std::vector<std::string>& payloads) {
  wire_bytes w;
  for (const auto& p : payloads) w.frame(p);
  return w.bytes();
}

TEST(frame_reader, length_prefix_split_across_reads) {
  frame_reader r;
  const std::string stream = frames_of({"hello"});
  r.feed(stream.substr(0, 2));
  EXPECT_FALSE(r.next());
  EXPECT_EQ(r.bytes_wanted(), 2U);
  r.feed(stream.substr(2, 3));
  EXPECT_FALSE(r.next());
  EXPECT_EQ(r.bytes_wanted(), 4U);
  r.feed(stream.substr(5));
  EXPECT_EQ(drain(r), std::vector<std::string>{"hello"});
  EXPECT_FALSE(r.error());
  EXPECT_EQ(r.buffered(), 0U);
}

TEST(frame_reader, many_frames_in_one_feed) {
  const std::vector<std::string> payloads{"a", "", "bcd", std::string(1000, 'x'), "\0\0"};
  frame_reader r;
  r.feed(frames_of(payloads));
  EXPECT_EQ(drain(r), payloads);
}

TEST(frame_reader, byte_by_byte) {
  const std::vector<std::string> payloads{"first", std::string(300, 'y'), "", "last"};
  const std::string stream = frames_of(payloads);
  frame_reader r;
  std::vector<std::string> got;
  for (char c : stream) {
    r.feed(std::string_view(&c, 1));
    for (auto& f : drain(r)) got.push_back(std::move(f));
  }
  EXPECT_EQ(got, payloads);
  EXPECT_FALSE(r.error());
}

TEST(frame_reader, payloads_stay_valid_until_the_next_feed) {
  frame_reader r;
  r.feed(frames_of({"one", "two"}));
  const auto a = r.next();
  const auto b = r.next();
  ASSERT_TRUE(a && b);
  EXPECT_EQ(*a, "one");
  EXPECT_EQ(*b, "two");
  EXPECT_FALSE(r.next());
}

TEST(frame_reader, zero_length_frame_is_an_empty_payload) {
  frame_reader r;
  r.feed(wire_bytes().i32(0));
  const auto payload = r.next();
  ASSERT_TRUE(payload);
  EXPECT_TRUE(payload->empty());
}

TEST(frame_reader, frame_over_the_limit_fails_before_allocating) {
  frame_reader r(100);
  r.feed(wire_bytes().i32(101).raw("abc"));
  EXPECT_FALSE(r.next());
  EXPECT_EQ(r.error(), client_error::frame_too_large);
  EXPECT_LT(r.capacity(), 100U);
  // Errors are final.
  r.feed(wire_bytes().i32(1).raw("z"));
  EXPECT_FALSE(r.next());
  EXPECT_EQ(r.error(), client_error::frame_too_large);
  EXPECT_EQ(r.bytes_wanted(), 0U);
}

TEST(frame_reader, huge_length_with_default_limit) {
  frame_reader r;
  r.feed(wire_bytes().i32(0x7fffffff));
  EXPECT_FALSE(r.next());
  EXPECT_EQ(r.error(), client_error::frame_too_large);
  EXPECT_FALSE(is_protocol_violation(r.error())) << "a reply too large for this client, not a broken stream";
  EXPECT_LT(r.capacity(), 64U);
}

TEST(frame_reader, negative_length_is_a_protocol_violation) {
  for (std::int32_t len : {-1, -2, std::numeric_limits<std::int32_t>::min()}) {
    frame_reader r;
    r.feed(wire_bytes().i32(len));
    EXPECT_FALSE(r.next());
    EXPECT_EQ(r.error(), client_error::protocol_violation);
  }
}

TEST(frame_reader, exactly_at_the_limit) {
  frame_reader r(64);
  r.feed(frames_of({std::string(64, 'm')}));
  const auto payload = r.next();
  ASSERT_TRUE(payload);
  EXPECT_EQ(payload->size(), 64U);
  EXPECT_FALSE(r.error());

  frame_reader over(64);
  over.feed(wire_bytes().i32(65));
  EXPECT_FALSE(over.next());
  EXPECT_EQ(over.error(), client_error::frame_too_large);
}

TEST(frame_reader, default_limit_accepts_a_max_size_get_data_reply) {
  // docs/protocol.md#limits: a 1,048,552-byte node produced a 1,048,640-byte reply frame.
  frame_reader r;
  EXPECT_EQ(r.max_frame_size(), jute::default_max_length);
  r.feed(wire_bytes().i32(1048640));
  EXPECT_FALSE(r.next());
  EXPECT_FALSE(r.error());
  EXPECT_EQ(r.bytes_wanted(), 1048640U);
}

TEST(frame_reader, prepare_and_commit_without_copies) {
  const std::string stream = frames_of({"alpha", "beta", std::string(5000, 'g')});
  frame_reader r;
  std::vector<std::string> got;
  std::size_t offset = 0;
  while (offset < stream.size()) {
    std::span<char> space = r.prepare(700);
    ASSERT_GE(space.size(), 700U);
    const std::size_t n = std::min<std::size_t>(333, stream.size() - offset);  // a short read
    std::memcpy(space.data(), stream.data() + offset, n);
    r.commit(n);
    offset += n;
    for (auto& f : drain(r)) got.push_back(std::move(f));
  }
  EXPECT_EQ(got, (std::vector<std::string>{"alpha", "beta", std::string(5000, 'g')}));
}

TEST(frame_reader, commit_is_clamped_to_the_prepared_size) {
  frame_reader r;
  std::span<char> space = r.prepare(4);
  std::memcpy(space.data(), wire_bytes().i32(0).bytes().data(), 4);
  r.commit(1000);
  EXPECT_EQ(r.buffered(), 4U);
  EXPECT_TRUE(r.next());
  r.commit(5);  // nothing prepared
  EXPECT_EQ(r.buffered(), 0U);
}

TEST(frame_reader, memory_stays_bounded_by_about_one_frame) {
  constexpr std::size_t max = 200 * 1024;
  constexpr std::size_t read_size = 16 * 1024;
  frame_reader r(max);
  // Frames just under the limit, streamed through fixed-size reads that straddle frame boundaries.
  const std::string stream = frames_of({std::string(max, 'a'), std::string(max - 1, 'b'), std::string(1, 'c'),
                                        std::string(max, 'd'), std::string(max / 2, 'e'), std::string(max, 'f')});
  std::size_t offset = 0;
  std::size_t frames = 0;
  std::size_t peak = 0;
  while (offset < stream.size()) {
    const std::size_t n = std::min(read_size, stream.size() - offset);
    std::span<char> space = r.prepare(read_size);
    std::memcpy(space.data(), stream.data() + offset, n);
    r.commit(n);
    offset += n;
    frames += drain(r).size();
    peak = std::max(peak, r.capacity());
  }
  EXPECT_EQ(frames, 6U);
  EXPECT_LE(peak, max + 4 + 2 * read_size);
}

// Reads of up to 64 KiB carrying 50 KB frames: each read ends inside a frame. prepare(64 KiB) would grow the buffer
// to that partial frame plus 64 KiB; prepare_some keeps it at the read size, and grows it only for a larger frame.
TEST(frame_reader, prepare_some_keeps_the_buffer_at_the_read_size_or_the_largest_frame) {
  constexpr std::size_t read_size = 64 * 1024;
  constexpr std::size_t frame = 50 * 1000;
  constexpr std::size_t large = 100 * 1000;
  std::vector<std::string> payloads;
  for (char c = 'a'; c < 'k'; ++c) payloads.emplace_back(frame, c);
  payloads.emplace_back(large, 'z');
  payloads.emplace_back(frame, 'k');
  const std::string stream = frames_of(payloads);
  frame_reader r;
  std::size_t offset = 0;
  std::vector<std::string> got;
  std::size_t peak_before_large = 0;
  while (offset < stream.size()) {
    std::span<char> space = r.prepare_some(read_size);
    ASSERT_GE(space.size(), 1U);
    ASSERT_LE(space.size(), std::max(read_size, r.bytes_wanted()));
    const std::size_t n = std::min(space.size(), stream.size() - offset);
    std::memcpy(space.data(), stream.data() + offset, n);
    r.commit(n);
    offset += n;
    for (auto& p : drain(r)) got.push_back(std::move(p));
    if (got.size() < 10) peak_before_large = std::max(peak_before_large, r.capacity());
  }
  EXPECT_EQ(got, payloads);
  EXPECT_EQ(peak_before_large, read_size);
  EXPECT_EQ(r.capacity(), large + 4) << "grown exactly for the frame that did not fit";
}

// A reader that asks for larger reads (the client doubles its read size during a burst) gets them, though no frame
// needs the room; a smaller ask reads less and keeps the buffer it has.
TEST(frame_reader, prepare_some_gives_a_larger_read_when_asked) {
  const std::string stream = frames_of({std::string(100, 'a')});
  frame_reader r;
  for (const std::size_t read_size : {std::size_t{4096}, std::size_t{8192}, std::size_t{65536}, std::size_t{4096}}) {
    std::span<char> space = r.prepare_some(read_size);
    EXPECT_EQ(space.size(), read_size);
    std::memcpy(space.data(), stream.data(), stream.size());
    r.commit(stream.size());
    EXPECT_EQ(drain(r).size(), 1U);
  }
  EXPECT_EQ(r.capacity(), 65536U);
}

// A length prefix alone allocates nothing of its length: reading through prepare_some grows the buffer only as the
// frame's bytes arrive, so a garbage (or hostile) length below a large limit costs what was actually sent.
TEST(frame_reader, prepare_some_grows_only_as_a_frames_bytes_arrive) {
  constexpr std::size_t read_size = 64 * 1024;
  constexpr std::size_t announced = std::size_t{512} * 1024 * 1024;
  frame_reader r(std::size_t{1} << 30);
  const std::string prefix = wire_bytes().i32(static_cast<std::int32_t>(announced)).bytes();
  std::span<char> space = r.prepare_some(read_size);
  std::memcpy(space.data(), prefix.data(), prefix.size());
  r.commit(prefix.size());
  EXPECT_FALSE(r.next());
  EXPECT_FALSE(r.error());
  std::size_t arrived = prefix.size();
  for (int i = 0; i < 8; ++i) {
    space = r.prepare_some(read_size);
    ASSERT_LE(r.capacity(), 2 * (arrived + read_size))
        << "after " << arrived << " bytes of a " << announced << "-byte frame";
    const std::size_t n = std::min(space.size(), read_size);
    std::memset(space.data(), 'x', n);
    r.commit(n);
    arrived += n;
    EXPECT_FALSE(r.next());
  }
}

// oversized_frames::skip: a frame over the limit is dropped as it arrives, in reads of any size, and next() then
// returns its head (a reply header's worth) with oversized_size() set; the frames behind it come out as usual.
TEST(frame_reader, skip_policy_drops_an_oversized_frame_and_keeps_its_head) {
  constexpr std::size_t limit = 100;
  std::string big(5000, 'b');
  for (std::size_t i = 0; i < frame_reader::oversized_head_size; ++i) big[i] = static_cast<char>('A' + i);
  const std::string stream = frames_of({"before", big, "after"});
  for (const std::size_t read_size : {std::size_t{1}, std::size_t{7}, std::size_t{64}, std::size_t{4096}}) {
    SCOPED_TRACE(read_size);
    frame_reader r(limit, oversized_frames::skip);
    std::vector<std::string> got;
    std::vector<std::size_t> sizes;
    for (std::size_t offset = 0; offset < stream.size();) {
      std::span<char> space = r.prepare_some(read_size);
      const std::size_t n = std::min({space.size(), read_size, stream.size() - offset});
      std::memcpy(space.data(), stream.data() + offset, n);
      r.commit(n);
      offset += n;
      while (auto payload = r.next()) {
        got.emplace_back(*payload);
        sizes.push_back(r.oversized_size());
      }
      ASSERT_LE(r.capacity(), limit + 4 + read_size);
    }
    EXPECT_FALSE(r.error());
    EXPECT_EQ(got, (std::vector<std::string>{"before", big.substr(0, frame_reader::oversized_head_size), "after"}));
    EXPECT_EQ(sizes, (std::vector<std::size_t>{0, big.size(), 0}));
  }
}

TEST(frame_reader, reset_clears_error_and_data) {
  frame_reader r(8);
  r.feed(wire_bytes().i32(9));
  EXPECT_FALSE(r.next());
  ASSERT_TRUE(r.error());
  r.reset();
  EXPECT_FALSE(r.error());
  EXPECT_EQ(r.buffered(), 0U);
  r.feed(frames_of({"ok"}));
  EXPECT_EQ(drain(r), std::vector<std::string>{"ok"});
}

TEST(frame_reader, feeds_the_reply_decoder) {
  std::string stream;
  ASSERT_FALSE(encode_reply_frame(stream, reply_header{1, 5, 0}, exists_response{}));
  ASSERT_FALSE(encode_reply_frame(stream, reply_header{-1, -1, 0},
                                  watcher_event{event_type::node_created, keeper_state::sync_connected, "/n"}));
  frame_reader r;
  r.feed(stream);
  auto first = r.next();
  ASSERT_TRUE(first);
  reply rep;
  ASSERT_FALSE(decode_reply(*first, op_code::exists, rep));
  auto second = r.next();
  ASSERT_TRUE(second);
  watcher_event event;
  ASSERT_FALSE(decode_notification(*second, event));
  EXPECT_EQ(event.path, "/n");
}

}  // namespace
}  // namespace zkwire::proto
