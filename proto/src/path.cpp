#include "zkwire/proto/path.hpp"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <utility>

#include "zkwire/proto/error.hpp"

namespace zkwire::proto {
namespace {

// The path as validated: the caller's bytes, plus a virtual "1" for sequential creates (no allocation).
class checked_path {
 public:
  checked_path(std::string_view path, bool sequential) noexcept : path_(path), sequential_(sequential) {}
  [[nodiscard]] std::size_t size() const noexcept { return path_.size() + (sequential_ ? 1 : 0); }
  [[nodiscard]] unsigned char operator[](std::size_t i) const noexcept {
    return i < path_.size() ? static_cast<unsigned char>(path_[i]) : static_cast<unsigned char>('1');
  }

 private:
  std::string_view path_;
  bool sequential_;
};

struct code_point {
  std::uint32_t value;
  std::size_t length;
};

// Strict UTF-8 decoding (RFC 3629): no overlong forms, no encoded surrogates, nothing above U+10FFFF.
std::optional<code_point> decode_utf8(const checked_path& s, std::size_t i) noexcept {
  const unsigned char lead = s[i];
  if (lead < 0x80) return code_point{lead, 1};
  std::size_t length = 0;
  std::uint32_t value = 0;
  std::uint32_t min = 0;
  if ((lead & 0xe0U) == 0xc0U) {
    length = 2;
    value = lead & 0x1fU;
    min = 0x80;
  } else if ((lead & 0xf0U) == 0xe0U) {
    length = 3;
    value = lead & 0x0fU;
    min = 0x800;
  } else if ((lead & 0xf8U) == 0xf0U) {
    length = 4;
    value = lead & 0x07U;
    min = 0x10000;
  } else {
    return std::nullopt;  // a continuation byte or 0xf8..0xff as a lead
  }
  if (s.size() - i < length) return std::nullopt;
  for (std::size_t k = 1; k < length; ++k) {
    const unsigned char c = s[i + k];
    if ((c & 0xc0U) != 0x80U) return std::nullopt;
    value = (value << 6) | (c & 0x3fU);
  }
  if (value < min || value > 0x10ffff || (value >= 0xd800 && value <= 0xdfff)) return std::nullopt;
  return code_point{value, length};
}

std::string hex_code_point(std::uint32_t cp) {
  static constexpr char digits[] = "0123456789ABCDEF";
  std::string out = "U+";
  const int width = cp > 0xffff ? 6 : 4;
  for (int shift = (width - 1) * 4; shift >= 0; shift -= 4) out += digits[(cp >> shift) & 0xfU];
  return out;
}

// Why `cp` may not appear in a path, or nullptr if it may.
const char* forbidden(std::uint32_t cp) noexcept {
  if (cp == 0) return "NUL character";
  if ((cp >= 0x01 && cp <= 0x1f) || (cp >= 0x7f && cp <= 0x9f)) return "control character";
  if (cp >= 0xd800 && cp <= 0xf8ff) return "surrogate or private-use character";
  if (cp >= 0xfff0 && cp <= 0xffff) return "special character";
  if (cp > 0xffff) return "character outside the Basic Multilingual Plane";
  return nullptr;
}

std::error_code fail(std::string* reason, std::string text) {
  if (reason != nullptr) *reason = std::move(text);
  return client_error::invalid_path;
}

std::error_code fail_at(std::string* reason, const char* what, std::size_t index) {
  if (reason == nullptr) return client_error::invalid_path;
  return fail(reason, std::string(what) + " at index " + std::to_string(index));
}

// A component [begin, end) that is exactly "." or "..".
bool is_relative(const checked_path& s, std::size_t begin, std::size_t end) noexcept {
  const std::size_t n = end - begin;
  return (n == 1 && s[begin] == '.') || (n == 2 && s[begin] == '.' && s[begin + 1] == '.');
}

}  // namespace

std::error_code validate_path(std::string_view path, bool sequential, std::string* reason) {
  const checked_path s(path, sequential);
  const std::size_t n = s.size();
  if (n == 0) return fail(reason, "path is empty");
  if (s[0] != '/') return fail(reason, "path must start with '/'");
  if (n == 1) return {};
  if (s[n - 1] == '/') return fail(reason, "path must not end with '/'");

  std::size_t component = 1;  // start of the current component
  std::size_t i = 1;
  while (i < n) {
    if (s[i] == '/') {
      if (i == component) return fail_at(reason, "empty component", i);
      if (is_relative(s, component, i)) return fail_at(reason, "relative component '.' or '..'", component);
      component = ++i;
      continue;
    }
    const auto cp = decode_utf8(s, i);
    if (!cp) return fail_at(reason, "invalid UTF-8", i);
    if (const char* why = forbidden(cp->value)) {
      if (reason == nullptr) return client_error::invalid_path;
      return fail(reason, std::string(why) + " " + hex_code_point(cp->value) + " at index " + std::to_string(i));
    }
    i += cp->length;
  }
  if (is_relative(s, component, n)) return fail_at(reason, "relative component '.' or '..'", component);
  return {};
}

std::string_view parent_of(std::string_view path) noexcept {
  if (path.size() <= 1) return {};
  const std::size_t slash = path.rfind('/');
  if (slash == std::string_view::npos) return {};
  return slash == 0 ? path.substr(0, 1) : path.substr(0, slash);
}

std::string_view node_name(std::string_view path) noexcept {
  const std::size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

std::string child_path(std::string_view directory, std::string_view name) {
  if (!directory.empty() && directory.back() == '/') directory.remove_suffix(1);
  std::string path;
  path.reserve(directory.size() + 1 + name.size());
  path.append(directory).append(1, '/').append(name);
  return path;
}

std::string prepend_chroot(std::string_view chroot, std::string_view client_path) {
  if (chroot.empty() || chroot == "/") return std::string(client_path);
  if (client_path == "/") return std::string(chroot);
  std::string out;
  out.reserve(chroot.size() + client_path.size());
  out.append(chroot).append(client_path);
  return out;
}

std::string strip_chroot(std::string_view chroot, std::string_view server_path) {
  if (chroot.empty() || chroot == "/") return std::string(server_path);
  if (server_path == chroot) return "/";
  if (server_path.size() > chroot.size() && server_path.starts_with(chroot) && server_path[chroot.size()] == '/') {
    return std::string(server_path.substr(chroot.size()));
  }
  return std::string(server_path);
}

}  // namespace zkwire::proto
