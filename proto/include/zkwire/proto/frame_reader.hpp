#pragma once
// Splits the byte stream of one connection into frame payloads: [int32 len][len bytes] (docs/protocol.md#framing).
//
// Feeding: either copy received bytes in with feed(), or let the socket read straight into the reader's buffer:
//
//   std::span<char> space = reader.prepare(64 * 1024);
//   std::size_t n = socket.read_some(asio::buffer(space.data(), space.size()));
//   reader.commit(n);
//   while (auto payload = reader.next()) handle(*payload);
//   if (reader.error()) drop_connection(reader.error());
//
// Limits: a negative length prefix is client_error::protocol_violation, reported as soon as the 4 prefix bytes are
// in; such errors are final: the stream cannot be resynchronised, so after one next() returns nothing and error()
// stays set until reset(). A length above max_frame_size is, by the policy given to the constructor, either the
// same kind of final error (client_error::frame_too_large, oversized_frames::fail) or skipped
// (oversized_frames::skip): its bytes are dropped as they arrive, and once the last one is in next() returns the
// frame's first bytes (up to oversized_head_size, enough for a reply header) with oversized_size() set to the
// announced length, so that the layer above can fail the one request it answers and keep the connection. A
// zero-length frame is returned as an empty payload; whether that is acceptable is for the layer above (no
// ZooKeeper message is empty).
//
// Memory: the buffer holds at most one partial frame plus the last prepare() size, so it stays around
// max_frame_size + 4 + the read size; consumed bytes are reclaimed (moved to the front) on prepare(), prepare_some()
// and feed(). Reading through prepare_some(n) keeps it at the larger of n and the largest frame received, and grows
// it only as a frame's bytes arrive (never to a length prefix's announced size at once: a garbage length costs
// nothing until that many bytes came); a skipped frame costs one read.
//
// Thread safety: none; one reader per connection, used from one thread (or strand) at a time.

#include <array>
#include <cstddef>
#include <optional>
#include <span>
#include <string_view>
#include <system_error>
#include <vector>

#include "zkwire/jute/limits.hpp"

namespace zkwire::proto {

// What a frame_reader does with a frame longer than its maximum (see the header comment).
enum class oversized_frames { fail, skip };

class frame_reader {
 public:
  // How many first bytes of a skipped frame next() returns: a reply header (xid, zxid, err).
  static constexpr std::size_t oversized_head_size = 16;

  // The default accepts a little over 1 MiB: a getData reply for a node at the server's jute.maxbuffer is larger
  // than the limit itself (header and Stat come on top).
  explicit frame_reader(std::size_t max_frame_size = jute::default_max_length,
                        oversized_frames policy = oversized_frames::fail) noexcept
      : max_frame_size_(max_frame_size), policy_(policy) {}

  // Writable space for at least n bytes at the end of the buffered data. Valid until the next non-const call.
  // Invalidates payloads returned by next().
  std::span<char> prepare(std::size_t n);
  // Writable space for a read of up to n bytes, and at least what completes the frame being received: the buffer
  // grows only for a frame that does not fit or to n when it is smaller, never to a partial frame plus n as
  // prepare(n) would. Valid and invalidating like prepare().
  std::span<char> prepare_some(std::size_t n);
  // Marks the first n bytes of the last prepare() or prepare_some() as received (clamped to what was prepared).
  void commit(std::size_t n) noexcept;
  // Copies received bytes in (prepare + copy + commit). Invalidates payloads returned by next().
  void feed(std::string_view bytes);

  // The next complete frame's payload (without the length prefix), or nullopt when more bytes are needed or the
  // stream is broken (check error()). The view stays valid until the next prepare(), feed() or reset(), so several
  // payloads can be held at once between reads (the head of a skipped frame: until the next call of next()).
  std::optional<std::string_view> next();

  // The announced length of the frame whose head the last next() returned, when it was skipped as oversized;
  // 0 for a whole frame (or before any).
  [[nodiscard]] std::size_t oversized_size() const noexcept { return oversized_; }

  // client_error::frame_too_large or client_error::protocol_violation once a bad length prefix was seen.
  [[nodiscard]] std::error_code error() const noexcept { return error_; }

  // Bytes received and not yet returned by next().
  [[nodiscard]] std::size_t buffered() const noexcept { return end_ - begin_; }
  // A frame has begun (some of its bytes arrived, or it is being skipped) and is not complete yet.
  [[nodiscard]] bool mid_frame() const noexcept { return skipping_ || end_ > begin_; }
  // How many more bytes complete the frame being received (at least 1 when nothing is buffered: the prefix needs
  // 4). A hint for sizing reads; 0 when a whole frame is buffered or after an error.
  [[nodiscard]] std::size_t bytes_wanted() const noexcept;
  [[nodiscard]] std::size_t max_frame_size() const noexcept { return max_frame_size_; }
  // Allocated buffer size, for tests of the memory bound.
  [[nodiscard]] std::size_t capacity() const noexcept { return buffer_.size(); }

  // Drops buffered bytes and any error, e.g. for a new connection. Keeps the allocated buffer.
  void reset() noexcept;

 private:
  // Forgets consumed bytes: resets an empty buffer, and moves buffered ones to the front when fewer than n bytes
  // are free at the end.
  void reclaim(std::size_t n) noexcept;
  // Reads the length prefix at begin_ if all 4 bytes are there; records an error for a bad one, or starts
  // skipping an oversized one.
  std::optional<std::size_t> frame_length();
  // Drops the buffered bytes of the frame being skipped, keeping its head; true once all of it went by.
  bool skip() noexcept;

  std::vector<char> buffer_;
  std::size_t begin_ = 0;     // first unconsumed byte
  std::size_t end_ = 0;       // one past the last received byte
  std::size_t prepared_ = 0;  // size of the last prepare(), bounds commit()
  std::size_t max_frame_size_;
  oversized_frames policy_;
  std::error_code error_;
  // The oversized frame being skipped: its announced length, what is still to come, its first bytes.
  bool skipping_ = false;
  std::size_t skip_size_ = 0;
  std::size_t skip_left_ = 0;
  std::array<char, oversized_head_size> head_{};
  std::size_t head_size_ = 0;
  std::size_t oversized_ = 0;  // see oversized_size()
};

}  // namespace zkwire::proto
