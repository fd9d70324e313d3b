#include "json.hpp"

#include <array>
#include <cstddef>

namespace zkwire::cli {
namespace {

// The length of the well-formed UTF-8 sequence at the start of `s`, or 0 if it is not one.
std::size_t utf8_sequence_length(std::string_view s) noexcept {
  const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(s[i]); };
  const unsigned char b0 = byte(0);
  if (b0 < 0x80) return 1;
  std::size_t length = 0;
  unsigned char low = 0x80;
  unsigned char high = 0xBF;  // the allowed range of the second byte
  if (b0 >= 0xC2 && b0 <= 0xDF) {
    length = 2;
  } else if (b0 >= 0xE0 && b0 <= 0xEF) {
    length = 3;
    if (b0 == 0xE0) low = 0xA0;   // no overlong forms
    if (b0 == 0xED) high = 0x9F;  // no surrogates
  } else if (b0 >= 0xF0 && b0 <= 0xF4) {
    length = 4;
    if (b0 == 0xF0) low = 0x90;   // no overlong forms
    if (b0 == 0xF4) high = 0x8F;  // nothing above U+10FFFF
  } else {
    return 0;
  }
  if (s.size() < length) return 0;
  if (byte(1) < low || byte(1) > high) return 0;
  for (std::size_t i = 2; i < length; ++i) {
    if (byte(i) < 0x80 || byte(i) > 0xBF) return 0;
  }
  return length;
}

}  // namespace

bool is_valid_utf8(std::string_view bytes) noexcept {
  while (!bytes.empty()) {
    const std::size_t n = utf8_sequence_length(bytes);
    if (n == 0) return false;
    bytes.remove_prefix(n);
  }
  return true;
}

std::string json_string(std::string_view text) {
  static constexpr std::array<char, 16> hex = {'0', '1', '2', '3', '4', '5', '6', '7',
                                               '8', '9', 'a', 'b', 'c', 'd', 'e', 'f'};
  std::string out;
  out.reserve(text.size() + 2);
  out += '"';
  while (!text.empty()) {
    const std::size_t n = utf8_sequence_length(text);
    if (n == 0) {
      out += "\\ufffd";
      text.remove_prefix(1);
      continue;
    }
    if (n > 1) {
      out.append(text.substr(0, n));
      text.remove_prefix(n);
      continue;
    }
    const char c = text.front();
    text.remove_prefix(1);
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\b':
        out += "\\b";
        break;
      case '\f':
        out += "\\f";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default: {
        const auto u = static_cast<unsigned char>(c);
        if (u < 0x20 || u == 0x7F) {
          out += "\\u00";
          out += hex.at(u >> 4U);
          out += hex.at(u & 0x0FU);
        } else {
          out += c;
        }
      }
    }
  }
  out += '"';
  return out;
}

void json_object::key(std::string_view name) {
  if (body_.size() > 1) body_ += ',';
  body_ += json_string(name);
  body_ += ':';
}

json_object& json_object::add(std::string_view key_name, std::string_view value) {
  key(key_name);
  body_ += json_string(value);
  return *this;
}

json_object& json_object::add(std::string_view key_name, std::int64_t value) {
  key(key_name);
  body_ += std::to_string(value);
  return *this;
}

json_object& json_object::add(std::string_view key_name, bool value) {
  key(key_name);
  body_ += value ? "true" : "false";
  return *this;
}

json_object& json_object::add_raw(std::string_view key_name, std::string_view json) {
  key(key_name);
  body_ += json;
  return *this;
}

std::string stat_json(const proto::stat& s) {
  return json_object()
      .add("czxid", s.czxid)
      .add("mzxid", s.mzxid)
      .add("pzxid", s.pzxid)
      .add("ctime", s.ctime)
      .add("mtime", s.mtime)
      .add("version", s.version)
      .add("cversion", s.cversion)
      .add("aversion", s.aversion)
      .add("ephemeralOwner", s.ephemeral_owner)
      .add("dataLength", s.data_length)
      .add("numChildren", s.num_children)
      .str();
}

}  // namespace zkwire::cli
