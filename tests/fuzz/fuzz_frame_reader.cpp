// fuzz_frame_reader: proto::frame_reader splitting a byte stream that arrives in chunks whose sizes, and the API
// used to deliver them, come from the input.
//
// Input: byte 0 picks max_frame_size (4096, 16 or 0), then a list of steps until the input runs out. A step's
// control byte: low 2 bits the action, high 6 bits a size (63: the size is the next 2 bytes, modulo 8192).
//   0  feed() the next `size` input bytes
//   1  prepare(size), fill it with the next input bytes (zeros after the input ends), commit all of it
//   2  the same, but commit a count taken from the input (possibly more than prepared: clamped), then commit again
//   3  feed() a synthesized length prefix for the next `size % (max_frame_size + 2)` bytes, so that well-formed
//      streams are easy to reach
// After every step all complete frames are drained with next().
//
// Properties, against a model that parses the concatenation of everything committed:
//  1. next() returns exactly the model's frames, in order, and nothing while a frame is incomplete. Every payload
//     returned in one drain still holds its bytes after the drain (views stay valid until the next prepare/feed).
//  2. A negative length prefix gives client_error::protocol_violation, one above max_frame_size
//     client_error::frame_too_large, as soon as its 4 bytes are in; after that next() returns nothing, the error
//     stays and bytes_wanted() is 0 (errors are final).
//  3. buffered() is the number of bytes committed and not returned; bytes_wanted() is what completes the current
//     frame (the 4 prefix bytes first), so it is > 0 whenever no whole frame is buffered.
//  4. commit() never commits more than the last prepare() offered, and a second commit() adds nothing.
//  5. Bounded memory: when every complete frame is drained after each read, capacity() never exceeds
//     max_frame_size + 4 + the largest single prepare()/feed() size: one partial frame (prefix included, less one
//     byte) plus one read. This is the slack frame_reader.hpp documents.
//  6. reset() drops buffered bytes and the error but keeps the buffer; the reader then works again.

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "fuzz_check.hpp"
#include "zkwire/proto/frame_reader.hpp"

namespace {

namespace proto = zkwire::proto;
using zkwire::fuzz::be32;
using zkwire::fuzz::load_be32;

constexpr std::size_t prefix_size = 4;

// The stream as committed, parsed independently of frame_reader.
class model {
 public:
  explicit model(std::size_t max_frame_size) : max_frame_size_(max_frame_size) {}

  void append(std::string_view bytes) { stream_.append(bytes); }

  // The next complete frame, or nullopt (then error() may be set).
  std::optional<std::string_view> next() {
    if (error_ || stream_.size() - pos_ < prefix_size) return std::nullopt;
    const auto length = static_cast<std::int32_t>(load_be32(stream_, pos_));
    if (length < 0) {
      error_ = proto::client_error::protocol_violation;
      return std::nullopt;
    }
    if (static_cast<std::size_t>(length) > max_frame_size_) {
      error_ = proto::client_error::frame_too_large;
      return std::nullopt;
    }
    const auto n = static_cast<std::size_t>(length);
    if (stream_.size() - pos_ - prefix_size < n) return std::nullopt;
    const std::string_view payload = std::string_view(stream_).substr(pos_ + prefix_size, n);
    pos_ += prefix_size + n;
    return payload;
  }

  [[nodiscard]] std::error_code error() const noexcept { return error_; }
  [[nodiscard]] std::size_t buffered() const noexcept { return stream_.size() - pos_; }
  // Only meaningful after next() returned nullopt without an error.
  [[nodiscard]] std::size_t bytes_wanted() const noexcept {
    if (error_) return 0;
    if (buffered() < prefix_size) return prefix_size - buffered();
    return prefix_size + load_be32(stream_, pos_) - buffered();
  }

