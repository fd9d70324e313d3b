#pragma once
// Builds expected wire bytes by hand, field by field, so tests compare the codec against docs/protocol.md rather than
// against itself.

#include <cstdint>
#include <string>
#include <string_view>

namespace zkwire::proto::test {

class wire_bytes {
 public:
  wire_bytes& i32(std::int32_t v) { return be(static_cast<std::uint32_t>(v), 4); }
  wire_bytes& i64(std::int64_t v) {
    const auto u = static_cast<std::uint64_t>(v);
    be(static_cast<std::uint32_t>(u >> 32), 4);
    return be(static_cast<std::uint32_t>(u & 0xffffffffU), 4);
  }
  wire_bytes& boolean(bool v) { return byte(v ? 1 : 0); }
  wire_bytes& byte(unsigned char b) {
    bytes_.push_back(static_cast<char>(b));
    return *this;
  }
  // A ustring or buffer: int32 length + bytes.
  wire_bytes& str(std::string_view s) {
    i32(static_cast<std::int32_t>(s.size()));
    bytes_.append(s);
    return *this;
  }
  wire_bytes& null() { return i32(-1); }
  wire_bytes& raw(std::string_view s) {
    bytes_.append(s);
    return *this;
  }
  // A frame: int32 length of `payload`, then `payload`.
  wire_bytes& frame(std::string_view payload) { return str(payload); }
  // Stat with every field set from `base` upwards, so field order mistakes show.
  wire_bytes& stat_seq(std::int64_t base) {
    i64(base).i64(base + 1).i64(base + 2).i64(base + 3);
    i32(static_cast<std::int32_t>(base + 4)).i32(static_cast<std::int32_t>(base + 5));
    i32(static_cast<std::int32_t>(base + 6));
    i64(base + 7);
    i32(static_cast<std::int32_t>(base + 8)).i32(static_cast<std::int32_t>(base + 9));
    return i64(base + 10);
  }

  [[nodiscard]] const std::string& bytes() const noexcept { return bytes_; }
  operator std::string_view() const noexcept { return bytes_; }  // NOLINT(google-explicit-constructor)
  [[nodiscard]] std::size_t size() const noexcept { return bytes_.size(); }

 private:
  wire_bytes& be(std::uint32_t v, int n) {
    for (int i = n - 1; i >= 0; --i) bytes_.push_back(static_cast<char>((v >> (8 * i)) & 0xffU));
    return *this;
  }
  std::string bytes_;
};

}  // namespace zkwire::proto::test
