#pragma once
// Encoder of Jute primitives that appends to a caller-owned std::string, so a connection can reuse one
// output buffer for every request (no allocation per request once it has grown).
//
// Errors are sticky: a value that cannot be encoded (longer than INT32_MAX, or output past the configured
// maximum) records error::value_too_large, and every later write is ignored. Check error() once after
// writing a whole record. Thread safety: none. Lifetime: the output string must outlive the writer.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>

#include "zkwire/jute/error.hpp"
#include "zkwire/jute/limits.hpp"

namespace zkwire::jute {

class writer {
 public:
  // max_size bounds the bytes this writer appends (not counting what `out` already held).
  explicit writer(std::string& out, std::size_t max_size = max_wire_length) noexcept
      : out_(out), start_(out.size()), max_size_(max_size) {}

  void write_int(std::int32_t v);
  void write_long(std::int64_t v);
  void write_bool(bool v);
  void write_buffer(std::string_view bytes);
  // std::nullopt is written as a null buffer (length -1).
  void write_buffer(const std::optional<std::string>& bytes);
  void write_null_buffer();
  void write_ustring(std::string_view s) { write_buffer(s); }
  // A vector count; the elements follow through the caller.
  void write_count(std::size_t count);

  template <class Range, class WriteElement>
  void write_vector(const Range& elements, WriteElement&& write_element) {
    write_count(std::size(elements));
    for (const auto& e : elements) {
      if (!ok()) return;
      write_element(*this, e);
    }
  }

  // Reserves a 4-byte length prefix and returns its offset in the output; end_length_prefix patches in
  // the number of bytes written after it. Used for frames.
  std::size_t begin_length_prefix();
  void end_length_prefix(std::size_t offset);

  void fail(error e) noexcept {
    if (!error_) error_ = e;
  }
  [[nodiscard]] bool ok() const noexcept { return !error_; }
  [[nodiscard]] std::error_code error() const noexcept { return error_; }
  // Bytes appended by this writer so far.
  [[nodiscard]] std::size_t size() const noexcept { return out_.size() - start_; }

 private:
  // Appends n raw bytes unless that would pass the limit; false after recording the failure.
  bool append(const char* p, std::size_t n);

  std::string& out_;
  std::size_t start_;
  std::size_t max_size_;
  std::error_code error_;
};

}  // namespace zkwire::jute
