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
  const std::size_t need = std::max<std::size_t>(bytes_wanted(), 1);
  if (buffer_.size() - end_ < need) buffer_.resize(std::max(end_ + need, n));
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
  if (static_cast<std::size_t>(length) > max_frame_size_) {
    error_ = client_error::frame_too_large;
    return std::nullopt;
  }
  return static_cast<std::size_t>(length);
}

std::optional<std::string_view> frame_reader::next() {
  const auto length = frame_length();
  if (!length || buffered() - prefix_size < *length) return std::nullopt;
  const std::string_view payload(buffer_.data() + begin_ + prefix_size, *length);
  begin_ += prefix_size + *length;
  return payload;
}

std::size_t frame_reader::bytes_wanted() const noexcept {
  if (error_) return 0;
  if (buffered() < prefix_size) return prefix_size - buffered();
  std::uint32_t raw = 0;
  for (std::size_t i = 0; i < prefix_size; ++i) raw = (raw << 8) | static_cast<unsigned char>(buffer_[begin_ + i]);
  // A bad prefix is reported by next(); until then, ask for nothing more.
  if (static_cast<std::int32_t>(raw) < 0 || raw > max_frame_size_) return 0;
  const std::size_t total = prefix_size + raw;
  return total > buffered() ? total - buffered() : 0;
}

void frame_reader::reset() noexcept {
  begin_ = end_ = prepared_ = 0;
  error_.clear();
}

}  // namespace zkwire::proto
