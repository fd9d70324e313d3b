#pragma once
// Awaitable building blocks over the public client API for the lock recipes: waiting for the connection, deleting
// a node until it is surely gone, creating a directory with container parents, and the pipelined create + list.
// Each takes a client_link, so a coroutine resuming after the client was destroyed never touches it.

#include <asio/any_io_executor.hpp>
#include <asio/awaitable.hpp>
#include <asio/experimental/as_tuple.hpp>
#include <asio/use_awaitable.hpp>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "zkwire/client/client.hpp"
#include "zkwire/proto/path.hpp"

namespace zkwire::recipes::detail {

// The completion token of the recipes' client calls: the error comes back with the result, as a tuple, instead of
// being thrown.
inline constexpr auto tuple_awaitable = asio::experimental::as_tuple(asio::use_awaitable);

// The client a lock uses, and whether it is gone (destroyed or closed): then nothing may touch it. Its executor and
// clock stay usable after that (they outlive the client), and are kept here once for all its recipe objects.
struct client_link {
  client* target = nullptr;
  bool gone = false;
  asio::any_io_executor executor;
  std::shared_ptr<zkwire::clock> clock;
  // Session state changes seen (connection lost, reconnected, ...), counted by the link's observer as the client
  // delivers them: in order with replies and watch events. An acquire that relies on the order of watch events
  // (acquire.cpp) checks that none came in between, since the events a reconnect replays come in another order.
  std::uint64_t state_changes = 0;
  [[nodiscard]] client* get() const noexcept { return gone ? nullptr : target; }
};
using link_ptr = std::shared_ptr<client_link>;

// The link of `c`, shared by all recipe objects on it: made with the first one, together with the one session
// observer that marks it gone when the client is closed (or destroyed). Any thread (the registry has a mutex).
link_ptr shared_link(client& c);

// Until the client is connected: an empty error, or why it never will be (the session ended, client gone).
asio::awaitable<std::error_code> wait_connected(link_ptr link);

// What a failed listing of a lock directory (or of a semaphore's leases) means for the acquire that listed it.
struct listing_failure {
  std::error_code end;     // ends the acquire: any error but a connection loss or NONODE, or no reconnect
  bool node_gone = false;  // NONODE: the directory is gone, and our node in it; create it again
};
// Waits for the reconnect after a connection loss (then list again); `ec` is the listing's error, not empty.
asio::awaitable<listing_failure> after_failed_listing(link_ptr link, std::error_code ec);

// Deletes `path`, retrying across reconnects, until it succeeded, the node is gone, or the session ended (which
// deletes an ephemeral node too).
asio::awaitable<void> delete_until_gone(link_ptr link, std::string path);

// Our node in a lock directory (or a semaphore's lease).
struct owned_node {
  std::string path;  // full client path
  std::int64_t czxid = 0;
  std::int64_t session = 0;  // its ephemeralOwner

  // The child name: the path's last component (not stored twice: a waiter keeps one of these).
  [[nodiscard]] std::string_view name() const noexcept { return proto::node_name(path); }
};

// Deletes `node` if the node at its path is still that one (its owner session and czxid, read first), with the
// version read, retrying across reconnects, until it is gone, is another's, or the session ended. For a hold that
// was lost: the session may have changed, or another session may have deleted our node and made one at the same path,
// which a delete by path alone would take away from it. The race left: between the read and the delete, the node
// deleted and made again at the same path by another session with the same data version (0 for a new node); only
// someone who makes nodes with our node's exact name (our guid) can do that (docs/design.md#lock-states).
asio::awaitable<void> delete_own_until_gone(link_ptr link, owned_node node);

// Removes this client's data watches on `path` (the server's and the local watchers, which get a final
// data_watch_removed event), retrying across reconnects, until done, none is left (it fired meanwhile), or the
// session ended (which drops them too).
asio::awaitable<void> remove_data_watches(link_ptr link, std::string path);

// Creates `directory` and its missing parents as containers (existing ones are fine), retrying across reconnects.
asio::awaitable<std::error_code> ensure_directory(link_ptr link, std::string directory, std::vector<acl> acl);

struct create_and_list_result {
  std::error_code create_error;
  create_result created;
  std::error_code list_error;
  children_result listed;
};

// Sends the create and a getChildren of `directory` back to back (one round trip: the session applies them in
// order, so the list includes the new node) and waits for both replies. `timeout`: both requests' deadline
// (zkwire::with_timeout); nullopt: the client's request_timeout. `on_children`: if set, the getChildren sets a child
// watch that calls it.
asio::awaitable<create_and_list_result> create_and_list(link_ptr link, std::string path, std::string data,
                                                        create_options options, std::string directory,
                                                        std::optional<std::chrono::nanoseconds> timeout,
                                                        watch_callback on_children = {});

}  // namespace zkwire::recipes::detail
