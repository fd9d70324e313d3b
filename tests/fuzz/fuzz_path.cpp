// fuzz_path: validate_path() against a reference model of ZooKeeper's path rules, and the chroot mapping.
//
// Input: byte 0 holds flags (bit 0: sequential, bit 1: chroot mode). Without chroot mode the rest is the path;
// in chroot mode the rest is split at the first 0xff byte (never valid in UTF-8) into chroot and path.
//
// Properties:
//  1. validate_path returns no error or client_error::invalid_path, nothing else, and the same with and without a
//     `reason` out-parameter; on failure the reason is filled in.
//  2. It accepts exactly the paths the reference model accepts. The model follows docs/protocol.md#paths and path.hpp,
//     written differently: strict UTF-8 by the well-formed byte sequence table of the Unicode standard (Table 3-7),
//     then the code point rules, then a split at '/'.
//  3. Sequential: validate_path(p, true) == validate_path(p + "1", false); every valid path is also valid as a
//     sequential prefix.
//  4. Chroot: for a valid chroot c and a valid client path p, prepend_chroot(c, p) is a valid server path
//     (c itself for p == "/", c + p otherwise; p unchanged when c is "" or "/") and strip_chroot(c, ...) of it gives
//     p back. For any server path x, strip_chroot(c, x) changes x only if x is c (-> "/") or lies under c + "/".

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <system_error>

#include "fuzz_check.hpp"
#include "zkwire/proto/error.hpp"
#include "zkwire/proto/path.hpp"

