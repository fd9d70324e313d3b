#pragma once
// ZooKeeper's path rules, a path's parts and chroot mapping (docs/protocol.md#paths, docs/protocol.md#chroot). Pure
// functions, no shared state.

#include <string>
#include <string_view>
#include <system_error>

namespace zkwire::proto {

// Checks `path` (UTF-8) the way ZooKeeper does; client_error::invalid_path if it:
//  - is empty, does not start with '/', or ends with '/' (except the root "/")
//  - has an empty component ("//") or a component that is exactly "." or ".."
//  - contains NUL, a control character (U+0001-U+001F, U+007F-U+009F), a character in U+D800-U+F8FF
//    (surrogates and private use), a special (U+FFF0-U+FFFF), or any character outside the BMP (the Java client
//    sees those as surrogate pairs and rejects them)
//  - is not valid UTF-8 (overlong forms, encoded surrogates and truncated sequences included)
// With `sequential` the rules apply to path + "1", as the server checks the name after appending the counter: so
// "/a/" is a valid prefix for a sequential create (it yields "/a/0000000003").
// On failure, if `reason` is not null, it receives a short explanation with the byte index of the problem,
// e.g. "empty component at index 3".
std::error_code validate_path(std::string_view path, bool sequential = false, std::string* reason = nullptr);

// The parent of an absolute path: "/a/b" -> "/a", "/a" -> "/", and for a sequential create's prefix "/a/b/" ->
// "/a/b". Empty for the root and for text without a '/', so a walk up the tree ends there. A view into `path`.
std::string_view parent_of(std::string_view path) noexcept;

// The last component of a path, the node's name: "/a/b" -> "b"; empty for the root. A view into `path`.
std::string_view node_name(std::string_view path) noexcept;

// The path of `directory`'s child `name`: "/a" and "b" -> "/a/b", "/" and "b" -> "/b" (a directory's trailing '/'
// is not doubled). Allocated at its exact size: recipes keep such paths for as long as they wait.
std::string child_path(std::string_view directory, std::string_view name);

// The chroot is a validated absolute path without a trailing '/' ("/app/root"); "" or "/" means no chroot.
// Paths given to the functions below are client paths (validated) or server paths.

// The server path for a client path: the client's "/" is the chroot itself, "/x" is chroot + "/x".
std::string prepend_chroot(std::string_view chroot, std::string_view client_path);

// The client path for a server path (create results, watch events): the chroot itself becomes "/", a path under
// it loses the prefix. A path outside the chroot is returned unchanged: servers since 3.8.1 send events for paths
// under /zookeeper/ (e.g. /zookeeper/config) without the chroot, and they must pass through (docs/protocol.md#chroot);
// a prefix that only matches part of a component ("/app" vs "/apple") is not under the chroot.
std::string strip_chroot(std::string_view chroot, std::string_view server_path);

}  // namespace zkwire::proto
