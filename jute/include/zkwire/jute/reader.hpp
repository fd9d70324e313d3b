#pragma once
// Bounded, non-throwing decoder of Jute primitives over a byte range it does not own.
//
// Errors are sticky: the first failure is recorded, every later read returns a zero value and consumes
// nothing, so a record decoder is straight-line code checked once at the end with error()/finish().
// Lengths and counts are checked against the configured maximum and against the bytes actually left before
// anything is allocated, so a hostile count such as 2^30 never reaches an allocator.
//
// Thread safety: none (one reader per thread). Lifetime: the input must outlive the reader and every
// string_view it returns.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "zkwire/jute/error.hpp"
#include "zkwire/jute/limits.hpp"

namespace zkwire::jute {

class reader {
 public:
  explicit reader(std::string_view input, std::size_t max_length = default_max_length) noexcept
      : input_(input), max_length_(max_length) {}
  // A reader over a temporary string would dangle at once.
  reader(std::string&&, std::size_t = default_max_length) = delete;

  std::int32_t read_int() noexcept;
  std::int64_t read_long() noexcept;
  // Accepts exactly 0 or 1; anything else is error::invalid_boolean.
  bool read_bool() noexcept;

  // A buffer as a view into the input. A null buffer (length -1) gives an empty view and sets *is_null.
  std::string_view read_buffer_view(bool* is_null = nullptr) noexcept;
  // A buffer copied out; null (length -1) is std::nullopt, distinct from an empty buffer.
  std::optional<std::string> read_buffer();
  // A ustring. The server never sends a null string where a client reads one; a null is read as empty so
  // that a decoder stays total.
  std::string read_ustring();
  std::string_view read_ustring_view() noexcept { return read_buffer_view(); }

  // A vector count: -1 (null) comes back as -1, anything else is checked so that count * min_element_size
  // fits in the bytes left. min_element_size must be the smallest encoding of one element (> 0).
  std::int32_t read_count(std::size_t min_element_size) noexcept;

  // Reads a vector whose elements are decoded by read_element(reader&) -> T. Null reads as empty.
  template <class T, class ReadElement>
  void read_vector(std::vector<T>& out, std::size_t min_element_size, ReadElement&& read_element) {
    out.clear();
    const std::int32_t count = read_count(min_element_size);
    if (count <= 0) return;
    out.reserve(static_cast<std::size_t>(count));
    for (std::int32_t i = 0; i < count && ok(); ++i) out.push_back(read_element(*this));
  }

  std::vector<std::string> read_ustring_vector();

  // Records a failure unless one is recorded already (the first error wins).
  void fail(error e) noexcept {
    if (!error_) error_ = e;
  }
  [[nodiscard]] bool ok() const noexcept { return !error_; }
  [[nodiscard]] std::error_code error() const noexcept { return error_; }
  // The record must end exactly here: sets error::trailing_bytes if input is left. Returns error().
  std::error_code finish() noexcept;

  [[nodiscard]] std::size_t position() const noexcept { return pos_; }
  [[nodiscard]] std::size_t remaining() const noexcept { return input_.size() - pos_; }
  [[nodiscard]] std::string_view rest() const noexcept { return input_.substr(pos_); }
  // Consumes whatever is left (used where the protocol allows bodies a client must ignore).
  void skip_rest() noexcept { pos_ = input_.size(); }

 private:
  // Returns a pointer to n readable bytes and advances, or nullptr after recording need_more_bytes.
  const char* take(std::size_t n) noexcept;
  // Reads a length for a buffer/string: -1 is null (*is_null), other negatives and over-limit fail.
  std::int32_t read_length(bool* is_null) noexcept;

  std::string_view input_;
  std::size_t pos_ = 0;
  std::size_t max_length_;
  std::error_code error_;
};

}  // namespace zkwire::jute
