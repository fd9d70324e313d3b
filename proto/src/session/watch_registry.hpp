#pragma once
// The client's watch tables: path -> watchers for one-shot data/exist/child watches and for persistent and
// persistent-recursive ones. Paths are client paths (chroot stripped). Routes a server event to the watch kinds
// it reaches as ZooKeeper's clients do (docs/protocol.md#watches), the client-generated removal events, and the
// SetWatches batches that re-arm everything on a new connection.

#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "zkwire/proto/message.hpp"
#include "zkwire/proto/session/session.hpp"
#include "zkwire/proto/watches.hpp"

namespace zkwire::proto::session_detail {

class watch_registry {
 public:
  // Registers `watcher` for `kind` on `path`; registering the same pair twice keeps one entry.
  void add(watch_kind kind, std::string_view path, watcher_id watcher);

  // Whether `watcher` has any registration left: false once its one-shot registrations fired, removeWatches
  // removed them, or it was forgotten. A delivery that leaves it unregistered is its last one.
  [[nodiscard]] bool registered(watcher_id watcher) const;

  // The watchers a server event reaches, each once. One-shot registrations that fire are removed.
  //   NodeCreated, NodeDataChanged: data + exist;  NodeChildrenChanged: child;  NodeDeleted: data + exist + child;
  //   persistent on the path: every type;  recursive on the path or an ancestor: all but NodeChildrenChanged.
  // The order is the C client's (docs/protocol.md#watches): the one-shot tables the event drains, taken data, exist,
  // child, give each watcher the first table it is in; the child table's watchers come first, then the exist
  // table's, then the data table's, each in the order of their first registration there; persistent and recursive
  // watchers (from the path up) follow.
  void route(event_type type, std::string_view path, std::vector<watcher_id>& out);

  // Removes the registrations a successful removeWatches(path, type) removed on the server and reports, per
  // watcher, the client-generated removal event: data (data + exist tables) -> DataWatchRemoved, children ->
  // ChildWatchRemoved, any -> both, plus PersistentWatchRemoved for persistent and recursive watchers. With `only`
  // (not 0), that watcher's registrations alone: a checkWatches that succeeded, or a local removal of one watcher.
  void remove(std::string_view path, watcher_type type, std::vector<std::pair<watcher_id, event_type>>& out,
              watcher_id only = 0);

  // Whether `watcher` has a registration that remove(path, type, out, watcher) would take.
  [[nodiscard]] bool has(std::string_view path, watcher_type type, watcher_id watcher) const;

  // Drops `watcher` from every table.
  void forget(watcher_id watcher);

  // Every distinct watcher, in first-seen order; then clears all tables.
  void take_all(std::vector<watcher_id>& out);

  [[nodiscard]] bool empty() const noexcept;
  [[nodiscard]] std::size_t watcher_count(watch_kind kind, std::string_view path) const;

  // SetWatches/SetWatches2 bodies re-arming every registered path (chroot prepended), drawn in the order data ->
  // exist -> child -> persistent -> recursive. A batch takes paths while their byte total stays within
  // `batch_bytes` (a single longer path gets a batch of its own). A batch is a set_watches2 only if it holds
  // persistent or recursive paths.
  [[nodiscard]] std::vector<request_body> set_watches_batches(std::string_view chroot, std::int64_t relative_zxid,
                                                              std::size_t batch_bytes) const;

 private:
  using table = std::map<std::string, std::vector<watcher_id>, std::less<>>;
  table& of(watch_kind kind) noexcept { return tables_.at(static_cast<std::size_t>(kind)); }
  [[nodiscard]] const table& of(watch_kind kind) const noexcept { return tables_.at(static_cast<std::size_t>(kind)); }

  // Drops one registration of each watcher of `watchers` from the per-watcher counts.
  void unregister(const std::vector<watcher_id>& watchers);

  std::array<table, 5> tables_;
  std::unordered_map<watcher_id, std::size_t> registrations_;  // per watcher, its entries across the tables
};

}  // namespace zkwire::proto::session_detail
