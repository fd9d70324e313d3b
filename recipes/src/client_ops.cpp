#include "client_ops.hpp"

#include <asio/experimental/as_tuple.hpp>
#include <asio/this_coro.hpp>
#include <asio/use_awaitable.hpp>
#include <mutex>
#include <tuple>
#include <unordered_map>
#include <utility>

#include "wake_event.hpp"
#include "zkwire/proto/path.hpp"

namespace zkwire::recipes::detail {
link_ptr shared_link(client& c) {
  // One link and one observer per client, not per recipe object (a waiting lock is one of possibly thousands).
  // Keyed by address: a client destroyed and another made at the same address finds the old link gone (its
  // observer saw the close) and gets a new one.
  static std::mutex mutex;
  static std::unordered_map<const client*, std::weak_ptr<client_link>> links;
  const std::lock_guard<std::mutex> guard(mutex);
  if (auto it = links.find(&c); it != links.end()) {
    if (auto link = it->second.lock(); link && !link->gone) return link;
  }
  // A client closed already never calls an observer again: it gets a link that is gone, and no observer that would
  // stay registered for nothing.
  if (c.state() == session_state::closed) {
    return std::make_shared<client_link>(client_link{&c, true, c.get_executor(), c.clock(), 0});
  }
  std::erase_if(links, [](const auto& entry) { return entry.second.expired(); });
  auto link = std::make_shared<client_link>(client_link{&c, false, c.get_executor(), c.clock(), 0});
  // The observer keeps the link alive as long as the client: the registry's entry lives while the client does.
  c.add_state_observer([link](const state_event& e) {
    ++link->state_changes;
    // A closed client (closed session, or the client object being destroyed) must not be touched again.
    if (e.to == session_state::closed) link->gone = true;
  });
  links[&c] = link;
  return link;
}

asio::awaitable<std::error_code> wait_connected(link_ptr link) {
  for (;;) {
    client* c = link->get();
    if (c == nullptr) co_return make_error_code(client_error::closed);
    auto connect = c->async_connect(tuple_awaitable);
    auto [ec] = co_await std::move(connect);
    if (!ec) co_return std::error_code{};
    // The client keeps trying after a connect timeout; keep waiting as long as the session may come back. A client
    // that never had a session and whose servers close every connection unanswered (maxClientCnxns) ends with that
    // cause instead.
    if (ec == client_errc::connect_timeout) continue;
    if (ec == client_errc::closed_before_handshake) {
      client* now = link->get();  // the client may be gone since
      if (now != nullptr && now->state() != session_state::connecting) continue;
    }
    co_return ec;
  }
}

asio::awaitable<listing_failure> after_failed_listing(link_ptr link, std::error_code ec) {
  if (is_connection_loss(ec)) {
    auto connected = wait_connected(std::move(link));
    co_return listing_failure{co_await std::move(connected), false};
  }
  if (ec == server_error::no_node) co_return listing_failure{{}, true};
  co_return listing_failure{ec, false};
}

asio::awaitable<void> delete_until_gone(link_ptr link, std::string path) {
  for (;;) {
    client* c = link->get();
    if (c == nullptr) co_return;
    auto remove = c->async_remove(path, any_version, tuple_awaitable);
    auto [ec] = co_await std::move(remove);
    if (!is_connection_loss(ec)) co_return;  // deleted, already gone, or the session ended (it deletes it too)
    auto connected = wait_connected(link);
    if (co_await std::move(connected)) co_return;
  }
}

asio::awaitable<void> delete_own_until_gone(link_ptr link, owned_node node) {
  for (;;) {
    client* c = link->get();
    if (c == nullptr) co_return;
    auto look = c->async_exists(node.path, tuple_awaitable);
    auto [ec, st] = co_await std::move(look);
    if (!ec) {
      // Gone, or a node of another session (or another node of ours) at that path now: not ours to delete.
      if (!st || st->ephemeral_owner != node.session || (node.czxid != 0 && st->czxid != node.czxid)) co_return;
      c = link->get();
      if (c == nullptr) co_return;
      auto remove = c->async_remove(node.path, st->version, tuple_awaitable);
      auto [removed] = co_await std::move(remove);
      if (!removed || removed == server_error::no_node) co_return;
      if (removed == server_error::bad_version) continue;  // its data changed since (a revocation): look again
      ec = removed;
    }
    if (!is_connection_loss(ec)) co_return;  // the session ended (it deletes its nodes too), or a refusal
    auto connected = wait_connected(link);
    if (co_await std::move(connected)) co_return;
  }
}

asio::awaitable<void> remove_data_watches(link_ptr link, std::string path) {
  for (;;) {
    client* c = link->get();
    if (c == nullptr) co_return;
    auto remove = c->async_remove_watches(path, watcher_type::data, tuple_awaitable);
    auto [ec] = co_await std::move(remove);
    if (!is_connection_loss(ec)) co_return;  // removed, none left (no_watcher), or the session ended
    auto connected = wait_connected(link);
    if (co_await std::move(connected)) co_return;
  }
}

asio::awaitable<std::error_code> ensure_directory(link_ptr link, std::string directory, std::vector<acl> acl) {
  create_options options;
  options.mode = create_mode::container;
  options.acl = std::move(acl);
  // Bottom-up, so we need no permission on ancestors that exist: create the deepest missing one first after
  // learning (NONODE) which parents are missing.
  std::vector<std::string> pending{std::move(directory)};
  while (!pending.empty()) {
    client* c = link->get();
    if (c == nullptr) co_return make_error_code(client_error::closed);
    if (pending.back() == "/") {
      pending.pop_back();
      continue;
    }
    auto create = c->async_create(pending.back(), "", options, tuple_awaitable);
    auto [ec, created] = co_await std::move(create);
    if (!ec || ec == server_error::node_exists) {
      pending.pop_back();
    } else if (ec == server_error::no_node) {
      pending.emplace_back(proto::parent_of(pending.back()));
    } else if (is_connection_loss(ec)) {
      auto connected = wait_connected(link);
      if (auto wait_ec = co_await std::move(connected)) co_return wait_ec;
    } else {
      co_return ec;
    }
  }
  co_return std::error_code{};
}

asio::awaitable<create_and_list_result> create_and_list(link_ptr link, std::string path, std::string data,
                                                        create_options options, std::string directory,
                                                        std::optional<std::chrono::nanoseconds> timeout,
                                                        watch_callback on_children) {
  // The create completes into shared state (its callback may outlive this coroutine); the listing is awaited. The
  // session answers in order, so the create's reply has normally been handled by then: no timer, no extra hop.
  struct join {
    create_and_list_result result;
    bool created = false;
    std::optional<wake_event> waiting;  // only if the listing's completion overtook the create's
  };
  auto state = std::make_shared<join>();
  client* c = link->get();
  if (c == nullptr) {
    state->result.create_error = make_error_code(client_error::closed);
    state->result.list_error = state->result.create_error;
    co_return std::move(state->result);
  }
  auto on_created = [state](std::error_code ec, create_result r) {
    state->result.create_error = ec;
    state->result.created = std::move(r);
    state->created = true;
    if (state->waiting) state->waiting->set();
  };
  if (timeout) {
    c->async_create(std::move(path), std::move(data), options, with_timeout(*timeout, std::move(on_created)));
  } else {
    c->async_create(std::move(path), std::move(data), options, std::move(on_created));
  }
  auto listing = [&] {
    if (on_children) {
      return timeout ? c->async_get_children(std::move(directory), std::move(on_children),
                                             with_timeout(*timeout, tuple_awaitable))
                     : c->async_get_children(std::move(directory), std::move(on_children), tuple_awaitable);
    }
    return timeout ? c->async_get_children(std::move(directory), with_timeout(*timeout, tuple_awaitable))
                   : c->async_get_children(std::move(directory), tuple_awaitable);
  }();
  std::tie(state->result.list_error, state->result.listed) = co_await std::move(listing);
  if (!state->created) {
    state->waiting.emplace(co_await asio::this_coro::executor);
    auto created = state->waiting->wait();
    co_await std::move(created);
  }
  co_return std::move(state->result);
}

}  // namespace zkwire::recipes::detail
