#include "zkwire/jute/reader.hpp"

#include <cstring>

namespace zkwire::jute {

const char* reader::take(std::size_t n) noexcept {
  if (error_) return nullptr;
  if (remaining() < n) {
    fail(error::need_more_bytes);
    return nullptr;
  }
  const char* p = input_.data() + pos_;
  pos_ += n;
  return p;
}

std::int32_t reader::read_int() noexcept {
  const char* p = take(4);
  if (p == nullptr) return 0;
  std::uint32_t v = 0;
  for (int i = 0; i < 4; ++i) v = (v << 8) | static_cast<unsigned char>(p[i]);
  return static_cast<std::int32_t>(v);
}

std::int64_t reader::read_long() noexcept {
  const char* p = take(8);
  if (p == nullptr) return 0;
  std::uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v = (v << 8) | static_cast<unsigned char>(p[i]);
  return static_cast<std::int64_t>(v);
}

bool reader::read_bool() noexcept {
  const char* p = take(1);
  if (p == nullptr) return false;
  const auto b = static_cast<unsigned char>(*p);
  if (b > 1) {
    fail(error::invalid_boolean);
    return false;
  }
  return b == 1;
}

std::int32_t reader::read_length(bool* is_null) noexcept {
  if (is_null != nullptr) *is_null = false;
  const std::int32_t len = read_int();
  if (!ok()) return 0;
  if (len == -1) {
    if (is_null != nullptr) *is_null = true;
    return 0;
  }
  if (len < 0) {
    fail(error::negative_length);
    return 0;
  }
  if (static_cast<std::size_t>(len) > max_length_) {
    fail(error::length_exceeds_limit);
    return 0;
  }
  return len;
}

std::string_view reader::read_buffer_view(bool* is_null) noexcept {
  const std::int32_t len = read_length(is_null);
  if (len == 0) return {};
  const char* p = take(static_cast<std::size_t>(len));
  if (p == nullptr) return {};
  return {p, static_cast<std::size_t>(len)};
}

std::optional<std::string> reader::read_buffer() {
  bool is_null = false;
  const std::string_view view = read_buffer_view(&is_null);
  if (is_null || !ok()) return std::nullopt;
  return std::string(view);
}

std::string reader::read_ustring() { return std::string(read_buffer_view()); }

std::int32_t reader::read_count(std::size_t min_element_size) noexcept {
  const std::int32_t count = read_int();
  if (!ok() || count == -1) return ok() ? -1 : 0;
  if (count < 0) {
    fail(error::negative_length);
    return 0;
  }
  if (min_element_size != 0 && static_cast<std::size_t>(count) > remaining() / min_element_size) {
    fail(error::count_exceeds_input);
    return 0;
  }
  return count;
}

std::vector<std::string> reader::read_ustring_vector() {
  std::vector<std::string> out;
  read_vector(out, 4, [](reader& r) { return r.read_ustring(); });
  return out;
}

std::error_code reader::finish() noexcept {
  if (ok() && remaining() != 0) fail(error::trailing_bytes);
  return error_;
}

}  // namespace zkwire::jute
