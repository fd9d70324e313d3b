#include "zkwire/proto/frame_reader.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "zkwire/proto/error.hpp"

namespace zkwire::proto {
namespace {

constexpr std::size_t prefix_size = 4;

}  // namespace

void frame_reader::reclaim(std::size_t n) noexcept {
  if (begin_ == end_) {
    begin_ = end_ = 0;
  } else if (buffer_.size() - end_ < n && begin_ > 0) {
    // Reclaim consumed bytes before growing, so the buffer stays bounded by one partial frame plus a read.
    std::memmove(buffer_.data(), buffer_.data() + begin_, end_ - begin_);
    end_ -= begin_;
    begin_ = 0;
  }
}

std::span<char> frame_reader::prepare(std::size_t n) {
  reclaim(n);
  if (buffer_.size() - end_ < n) buffer_.resize(end_ + n);
  prepared_ = n;
  return {buffer_.data() + end_, n};
}

std::span<char> frame_reader::prepare_some(std::size_t n) {
  reclaim(n);
  // A frame that does not fit grows the buffer only as its bytes arrive: by what is already buffered (so by
  // doubling), at least n. A length prefix alone, garbage or not, never allocates its length; the bytes of a frame
  // being skipped need no more than one read.
  const std::size_t wanted = std::max<std::size_t>(bytes_wanted(), 1);
  const std::size_t need = std::min(wanted, skipping_ ? std::max<std::size_t>(n, 1) : std::max(n, buffered()));
  // A reader asking for larger reads than before gets them (the buffer reaches n), also when no frame needs it.
  if (buffer_.size() - end_ < need || buffer_.size() < n) buffer_.resize(std::max({buffer_.size(), end_ + need, n}));
  prepared_ = std::min(buffer_.size() - end_, std::max(n, need));
  return {buffer_.data() + end_, prepared_};
}

void frame_reader::commit(std::size_t n) noexcept {
  end_ += std::min(n, prepared_);
  prepared_ = 0;
}

void frame_reader::feed(std::string_view bytes) {
  if (bytes.empty()) return;
  std::span<char> space = prepare(bytes.size());
  std::memcpy(space.data(), bytes.data(), bytes.size());
  commit(bytes.size());
}

std::optional<std::size_t> frame_reader::frame_length() {
  if (error_ || buffered() < prefix_size) return std::nullopt;
  std::uint32_t raw = 0;
  for (std::size_t i = 0; i < prefix_size; ++i) raw = (raw << 8) | static_cast<unsigned char>(buffer_[begin_ + i]);
  const auto length = static_cast<std::int32_t>(raw);
  if (length < 0) {
    error_ = client_error::protocol_violation;
    return std::nullopt;
  }
  if (static_cast<std::size_t>(length) > max_frame_size_ && policy_ == oversized_frames::fail) {
    error_ = client_error::frame_too_large;
    return std::nullopt;
  }
  if (static_cast<std::size_t>(length) > max_frame_size_) {
    // Skipped as it arrives (skip()); only its head is kept, for the layer above to fail the request it answers.
    begin_ += prefix_size;
    skipping_ = true;
    skip_size_ = static_cast<std::size_t>(length);
    skip_left_ = skip_size_;
    head_size_ = 0;
    return std::nullopt;
  }
  return static_cast<std::size_t>(length);
}

bool frame_reader::skip() noexcept {
  const std::size_t n = std::min(buffered(), skip_left_);
  const std::size_t keep = std::min(n, std::min(head_.size(), skip_size_) - head_size_);
  std::memcpy(head_.data() + head_size_, buffer_.data() + begin_, keep);
  head_size_ += keep;
  begin_ += n;
  skip_left_ -= n;
  if (skip_left_ > 0) return false;
  skipping_ = false;
  oversized_ = skip_size_;
  return true;
}

std::optional<std::string_view> frame_reader::next() {
  oversized_ = 0;
  if (skipping_) {
    if (!skip()) return std::nullopt;
    return std::string_view(head_.data(), head_size_);
  }
  const auto length = frame_length();
  if (skipping_) return next();
  if (!length || buffered() - prefix_size < *length) return std::nullopt;
  const std::string_view payload(buffer_.data() + begin_ + prefix_size, *length);
  begin_ += prefix_size + *length;
  return payload;
}

std::size_t frame_reader::bytes_wanted() const noexcept {
  if (error_) return 0;
  if (skipping_) return skip_left_ > buffered() ? skip_left_ - buffered() : 0;
  if (buffered() < prefix_size) return prefix_size - buffered();
  std::uint32_t raw = 0;
  for (std::size_t i = 0; i < prefix_size; ++i) raw = (raw << 8) | static_cast<unsigned char>(buffer_[begin_ + i]);
  // A bad prefix is reported by next(); until then, ask for nothing more.
  if (static_cast<std::int32_t>(raw) < 0 || (raw > max_frame_size_ && policy_ == oversized_frames::fail)) return 0;
  const std::size_t total = prefix_size + raw;
  return total > buffered() ? total - buffered() : 0;
}

void frame_reader::reset() noexcept {
  begin_ = end_ = prepared_ = 0;
  skipping_ = false;
  skip_size_ = skip_left_ = head_size_ = oversized_ = 0;
  error_.clear();
}

}  // namespace zkwire::proto
