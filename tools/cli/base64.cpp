#include "base64.hpp"

#include <array>
#include <cstdint>

namespace zkwire::cli {
namespace {

constexpr std::string_view alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

// The 6-bit value of a base64 character, or -1.
int value_of(char c) noexcept {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+') return 62;
  if (c == '/') return 63;
  return -1;
}

}  // namespace

std::string base64_encode(std::string_view bytes) {
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  std::size_t i = 0;
  const auto at = [&](std::size_t k) { return std::uint32_t{static_cast<unsigned char>(bytes[k])}; };
  for (; i + 3 <= bytes.size(); i += 3) {
    const std::uint32_t group = (at(i) << 16U) | (at(i + 1) << 8U) | at(i + 2);
    out += alphabet[(group >> 18U) & 0x3FU];
    out += alphabet[(group >> 12U) & 0x3FU];
    out += alphabet[(group >> 6U) & 0x3FU];
    out += alphabet[group & 0x3FU];
  }
  const std::size_t rest = bytes.size() - i;
  if (rest == 1) {
    const std::uint32_t group = at(i) << 16U;
    out += alphabet[(group >> 18U) & 0x3FU];
    out += alphabet[(group >> 12U) & 0x3FU];
    out += "==";
  } else if (rest == 2) {
    const std::uint32_t group = (at(i) << 16U) | (at(i + 1) << 8U);
    out += alphabet[(group >> 18U) & 0x3FU];
    out += alphabet[(group >> 12U) & 0x3FU];
    out += alphabet[(group >> 6U) & 0x3FU];
    out += '=';
  }
  return out;
}

std::optional<std::string> base64_decode(std::string_view text) {
  if (text.size() % 4 != 0) return std::nullopt;
  std::string out;
  out.reserve(text.size() / 4 * 3);
  for (std::size_t i = 0; i < text.size(); i += 4) {
    const bool last = i + 4 == text.size();
    std::array<int, 4> v{};
    std::size_t padding = 0;
    for (std::size_t k = 0; k < 4; ++k) {
      const char c = text[i + k];
      if (c == '=' && last && k >= 2) {
        v.at(k) = 0;
        ++padding;
        continue;
      }
      if (padding > 0) return std::nullopt;  // data after padding
      v.at(k) = value_of(c);
      if (v.at(k) < 0) return std::nullopt;
    }
    const std::uint32_t group = (static_cast<std::uint32_t>(v[0]) << 18U) | (static_cast<std::uint32_t>(v[1]) << 12U) |
                                (static_cast<std::uint32_t>(v[2]) << 6U) | static_cast<std::uint32_t>(v[3]);
    out += static_cast<char>((group >> 16U) & 0xFFU);
    if (padding < 2) out += static_cast<char>((group >> 8U) & 0xFFU);
    if (padding < 1) out += static_cast<char>(group & 0xFFU);
    // Non-canonical encodings (bits set that the padding drops) are rejected.
    if (padding == 1 && (group & 0xFFU) != 0) return std::nullopt;
    if (padding == 2 && (group & 0xFFFFU) != 0) return std::nullopt;
  }
  return out;
}

}  // namespace zkwire::cli
