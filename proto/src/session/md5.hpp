#pragma once
// MD5 (RFC 1321), for SASL DIGEST-MD5 only (docs/protocol.md#sasl): the mechanism is defined on MD5, so it is
// used here as that protocol's hash, never as a security primitive of zkwire's own. proto/ depends on the
// standard library alone, hence this small implementation.
//
// Thread safety: md5 objects are plain values; md5_digest() is reentrant.

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace zkwire::proto::session_detail {

using md5_hash = std::array<unsigned char, 16>;

class md5 {
 public:
  md5() noexcept;
  void update(std::string_view bytes) noexcept;
  // Pads and returns the hash; the object must not be updated afterwards.
  md5_hash finish() noexcept;

 private:
  void block(const unsigned char* p) noexcept;

  std::array<std::uint32_t, 4> state_;
  std::array<unsigned char, 64> buffer_{};
  std::size_t buffered_ = 0;
  std::uint64_t length_ = 0;  // bytes
};

md5_hash md5_digest(std::string_view bytes) noexcept;
// The hash as 32 lower-case hex digits (RFC 2831's HEX()).
std::string md5_hex(const md5_hash& hash);

}  // namespace zkwire::proto::session_detail
