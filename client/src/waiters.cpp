#include "waiters.hpp"

#include <optional>
#include <utility>
#include <vector>

#include "zkwire/proto/error.hpp"

namespace zkwire::detail {
namespace {

using proto::session_state;

// The result a waiter of `kind` gets when the session reaches `state`; nothing while it must keep waiting.
std::optional<std::error_code> outcome(wait_kind kind, session_state state, std::error_code ended) {
  if (kind == wait_kind::close) {
    const bool session_over =
        state == session_state::closed || state == session_state::expired || state == session_state::auth_failed;
    return session_over ? std::optional<std::error_code>(std::error_code{}) : std::nullopt;
  }
  switch (state) {
    case session_state::connected:
    case session_state::connected_read_only:
      return std::error_code{};
    case session_state::expired:
      return make_error_code(proto::client_error::session_expired);
    case session_state::auth_failed:
      // AUTHFAILED to an auth packet, or a SASL rejection: the engine knows which.
      return ended ? ended : make_error_code(proto::server_error::auth_failed);
    case session_state::closed:
      return make_error_code(proto::client_error::closed);
    default:
      return std::nullopt;
  }
}

}  // namespace

std::uint64_t waiters::add(wait_kind kind, std::unique_ptr<pending_op> op) {
  const std::uint64_t id = next_id_++;
  entries_.emplace(id, entry{kind, std::move(op), nullptr});
  return id;
}

void waiters::set_timeout(std::uint64_t id, std::unique_ptr<wakeup> timeout) {
  if (auto it = entries_.find(id); it != entries_.end()) it->second.timeout = std::move(timeout);
}

std::unique_ptr<pending_op> waiters::take(std::uint64_t id) {
  auto it = entries_.find(id);
  if (it == entries_.end()) return nullptr;
  auto op = std::move(it->second.op);
  if (it->second.timeout) it->second.timeout->cancel();
  entries_.erase(it);
  return op;
}

void waiters::resolve(session_state state, std::error_code ended) {
  // Collected first: completing one may run user code that starts or cancels other waits.
  std::vector<std::pair<std::unique_ptr<pending_op>, std::error_code>> done;
  for (auto it = entries_.begin(); it != entries_.end();) {
    const auto result = outcome(it->second.kind, state, ended);
    if (!result) {
      ++it;
      continue;
    }
    if (it->second.timeout) it->second.timeout->cancel();
    done.emplace_back(std::move(it->second.op), *result);
    it = entries_.erase(it);
  }
  for (auto& [op, ec] : done) op->fail(ec, false);
}

std::size_t waiters::fail_connects(std::error_code ec) {
  // Collected first, as in resolve.
  std::vector<std::unique_ptr<pending_op>> done;
  for (auto it = entries_.begin(); it != entries_.end();) {
    if (it->second.kind == wait_kind::close) {
      ++it;
      continue;
    }
    if (it->second.timeout) it->second.timeout->cancel();
    done.push_back(std::move(it->second.op));
    it = entries_.erase(it);
  }
  for (auto& op : done) op->fail(ec, false);
  return done.size();
}

void waiters::fail_all(std::error_code ec) {
  auto all = std::move(entries_);
  entries_.clear();
  for (auto& [id, e] : all) {
    if (e.timeout) e.timeout->cancel();
    e.op->fail(ec, true);
  }
}

}  // namespace zkwire::detail
