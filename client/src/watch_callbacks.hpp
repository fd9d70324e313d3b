#pragma once
// What the client keeps of a watch: the user's side only (a callback or the watch_state a zkwire::watch waits on)
// per watcher id. Which watches exist, their kind and path, routing, removal and re-arming belong to the session
// engine; it tells the client when a watcher is done (completion::watch_registered false, watch_delivery::final).

#include <map>
#include <memory>

#include "zkwire/client/detail/core.hpp"
#include "zkwire/proto/session/session.hpp"

namespace zkwire::detail {

class watch_callbacks {
 public:
  // Keeps the user's side of a new watcher and returns its id (never 0, never reused).
  proto::watcher_id add(watch_registration registration);
  // Drops a watcher that will get no delivery (its request did not register it).
  void drop(proto::watcher_id watcher) noexcept { entries_.erase(watcher); }
  [[nodiscard]] std::size_t size() const noexcept { return entries_.size(); }
  // Hands a delivery to the watcher's callback or watch_state, inline; a final one also drops the watcher.
  // The callback may start operations, add watchers or destroy the client.
  void deliver(proto::watch_delivery&& d);
  // Every watcher gets `event` posted on `executor`, and the table is left empty (the client is going away).
  void end_all(const asio::any_io_executor& executor, const watch_event& event);

 private:
  struct entry {
    watch_callback callback;             // either this ...
    std::shared_ptr<watch_state> state;  // ... or this
  };
  static void notify(entry& e, const watch_event& event, bool post);

  std::map<proto::watcher_id, entry> entries_;
  proto::watcher_id next_ = 1;
};

}  // namespace zkwire::detail
