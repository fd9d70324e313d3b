// MD5 as RFC 1321 specifies it: 64-byte blocks, four rounds of sixteen steps, little-endian words.

#include "md5.hpp"

#include <algorithm>
#include <cstring>

namespace zkwire::proto::session_detail {
namespace {

// Per-step left rotations, by round (RFC 1321 section 3.4).
constexpr std::array<std::uint32_t, 16> shifts{7, 12, 17, 22, 5, 9, 14, 20, 4, 11, 16, 23, 6, 10, 15, 21};

// T[i] = floor(2^32 * abs(sin(i + 1))), the RFC's table.
constexpr std::array<std::uint32_t, 64> sines{
    0xd76aa478, 0xe8c7b756, 0x242070db, 0xc1bdceee, 0xf57c0faf, 0x4787c62a, 0xa8304613, 0xfd469501,
    0x698098d8, 0x8b44f7af, 0xffff5bb1, 0x895cd7be, 0x6b901122, 0xfd987193, 0xa679438e, 0x49b40821,
    0xf61e2562, 0xc040b340, 0x265e5a51, 0xe9b6c7aa, 0xd62f105d, 0x02441453, 0xd8a1e681, 0xe7d3fbc8,
    0x21e1cde6, 0xc33707d6, 0xf4d50d87, 0x455a14ed, 0xa9e3e905, 0xfcefa3f8, 0x676f02d9, 0x8d2a4c8a,
    0xfffa3942, 0x8771f681, 0x6d9d6122, 0xfde5380c, 0xa4beea44, 0x4bdecfa9, 0xf6bb4b60, 0xbebfbc70,
    0x289b7ec6, 0xeaa127fa, 0xd4ef3085, 0x04881d05, 0xd9d4d039, 0xe6db99e5, 0x1fa27cf8, 0xc4ac5665,
    0xf4292244, 0x432aff97, 0xab9423a7, 0xfc93a039, 0x655b59c3, 0x8f0ccc92, 0xffeff47d, 0x85845dd1,
    0x6fa87e4f, 0xfe2ce6e0, 0xa3014314, 0x4e0811a1, 0xf7537e82, 0xbd3af235, 0x2ad7d2bb, 0xeb86d391};

constexpr std::uint32_t rotl(std::uint32_t x, std::uint32_t n) noexcept { return (x << n) | (x >> (32U - n)); }

}  // namespace

md5::md5() noexcept : state_{0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476} {}

void md5::block(const unsigned char* p) noexcept {
  std::array<std::uint32_t, 16> x{};
  for (std::size_t i = 0; i < 16; ++i) {
    x[i] = static_cast<std::uint32_t>(p[i * 4]) | (static_cast<std::uint32_t>(p[i * 4 + 1]) << 8U) |
           (static_cast<std::uint32_t>(p[i * 4 + 2]) << 16U) | (static_cast<std::uint32_t>(p[i * 4 + 3]) << 24U);
  }
  std::uint32_t a = state_[0];
  std::uint32_t b = state_[1];
  std::uint32_t c = state_[2];
  std::uint32_t d = state_[3];
  for (std::size_t i = 0; i < 64; ++i) {
    std::uint32_t f = 0;
    std::size_t g = 0;
    const std::size_t round = i / 16;
    if (round == 0) {
      f = (b & c) | (~b & d);
      g = i;
    } else if (round == 1) {
      f = (d & b) | (~d & c);
      g = (5 * i + 1) % 16;
    } else if (round == 2) {
      f = b ^ c ^ d;
      g = (3 * i + 5) % 16;
    } else {
      f = c ^ (b | ~d);
      g = (7 * i) % 16;
    }
    const std::uint32_t next = b + rotl(a + f + sines[i] + x[g], shifts[round * 4 + i % 4]);
    a = d;
    d = c;
    c = b;
    b = next;
  }
  state_[0] += a;
  state_[1] += b;
  state_[2] += c;
  state_[3] += d;
}

void md5::update(std::string_view bytes) noexcept {
  length_ += bytes.size();
  const auto* p = reinterpret_cast<const unsigned char*>(bytes.data());  // NOLINT: bytes as bytes
  std::size_t n = bytes.size();
  while (n > 0) {
    const std::size_t take = std::min(n, buffer_.size() - buffered_);
    std::memcpy(buffer_.data() + buffered_, p, take);
    buffered_ += take;
    p += take;
    n -= take;
    if (buffered_ == buffer_.size()) {
      block(buffer_.data());
      buffered_ = 0;
    }
  }
}

md5_hash md5::finish() noexcept {
  const std::uint64_t bits = length_ * 8U;
  // A 1 bit, zeros up to 56 bytes mod 64, then the length in bits, little-endian.
  static constexpr std::array<unsigned char, 64> padding{0x80};
  const std::size_t pad = buffered_ < 56 ? 56 - buffered_ : 120 - buffered_;
  update(std::string_view(reinterpret_cast<const char*>(padding.data()), pad));  // NOLINT: bytes as bytes
  std::array<char, 8> len{};
  for (std::size_t i = 0; i < 8; ++i) len[i] = static_cast<char>((bits >> (8U * i)) & 0xffU);
  update(std::string_view(len.data(), len.size()));
  md5_hash out{};
  for (std::size_t i = 0; i < 4; ++i) {
    for (std::size_t j = 0; j < 4; ++j) out[i * 4 + j] = static_cast<unsigned char>((state_[i] >> (8U * j)) & 0xffU);
  }
  return out;
}

md5_hash md5_digest(std::string_view bytes) noexcept {
  md5 h;
  h.update(bytes);
  return h.finish();
}

std::string md5_hex(const md5_hash& hash) {
  static constexpr std::string_view digits = "0123456789abcdef";
  std::string out;
  out.reserve(32);
  for (const unsigned char byte : hash) {
    out += digits[byte >> 4U];
    out += digits[byte & 0xfU];
  }
  return out;
}

}  // namespace zkwire::proto::session_detail
