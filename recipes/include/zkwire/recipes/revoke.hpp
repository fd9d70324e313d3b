#pragma once
// Revocation: asking the holder of a lock node to release it. The holder (lock::set_revocation_handler) watches
// its own node's data; a request is a setData of a marker on that node:
//   revoke_request::curator   "__REVOKE__" (Curator's revocable locks)
//   revoke_request::zookeeper "unlock"     (ZooKeeper's recipe)
// A zkwire holder understands both. Whether the holder releases is up to it.
//
//   co_await zkwire::recipes::async_revoke(c, node, asio::use_awaitable);  // e.g. "/locks/job/_c_...-lock-0000000007"
//
// Thread safety: call on the client's executor; the handler runs on its associated executor (the client's when it
// has none). Cancellation: as client::async_set (the request may still be applied).

#include <string>
#include <string_view>
#include <utility>

#include "zkwire/client/client.hpp"

namespace zkwire::recipes {

enum class revoke_request { curator, zookeeper };

inline constexpr std::string_view curator_revoke_marker = "__REVOKE__";
inline constexpr std::string_view zookeeper_revoke_marker = "unlock";

constexpr std::string_view revoke_marker(revoke_request request) noexcept {
  return request == revoke_request::zookeeper ? zookeeper_revoke_marker : curator_revoke_marker;
}

// True if `data` asks the holder to release.
constexpr bool is_revoke_request(std::string_view data) noexcept {
  return data == curator_revoke_marker || data == zookeeper_revoke_marker;
}

// Writes the marker to `node_path` (any version). Signature void(std::error_code, zkwire::stat) — completes when
// the request is written, i.e. the server applied it. Errors: NONODE (no such node: nobody holds it by that
// name), NOAUTH, the session's end, client_error::invalid_path, connection loss (outcome unknown).
template <class CompletionToken>
auto async_revoke(client& c, std::string node_path, revoke_request request, CompletionToken&& token) {
  return c.async_set(std::move(node_path), std::string(revoke_marker(request)), any_version,
                     std::forward<CompletionToken>(token));
}
template <class CompletionToken>
auto async_revoke(client& c, std::string node_path, CompletionToken&& token) {
  return async_revoke(c, std::move(node_path), revoke_request::curator, std::forward<CompletionToken>(token));
}

}  // namespace zkwire::recipes