namespace {

namespace proto = zkwire::proto;

bool in(unsigned char c, unsigned lo, unsigned hi) { return c >= lo && c <= hi; }

// Decodes one well-formed UTF-8 sequence at s[i] (Unicode Table 3-7); 0 if ill-formed.
std::size_t utf8_sequence(std::string_view s, std::size_t i, std::uint32_t& cp) {
  const auto at = [&](std::size_t k) { return static_cast<unsigned char>(s[i + k]); };
  const std::size_t left = s.size() - i;
  const unsigned char b0 = at(0);
  if (b0 <= 0x7f) {
    cp = b0;
    return 1;
  }
  std::size_t n = 0;
  bool ok = false;
  if (in(b0, 0xc2, 0xdf)) {
    n = 2;
    ok = left >= 2 && in(at(1), 0x80, 0xbf);
  } else if (b0 == 0xe0) {
    n = 3;
    ok = left >= 3 && in(at(1), 0xa0, 0xbf) && in(at(2), 0x80, 0xbf);
  } else if (in(b0, 0xe1, 0xec) || in(b0, 0xee, 0xef)) {
    n = 3;
    ok = left >= 3 && in(at(1), 0x80, 0xbf) && in(at(2), 0x80, 0xbf);
  } else if (b0 == 0xed) {
    n = 3;
    ok = left >= 3 && in(at(1), 0x80, 0x9f) && in(at(2), 0x80, 0xbf);
  } else if (b0 == 0xf0) {
    n = 4;
    ok = left >= 4 && in(at(1), 0x90, 0xbf) && in(at(2), 0x80, 0xbf) && in(at(3), 0x80, 0xbf);
  } else if (in(b0, 0xf1, 0xf3)) {
    n = 4;
    ok = left >= 4 && in(at(1), 0x80, 0xbf) && in(at(2), 0x80, 0xbf) && in(at(3), 0x80, 0xbf);
  } else if (b0 == 0xf4) {
    n = 4;
    ok = left >= 4 && in(at(1), 0x80, 0x8f) && in(at(2), 0x80, 0xbf) && in(at(3), 0x80, 0xbf);
  }
  if (!ok) return 0;
  const std::uint32_t lead_bits = n == 2 ? 0x1fU : n == 3 ? 0x0fU : 0x07U;
  cp = b0 & lead_bits;
  for (std::size_t k = 1; k < n; ++k) cp = (cp << 6) | (at(k) & 0x3fU);
  return n;
}

bool allowed_code_point(std::uint32_t cp) {
  if (cp == 0) return false;                                   // NUL
  if (cp <= 0x1f || (cp >= 0x7f && cp <= 0x9f)) return false;  // control characters
  if (cp >= 0xd800 && cp <= 0xf8ff) return false;              // surrogates and private use
  if (cp >= 0xfff0 && cp <= 0xffff) return false;              // specials
  return cp <= 0xffff;                                         // non-BMP: surrogate pairs in Java
}

bool model_valid(std::string_view path) {
  for (std::size_t i = 0; i < path.size();) {
    std::uint32_t cp = 0;
    const std::size_t n = utf8_sequence(path, i, cp);
    if (n == 0 || !allowed_code_point(cp)) return false;
    i += n;
  }
  if (path.empty() || path.front() != '/') return false;
  if (path == "/") return true;
  if (path.back() == '/') return false;
  std::size_t start = 1;
  for (;;) {
    const std::size_t slash = path.find('/', start);
    const std::string_view component = path.substr(start, slash == std::string_view::npos ? slash : slash - start);
    if (component.empty() || component == "." || component == "..") return false;
    if (slash == std::string_view::npos) return true;
    start = slash + 1;
  }
}

// Property 1 for one call; returns whether the path is valid.
bool checked_validate(std::string_view path, bool sequential) {
  const std::error_code ec = proto::validate_path(path, sequential);
  std::string reason;
  const std::error_code with_reason = proto::validate_path(path, sequential, &reason);
  ZKWIRE_FUZZ_CHECK(ec == with_reason);
  if (ec) {
    ZKWIRE_FUZZ_CHECK(ec == proto::client_error::invalid_path);
    ZKWIRE_FUZZ_CHECK(!reason.empty());
  }
  return !ec;
}

void check_chroot(std::string_view chroot, std::string_view path) {
  const bool no_chroot = chroot.empty() || chroot == "/";
  if (!no_chroot && !checked_validate(chroot, false)) return;

  // Property 4, any server path.
  const std::string stripped = proto::strip_chroot(chroot, path);
  if (no_chroot) {
    ZKWIRE_FUZZ_CHECK(stripped == path);
  } else if (path == chroot) {
    ZKWIRE_FUZZ_CHECK(stripped == "/");
  } else if (path.size() > chroot.size() && path.starts_with(chroot) && path[chroot.size()] == '/') {
    ZKWIRE_FUZZ_CHECK(stripped == path.substr(chroot.size()));
  } else {
    ZKWIRE_FUZZ_CHECK(stripped == path);
  }

  // Property 4, valid client paths.
  if (!checked_validate(path, false)) return;
  const std::string server = proto::prepend_chroot(chroot, path);
  if (no_chroot) {
    ZKWIRE_FUZZ_CHECK(server == path);
  } else if (path == "/") {
    ZKWIRE_FUZZ_CHECK(server == chroot);
  } else {
    ZKWIRE_FUZZ_CHECK(server == std::string(chroot) + std::string(path));
  }
  ZKWIRE_FUZZ_CHECK(checked_validate(server, false));
  ZKWIRE_FUZZ_CHECK(proto::strip_chroot(chroot, server) == path);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* bytes, std::size_t size) {
  zkwire::fuzz::byte_source input(zkwire::fuzz::as_bytes(bytes, size));
  const std::uint8_t flags = input.take_u8();
  const bool sequential = (flags & 1U) != 0;
  std::string_view path = input.rest();

  if ((flags & 2U) != 0) {
    const std::size_t split = path.find('\xff');
    const std::string_view chroot = split == std::string_view::npos ? std::string_view() : path.substr(0, split);
    if (split != std::string_view::npos) path.remove_prefix(split + 1);
    check_chroot(chroot, path);
  }

  // Properties 1 and 2.
  const bool valid = checked_validate(path, sequential);
  const std::string as_validated = sequential ? std::string(path) + "1" : std::string(path);
  ZKWIRE_FUZZ_CHECK(valid == model_valid(as_validated));

  // Property 3.
  ZKWIRE_FUZZ_CHECK(valid == checked_validate(as_validated, false));
  if (!sequential && valid) ZKWIRE_FUZZ_CHECK(checked_validate(path, true));
  return 0;
}
