#include "watch_callbacks.hpp"

#include <asio/post.hpp>
#include <utility>

namespace zkwire::detail {

proto::watcher_id watch_callbacks::add(watch_registration registration) {
  const proto::watcher_id id = next_++;
  entries_.emplace(id, entry{std::move(registration.callback), std::move(registration.state)});
  return id;
}

void watch_callbacks::notify(entry& e, const watch_event& event, bool post) {
  if (e.callback) {
    e.callback(event);
  } else if (e.state) {
    e.state->event = event;
    if (e.state->waiter) {
      auto waiter = std::move(e.state->waiter);
      waiter->deliver(event.error, event, post);
    }
  }
}

void watch_callbacks::deliver(proto::watch_delivery&& d) {
  auto it = entries_.find(d.watcher);
  if (it == entries_.end()) return;
  const watch_event event{d.event.type, d.event.state, std::move(d.event.path), d.error};
  if (d.final) {
    entry e = std::move(it->second);
    entries_.erase(it);
    notify(e, event, false);
  } else {
    entry copy = it->second;  // the callback may remove the watcher or destroy the client
    notify(copy, event, false);
  }
}

void watch_callbacks::end_all(const asio::any_io_executor& executor, const watch_event& event) {
  auto all = std::move(entries_);
  entries_.clear();
  for (auto& [id, e] : all) {
    if (e.callback) {
      asio::post(executor, [callback = std::move(e.callback), event] { callback(event); });
    } else {
      notify(e, event, true);
    }
  }
}

}  // namespace zkwire::detail
