#include "request_paths.hpp"

#include <string>
#include <type_traits>

#include "zkwire/proto/create_mode.hpp"
#include "zkwire/proto/op_traits.hpp"
#include "zkwire/proto/path.hpp"

namespace zkwire::proto::session_detail {

namespace {

template <class T>
bool sequential_of(const T& v) {
  if constexpr (std::is_same_v<T, create_request> || std::is_same_v<T, create_ttl_request>) {
    return is_sequential(v.flags);
  } else {
    return false;
  }
}

bool no_chroot(std::string_view chroot) { return chroot.empty() || chroot == "/"; }

template <class T>
std::error_code apply_one(std::string_view chroot, T& v) {
  if constexpr (std::is_same_v<T, multi_request>) {
    for (auto& op : v.ops) {
      if (auto ec = std::visit([&](auto& inner) { return apply_one(chroot, inner); }, op.body)) return ec;
    }
  } else if constexpr (detail::path_of<T>() == op_path::path) {
    if (auto ec = validate_path(v.path, sequential_of(v))) return ec;
    if (!no_chroot(chroot)) v.path = prepend_chroot(chroot, v.path);
  }
  // Everything else has no path; getEphemerals' prefix (no `path` member) is sent as given.
  return {};
}

}  // namespace

std::error_code apply_chroot(std::string_view chroot, request_body& body) {
  return std::visit([&](auto& v) { return apply_one(chroot, v); }, body);
}

std::string_view request_path(const request_body& body) {
  return std::visit(
      [](const auto& v) -> std::string_view {
        using T = std::decay_t<decltype(v)>;
        if constexpr (detail::path_of<T>() == op_path::path) {
          return v.path;
        } else {
          return {};
        }
      },
      body);
}

void strip_chroot(std::string_view chroot, response_body& body) {
  if (no_chroot(chroot)) return;
  const auto strip = [&](std::string& path) { path = proto::strip_chroot(chroot, path); };
  if (auto* c = std::get_if<create_response>(&body)) strip(c->path);
  if (auto* c2 = std::get_if<create2_response>(&body)) strip(c2->path);
  if (auto* s = std::get_if<sync_response>(&body)) strip(s->path);
  if (auto* m = std::get_if<multi_response>(&body)) {
    for (auto& result : m->results) {
      if (auto* rc = std::get_if<create_response>(&result.body)) strip(rc->path);
      if (auto* rc2 = std::get_if<create2_response>(&result.body)) strip(rc2->path);
    }
  }
}

}  // namespace zkwire::proto::session_detail
