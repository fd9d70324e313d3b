// ZooKeeper's path rules (docs/protocol.md#paths) and chroot mapping.

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <string_view>

#include "zkwire/proto/proto.hpp"

namespace zkwire::proto {
namespace {

struct path_case {
  std::string path;
  bool sequential;
  bool valid;
  const char* reason;  // substring of the reason when invalid
};

std::string s(const char* bytes, std::size_t n) { return std::string(bytes, n); }

const path_case cases[] = {
    // Valid.
    {"/", false, true, ""},
    {"/a", false, true, ""},
    {"/a/b/c", false, true, ""},
    {"/zookeeper/config", false, true, ""},
    {"/a.b", false, true, ""},
    {"/...", false, true, ""},
    {"/.a", false, true, ""},
    {"/a./b..", false, true, ""},
    {"/ space ok", false, true, ""},
    {"/~!@#$%^&*()_+-=[]{}|;':\",<>?", false, true, ""},
    {"/caf\xc3\xa9", false, true, ""},   // U+00E9, two bytes
    {"/\xe2\x82\xac", false, true, ""},  // U+20AC, three bytes
    {"/\xc2\xa0", false, true, ""},      // U+00A0, just above the C1 controls
    {"/\xef\xa4\x80", false, true, ""},  // U+F900, just above private use
    {"/\xef\xbf\xaf", false, true, ""},  // U+FFEF, just below the specials
    {"/\xed\x9f\xbf", false, true, ""},  // U+D7FF, just below the surrogates
    {"/\x7e", false, true, ""},          // '~' U+007E, just below DEL
    {"/\x20", false, true, ""},          // U+0020, just above the C0 controls
    // Sequential: validated as path + "1".
    {"/a/", true, true, ""},
    {"/", true, true, ""},
    {"/a/lock-", true, true, ""},
    {"/a/.", true, true, ""},   // "/a/.1"
    {"/a/..", true, true, ""},  // "/a/..1"
    // Invalid.
    {"", false, false, "empty"},
    {"", true, false, "start with '/'"},  // "1"
    {"a", false, false, "start with '/'"},
    {"a/b", false, false, "start with '/'"},
    {"/a/", false, false, "end with '/'"},
    {"//", false, false, "end with '/'"},
    {"//a", false, false, "empty component at index 1"},
    {"/a//b", false, false, "empty component at index 3"},
    {"/a//", true, false, "empty component at index 3"},
    {"/.", false, false, "relative component"},
    {"/..", false, false, "relative component"},
    {"/a/./b", false, false, "relative component '.' or '..' at index 3"},
    {"/a/../b", false, false, "relative component"},
    {"/a/..", false, false, "relative component"},
    {"/a/.", false, false, "relative component"},
    {"/a//", false, false, "end with '/'"},
    {s("/a\0b", 4), false, false, "NUL character U+0000 at index 2"},
    {s("/\0", 2), true, false, "NUL"},
    {"/a\x01", false, false, "control character U+0001 at index 2"},
    {"/a\x1f", false, false, "control character U+001F"},
    {"/a\tb", false, false, "control character U+0009"},
    {"/a\nb", false, false, "control character"},
    {"/\x7f", false, false, "control character U+007F"},
    {"/\xc2\x80", false, false, "control character U+0080"},
    {"/\xc2\x9f", false, false, "control character U+009F"},
    {"/\xee\x80\x80", false, false, "private-use character U+E000"},
    {"/\xef\xa3\xbf", false, false, "U+F8FF"},
    {"/\xef\xbf\xb0", false, false, "special character U+FFF0"},
    {"/\xef\xbf\xbf", false, false, "special character U+FFFF"},
    {"/\xf0\x9f\x98\x80", false, false, "outside the Basic Multilingual Plane U+01F600 at index 1"},
    {"/\xf4\x8f\xbf\xbf", false, false, "outside the Basic Multilingual Plane"},  // U+10FFFF
    // Invalid UTF-8.
    {"/\x80", false, false, "invalid UTF-8 at index 1"},       // lone continuation byte
    {"/\xc3", false, false, "invalid UTF-8"},                  // truncated two-byte sequence
    {"/\xc3/x", false, false, "invalid UTF-8"},                // continuation replaced by '/'
    {"/\xe2\x82", false, false, "invalid UTF-8"},              // truncated three-byte sequence
    {"/\xc0\xaf", false, false, "invalid UTF-8"},              // overlong '/'
    {"/\xc1\xbf", false, false, "invalid UTF-8"},              // overlong
    {"/\xe0\x80\xaf", false, false, "invalid UTF-8"},          // overlong three-byte
    {"/\xf0\x80\x80\xaf", false, false, "invalid UTF-8"},      // overlong four-byte
    {"/\xed\xa0\x80", false, false, "invalid UTF-8"},          // encoded surrogate U+D800 (CESU-8)
    {"/\xf4\x90\x80\x80", false, false, "invalid UTF-8"},      // above U+10FFFF
    {"/\xf8\x88\x80\x80\x80", false, false, "invalid UTF-8"},  // five-byte form
    {"/\xff", false, false, "invalid UTF-8"},
    {"/ok/\xc3", true, false, "invalid UTF-8"},  // the appended '1' is not a continuation byte
};

TEST(validate_path, table) {
  for (const auto& c : cases) {
    SCOPED_TRACE(testing::PrintToString(c.path) + (c.sequential ? " sequential" : ""));
    std::string reason;
    const std::error_code ec = validate_path(c.path, c.sequential, &reason);
    if (c.valid) {
      EXPECT_FALSE(ec) << reason;
    } else {
      EXPECT_EQ(ec, client_error::invalid_path);
      EXPECT_NE(reason.find(c.reason), std::string::npos) << "reason: " << reason;
      // Without a reason pointer the verdict is the same.
      EXPECT_EQ(validate_path(c.path, c.sequential), client_error::invalid_path);
    }
  }
}

TEST(validate_path, reason_is_untouched_on_success) {
  std::string reason = "unchanged";
  EXPECT_FALSE(validate_path("/fine", false, &reason));
  EXPECT_EQ(reason, "unchanged");
}

TEST(chroot, prepend) {
  EXPECT_EQ(prepend_chroot("", "/a"), "/a");
  EXPECT_EQ(prepend_chroot("/", "/a"), "/a");
  EXPECT_EQ(prepend_chroot("/", "/"), "/");
  EXPECT_EQ(prepend_chroot("/app", "/"), "/app");
  EXPECT_EQ(prepend_chroot("/app", "/a/b"), "/app/a/b");
  EXPECT_EQ(prepend_chroot("/app/root", "/x"), "/app/root/x");
}

TEST(chroot, strip) {
  EXPECT_EQ(strip_chroot("", "/a"), "/a");
  EXPECT_EQ(strip_chroot("/", "/a"), "/a");
  EXPECT_EQ(strip_chroot("/app", "/app"), "/");
  EXPECT_EQ(strip_chroot("/app", "/app/a/b"), "/a/b");
  EXPECT_EQ(strip_chroot("/app/root", "/app/root/x"), "/x");
  // Outside the chroot: /zookeeper/ events since 3.8.1 (ZOOKEEPER-4565), and anything else, pass unchanged.
  EXPECT_EQ(strip_chroot("/app", "/zookeeper/config"), "/zookeeper/config");
  EXPECT_EQ(strip_chroot("/app", "/zookeeper"), "/zookeeper");
  EXPECT_EQ(strip_chroot("/app", "/apple"), "/apple");
  EXPECT_EQ(strip_chroot("/app", "/ap"), "/ap");
  EXPECT_EQ(strip_chroot("/app", "/other/x"), "/other/x");
}

TEST(chroot, round_trip) {
  for (const char* path : {"/", "/a", "/a/b/c"}) {
    EXPECT_EQ(strip_chroot("/app", prepend_chroot("/app", path)), path);
  }
}

TEST(path_parts, parent_of) {
  EXPECT_EQ(parent_of("/a/b"), "/a");
  EXPECT_EQ(parent_of("/a"), "/");
  EXPECT_EQ(parent_of("/a/b/"), "/a/b");  // a sequential create's prefix
  // No parent: a walk up the tree ends at the root, and at text that is no path instead of looping on it.
  EXPECT_EQ(parent_of("/"), "");
  EXPECT_EQ(parent_of(""), "");
  EXPECT_EQ(parent_of("abc"), "");
  std::size_t steps = 0;
  for (std::string_view p = "/a/b/c"; !p.empty(); p = parent_of(p)) ++steps;
  EXPECT_EQ(steps, 4U);
}

TEST(path_parts, node_name) {
  EXPECT_EQ(node_name("/a/b"), "b");
  EXPECT_EQ(node_name("/a"), "a");
  EXPECT_EQ(node_name("/"), "");
  EXPECT_EQ(node_name("/locks/_c_0f-lock-0000000001"), "_c_0f-lock-0000000001");
}

TEST(path_parts, child_path) {
  EXPECT_EQ(child_path("/a", "b"), "/a/b");
  EXPECT_EQ(child_path("/", "b"), "/b");
  EXPECT_EQ(child_path("/a/", "b"), "/a/b");
  const std::string p = child_path("/locks", "lock-");
  EXPECT_EQ(p.capacity(), std::max(p.size(), std::string().capacity()));  // exact size: waiters keep these
  for (const std::string_view path : {"/a", "/a/b", "/x/y/z"}) {
    EXPECT_EQ(child_path(parent_of(path), node_name(path)), path);
  }
}

}  // namespace
}  // namespace zkwire::proto
