#include "watch_callbacks.hpp"

#include <asio/post.hpp>
#include <utility>
#include <variant>

namespace zkwire::detail {

proto::watcher_id watch_callbacks::add(watch_registration registration) {
  if (registration.key) {
    if (auto known = keys_.find(*registration.key); known != keys_.end()) {
      ++entries_.at(known->second).in_flight;
      return known->second;
    }
  }
  const proto::watcher_id id = next_++;
  entry e;
  e.in_flight = 1;
  if (!registration.callback && registration.state) {
    e.target = std::move(registration.state);
  } else {
    e.target = std::move(registration.callback);
  }
  if (registration.key) {
    keys_.emplace(*registration.key, id);
    key_of_.emplace(id, *registration.key);
    e.keyed = true;
  }
  entries_.emplace(id, std::move(e));
  return id;
}

void watch_callbacks::erase(std::map<proto::watcher_id, entry>::iterator it) {
  if (it->second.keyed) {
    if (auto key = key_of_.find(it->first); key != key_of_.end()) {
      keys_.erase(key->second);
      key_of_.erase(key);
    }
  }
  entries_.erase(it);
}

void watch_callbacks::request_done(proto::watcher_id watcher) {
  auto it = entries_.find(watcher);
  if (it == entries_.end()) return;
  if (it->second.in_flight > 0 && --it->second.in_flight == 0) idle_.push_back(watcher);
}

proto::watcher_id watch_callbacks::find(const watcher_key& key) const {
  auto it = keys_.find(key);
  return it != keys_.end() ? it->second : 0;
}

void watch_callbacks::notify(entry& e, const watch_event& event, bool post) {
  if (auto* callback = std::get_if<watch_callback>(&e.target)) {
    if (*callback) (*callback)(event);
  } else if (const auto& state = std::get<std::shared_ptr<watch_state>>(e.target)) {
    state->event = event;
    if (state->waiter) {
      auto waiter = std::move(state->waiter);
      waiter->deliver(event.error, event, post);
    }
  }
}

void watch_callbacks::deliver(proto::watch_delivery&& d) {
  auto it = entries_.find(d.watcher);
  if (it == entries_.end()) return;
  const watch_event event{d.event.type, d.event.state, std::move(d.event.path), d.error};
  if (d.final && it->second.in_flight == 0) {
    entry e = std::move(it->second);
    erase(it);
    notify(e, event, false);
  } else {
    entry copy = it->second;  // the callback may remove the watcher or destroy the client
    notify(copy, event, false);
  }
}

void watch_callbacks::end_all(const asio::any_io_executor& executor, const watch_event& event) {
  auto all = std::move(entries_);
  entries_.clear();
  keys_.clear();
  key_of_.clear();
  idle_.clear();
  for (auto& [id, e] : all) {
    if (auto* callback = std::get_if<watch_callback>(&e.target); callback != nullptr && *callback) {
      asio::post(executor, [callback = std::move(*callback), event] { callback(event); });
    } else {
      notify(e, event, true);
    }
  }
}

}  // namespace zkwire::detail
