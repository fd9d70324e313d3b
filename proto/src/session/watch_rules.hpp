#pragma once
// The engine's watch rules, in one vocabulary: watch_kind (session.hpp), the table a watcher is registered in.
// What a request asks for (intent_of), what its reply registers (registered_kind), which server-side table holds
// a kind (server_table_of), and when a watch nobody waits for may be removed from the server
// (abandoned_watch_removal). The wire's watcher_type appears only where removeWatches needs it
// (docs/protocol.md#watches).

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "zkwire/proto/message.hpp"
#include "zkwire/proto/opcodes.hpp"
#include "zkwire/proto/session/session.hpp"
#include "zkwire/proto/watches.hpp"

namespace zkwire::proto::session_detail {

class pending_table;
class watch_registry;

// What a request does to the watch tables once its reply arrives.
struct watch_intent {
  watcher_id watcher = 0;
  // The kind asked for: data (getData), exist (exists), child (getChildren), persistent and persistent_recursive
  // (addWatch). registered_kind() says what the reply actually registers.
  std::optional<watch_kind> registers;
  // removeWatches: the tables a successful reply empties on `path`; checkWatches with a watcher: the tables a
  // successful reply takes that watcher out of (the server's watch stays for the path's other watchers).
  std::optional<watcher_type> removes;
  std::string path;  // client path, set when registers or removes is
};

// The intent of a user request: a watch only with a watcher; removeWatches removes every watcher of its path and
// type, checkWatches with a watcher removes that one.
watch_intent intent_of(op_code op, const request_body& body, watcher_id watcher);

// The kind a reply with error `err` registers for a request that asked for `asked`; nullopt if none. An exists
// registers a data watch on a node that exists and an exist watch on a missing one (NONODE), which fires when
// the node is created; every other kind registers on success only.
std::optional<watch_kind> registered_kind(watch_kind asked, std::int32_t err) noexcept;

// The server-side table a registration of `kind` lives in, as the removeWatches type that removes it. The server
// keeps exist watches in its data table, and persistent ones in both tables (`any`).
watcher_type server_table_of(watch_kind kind) noexcept;

// Applies a user request's reply to `registry`; returns whether it registered the request's watcher. A successful
// removeWatches appends to `removed` the client-generated removal event of each watcher it removed.
bool apply_reply(watch_registry& registry, const watch_intent& intent, std::int32_t err,
                 std::vector<std::pair<watcher_id, event_type>>& removed);

// A written request abandoned by its deadline or cancel() still registers its watch on the server when the server
// applies it, but no local watcher stands behind it: a one-shot watch would fire into nothing, a persistent one
// would stay for the whole session, and repeated timed-out watch calls would grow the server's watch table. The
// removeWatches type that takes it away, unless that server-side watch also serves a local registration or a
// request still in flight on the same table (the server keeps one watch per path and table for the whole
// connection, and removeWatches removes it whatever mode it has); nullopt when nothing must be removed.
std::optional<watcher_type> abandoned_watch_removal(const watch_registry& registry, const pending_table& pending,
                                                    const watch_intent& intent, std::int32_t err);

}  // namespace zkwire::proto::session_detail