 private:
  std::size_t max_frame_size_;
  std::string stream_;
  std::size_t pos_ = 0;
  std::error_code error_;
};

std::size_t max_frame_size_for(std::uint8_t selector) {
  switch (selector % 4) {
    case 2:
      return 16;
    case 3:
      return 0;
    default:
      return 4096;
  }
}

// Drains the reader and checks properties 1-3. Returns false once the stream is in error.
bool drain(proto::frame_reader& reader, model& m) {
  std::vector<std::string_view> got;
  std::vector<std::string_view> want;
  for (;;) {
    const auto payload = reader.next();
    const auto expected = m.next();
    ZKWIRE_FUZZ_CHECK(payload.has_value() == expected.has_value());
    if (!payload) break;
    ZKWIRE_FUZZ_CHECK(*payload == *expected);
    ZKWIRE_FUZZ_CHECK(payload->size() <= reader.max_frame_size());
    got.push_back(*payload);
    want.push_back(*expected);
  }
  // Property 1: the views of this drain are all still intact.
  for (std::size_t i = 0; i < got.size(); ++i) ZKWIRE_FUZZ_CHECK(got[i] == want[i]);

  // Properties 2 and 3.
  ZKWIRE_FUZZ_CHECK(reader.error() == m.error());
  ZKWIRE_FUZZ_CHECK(reader.buffered() == m.buffered());
  ZKWIRE_FUZZ_CHECK(reader.bytes_wanted() == m.bytes_wanted());
  if (reader.error()) {
    ZKWIRE_FUZZ_CHECK(reader.error() == proto::client_error::protocol_violation ||
                      reader.error() == proto::client_error::frame_too_large);
    ZKWIRE_FUZZ_CHECK(!reader.next());
    ZKWIRE_FUZZ_CHECK(reader.bytes_wanted() == 0);
    return false;
  }
  ZKWIRE_FUZZ_CHECK(reader.bytes_wanted() > 0);
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* bytes, std::size_t size) {
  zkwire::fuzz::byte_source in(zkwire::fuzz::as_bytes(bytes, size));
  const std::size_t max_frame_size = max_frame_size_for(in.take_u8());
  proto::frame_reader reader(max_frame_size);
  model m(max_frame_size);
  ZKWIRE_FUZZ_CHECK(reader.max_frame_size() == max_frame_size);
  ZKWIRE_FUZZ_CHECK(reader.buffered() == 0 && reader.bytes_wanted() == prefix_size && !reader.error());

  std::size_t largest_read = 0;
  bool healthy = true;
  while (healthy && !in.empty()) {
    const std::uint8_t control = in.take_u8();
    std::size_t n = control >> 2;
    if (n == 63) n = in.take_u16() % 8192U;  // reads larger than a frame, but not so large that runs get slow
    switch (control & 3U) {
      case 0: {
        const std::string_view chunk = in.take(n);
        reader.feed(chunk);
        m.append(chunk);
        largest_read = std::max(largest_read, chunk.size());
        break;
      }
      case 1:
      case 2: {
        const std::span<char> space = reader.prepare(n);
        ZKWIRE_FUZZ_CHECK(space.size() == n);
        const std::string_view chunk = in.take(n);
        if (n != 0) {
          std::memcpy(space.data(), chunk.data(), chunk.size());
          std::memset(space.data() + chunk.size(), 0, n - chunk.size());
        }
        std::size_t committed = n;
        if ((control & 3U) == 2) committed = in.take_u8();
        reader.commit(committed);
        // Property 4: at most what prepare() offered, and only once.
        m.append(std::string_view(space.data(), std::min(committed, n)));
        if ((control & 3U) == 2) reader.commit(5);
        largest_read = std::max(largest_read, n);
        break;
      }
      default: {
        const std::string prefix = be32(static_cast<std::uint32_t>(n % (max_frame_size + 2)));
        reader.feed(prefix);
        m.append(prefix);
        largest_read = std::max(largest_read, prefix.size());
        break;
      }
    }
    healthy = drain(reader, m);
    // Property 5.
    ZKWIRE_FUZZ_CHECK(reader.capacity() <= max_frame_size + prefix_size + largest_read);
  }

  // Property 6.
  const std::size_t capacity = reader.capacity();
  reader.reset();
  ZKWIRE_FUZZ_CHECK(reader.capacity() == capacity);
  ZKWIRE_FUZZ_CHECK(reader.buffered() == 0 && !reader.error() && reader.bytes_wanted() == prefix_size);
  ZKWIRE_FUZZ_CHECK(!reader.next());
  const std::string frame = be32(0) + be32(static_cast<std::uint32_t>(std::min<std::size_t>(3, max_frame_size)));
  reader.feed(frame);
  reader.feed("abc");
  const auto empty = reader.next();
  ZKWIRE_FUZZ_CHECK(empty && empty->empty());
  const auto payload = reader.next();
  ZKWIRE_FUZZ_CHECK(payload && *payload == std::string_view("abc").substr(0, std::min<std::size_t>(3, max_frame_size)));
  return 0;
}
