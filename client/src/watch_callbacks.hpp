#pragma once
// What the client keeps of a watch: the user's side only (a callback or the watch_state a zkwire::watch waits on)
// per watcher id. Which watches exist, their kind and path, routing, removal and re-arming belong to the session
// engine; it tells the client when a watcher has no registration left (completion::watch_registered false,
// watch_delivery::final). A keyed watcher (watcher_key) is one id for every read of its key, so it lives while it
// has a registration or a read in flight.

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <variant>
#include <vector>

#include "zkwire/client/detail/core.hpp"
#include "zkwire/proto/session/session.hpp"

namespace zkwire::detail {

class watch_callbacks {
 public:
  // The user's side of the watcher of a request about to be submitted: a new watcher (id never 0, never reused),
  // or for a key that has a watcher, that one (it keeps its first callback). Counts the request as in flight.
  proto::watcher_id add(watch_registration registration);
  // A request submitted with `watcher` completed. A watcher left with no request in flight is looked at by the next
  // sweep(): the engine may have queued deliveries for it (an event that took its last registration was routed
  // before the client took this completion), so it must live until those are delivered.
  void request_done(proto::watcher_id watcher);
  // Drops the watchers request_done() left idle that have no registration (registered(id) false) and no request in
  // flight: call once the engine's queued deliveries are all delivered.
  template <class Registered>
  void sweep(Registered registered) {
    for (const proto::watcher_id id : idle_) {
      auto it = entries_.find(id);
      if (it != entries_.end() && it->second.in_flight == 0 && !registered(id)) erase(it);
    }
    idle_.clear();
  }
  // The watcher of `key`; 0 for none.
  [[nodiscard]] proto::watcher_id find(const watcher_key& key) const;
  // The keys of the keyed watchers for which registered(id) holds, in the order of their ids.
  template <class Registered>
  [[nodiscard]] std::vector<watcher_key> keys(Registered registered) const {
    std::vector<watcher_key> out;
    for (const auto& [id, key] : key_of_) {
      if (registered(id)) out.push_back(key);
    }
    return out;
  }
  [[nodiscard]] std::size_t size() const noexcept { return entries_.size(); }
  // Hands a delivery to the watcher's callback or watch_state, inline; a final one also drops the watcher unless a
  // read of it is still in flight. The callback may start operations, add watchers or destroy the client.
  void deliver(proto::watch_delivery&& d);
  // Every watcher gets `event` posted on `executor`, and the table is left empty (the client is going away).
  void end_all(const asio::any_io_executor& executor, const watch_event& event);

 private:
  // One per watcher, and a client may have a watcher per lock waiter (README.md counts a waiter's bytes against
  // 2 KiB): 48 bytes, in a map node of 88 (96 with malloc's header). A keyed watcher's key is in key_of_.
  struct entry {
    std::variant<watch_callback, std::shared_ptr<watch_state>> target;
    std::uint32_t in_flight = 0;  // requests submitted with this watcher and not completed
    bool keyed = false;
  };
  static void notify(entry& e, const watch_event& event, bool post);
  void erase(std::map<proto::watcher_id, entry>::iterator it);

  std::map<proto::watcher_id, entry> entries_;
  std::map<watcher_key, proto::watcher_id> keys_;
  std::map<proto::watcher_id, watcher_key> key_of_;  // the keyed watchers' keys, in the order of their ids
  std::vector<proto::watcher_id> idle_;              // for sweep()
  proto::watcher_id next_ = 1;
};

}  // namespace zkwire::detail
