#include "watch_registry.hpp"

#include <algorithm>
#include <array>
#include <cstddef>

#include "zkwire/proto/path.hpp"

namespace zkwire::proto::session_detail {

namespace {

void add_unique(std::vector<watcher_id>& out, watcher_id watcher) {
  if (std::find(out.begin(), out.end(), watcher) == out.end()) out.push_back(watcher);
}

}  // namespace

void watch_registry::add(watch_kind kind, std::string_view path, watcher_id watcher) {
  auto& watchers = of(kind)[std::string(path)];
  if (std::find(watchers.begin(), watchers.end(), watcher) != watchers.end()) return;
  watchers.push_back(watcher);
  ++registrations_[watcher];
}

bool watch_registry::registered(watcher_id watcher) const { return registrations_.contains(watcher); }

void watch_registry::unregister(const std::vector<watcher_id>& watchers) {
  for (const watcher_id w : watchers) {
    auto it = registrations_.find(w);
    if (it != registrations_.end() && --it->second == 0) registrations_.erase(it);
  }
}

void watch_registry::route(event_type type, std::string_view path, std::vector<watcher_id>& out) {
  // The one-shot tables this event drains, in the order that gives a watcher found in several its place.
  std::array<watch_kind, 3> drained{};
  std::size_t count = 0;
  switch (type) {
    case event_type::node_created:
    case event_type::node_data_changed:
      drained = {watch_kind::data, watch_kind::exist};
      count = 2;
      break;
    case event_type::node_children_changed:
      drained = {watch_kind::child};
      count = 1;
      break;
    case event_type::node_deleted:
      drained = {watch_kind::data, watch_kind::exist, watch_kind::child};
      count = 3;
      break;
    default:
      return;  // only the four server event types reach watchers
  }
  // Last table first, each watcher where the first table that holds it puts it; then the registrations go.
  std::array<table::iterator, 3> found{};
  for (std::size_t k = 0; k < count; ++k) found.at(k) = of(drained.at(k)).find(path);
  const auto holds = [&](std::size_t k, watcher_id w) {
    if (found.at(k) == of(drained.at(k)).end()) return false;
    const auto& watchers = found.at(k)->second;
    return std::find(watchers.begin(), watchers.end(), w) != watchers.end();
  };
  for (std::size_t k = count; k-- > 0;) {
    if (found.at(k) == of(drained.at(k)).end()) continue;
    for (const watcher_id w : found.at(k)->second) {
      bool earlier = false;
      for (std::size_t j = 0; j < k && !earlier; ++j) earlier = holds(j, w);
      if (!earlier) add_unique(out, w);
    }
  }
  for (std::size_t k = 0; k < count; ++k) {
    if (found.at(k) == of(drained.at(k)).end()) continue;
    unregister(found.at(k)->second);
    of(drained.at(k)).erase(found.at(k));
  }
  if (auto it = of(watch_kind::persistent).find(path); it != of(watch_kind::persistent).end()) {
    for (const watcher_id w : it->second) add_unique(out, w);
  }
  if (type == event_type::node_children_changed) return;
  const auto& recursive = of(watch_kind::persistent_recursive);
  for (std::string_view p = path; !p.empty(); p = parent_of(p)) {
    if (auto it = recursive.find(p); it != recursive.end()) {
      for (const watcher_id w : it->second) add_unique(out, w);
    }
  }
}

namespace {

// The one-shot and persistent tables a removeWatches/checkWatches of `type` reaches, with the removal event each
// reports.
template <class Visit>
void for_each_removed_kind(watcher_type type, Visit visit) {
  if (type == watcher_type::data || type == watcher_type::any) {
    visit(watch_kind::data, event_type::data_watch_removed);
    visit(watch_kind::exist, event_type::data_watch_removed);
  }
  if (type == watcher_type::children || type == watcher_type::any) {
    visit(watch_kind::child, event_type::child_watch_removed);
  }
  if (type == watcher_type::any) {
    visit(watch_kind::persistent, event_type::persistent_watch_removed);
    visit(watch_kind::persistent_recursive, event_type::persistent_watch_removed);
  }
}

}  // namespace

void watch_registry::remove(std::string_view path, watcher_type type,
                            std::vector<std::pair<watcher_id, event_type>>& out, watcher_id only) {
  for_each_removed_kind(type, [&](watch_kind kind, event_type removal) {
    auto& t = of(kind);
    auto it = t.find(path);
    if (it == t.end()) return;
    auto& watchers = it->second;
    std::vector<watcher_id> taken;
    for (const watcher_id w : watchers) {
      if (only != 0 && w != only) continue;
      taken.push_back(w);
      const std::pair<watcher_id, event_type> entry{w, removal};
      if (std::find(out.begin(), out.end(), entry) == out.end()) out.push_back(entry);
    }
    unregister(taken);
    std::erase_if(watchers, [&](watcher_id w) { return only == 0 || w == only; });
    if (watchers.empty()) t.erase(it);
  });
}

bool watch_registry::has(std::string_view path, watcher_type type, watcher_id watcher) const {
  bool found = false;
  for_each_removed_kind(type, [&](watch_kind kind, event_type /*removal*/) {
    const auto& t = of(kind);
    auto it = t.find(path);
    if (it != t.end() && std::find(it->second.begin(), it->second.end(), watcher) != it->second.end()) found = true;
  });
  return found;
}

void watch_registry::forget(watcher_id watcher) {
  if (registrations_.erase(watcher) == 0) return;
  for (auto& t : tables_) {
    for (auto it = t.begin(); it != t.end();) {
      std::erase(it->second, watcher);
      it = it->second.empty() ? t.erase(it) : std::next(it);
    }
  }
}

void watch_registry::take_all(std::vector<watcher_id>& out) {
  for (auto& t : tables_) {
    for (const auto& [path, watchers] : t) {
      for (const watcher_id w : watchers) add_unique(out, w);
    }
    t.clear();
  }
  registrations_.clear();
}

bool watch_registry::empty() const noexcept {
  return std::all_of(tables_.begin(), tables_.end(), [](const table& t) { return t.empty(); });
}

std::size_t watch_registry::watcher_count(watch_kind kind, std::string_view path) const {
  const auto& t = of(kind);
  auto it = t.find(path);
  return it == t.end() ? 0 : it->second.size();
}

std::vector<request_body> watch_registry::set_watches_batches(std::string_view chroot, std::int64_t relative_zxid,
                                                              std::size_t batch_bytes) const {
  std::vector<request_body> batches;
  set_watches2 batch;
  std::size_t bytes = 0;
  std::size_t paths = 0;
  const auto flush = [&] {
    if (paths == 0) return;
    batch.relative_zxid = relative_zxid;
    if (batch.persistent_watches.empty() && batch.persistent_recursive_watches.empty()) {
      batches.emplace_back(set_watches{relative_zxid, std::move(batch.data_watches), std::move(batch.exist_watches),
                                       std::move(batch.child_watches)});
    } else {
      batches.emplace_back(std::move(batch));
    }
    batch = set_watches2{};
    bytes = 0;
    paths = 0;
  };
  const std::array<std::vector<std::string>* (*)(set_watches2&), 5> lists{
      [](set_watches2& b) { return &b.data_watches; }, [](set_watches2& b) { return &b.exist_watches; },
      [](set_watches2& b) { return &b.child_watches; }, [](set_watches2& b) { return &b.persistent_watches; },
      [](set_watches2& b) { return &b.persistent_recursive_watches; }};
  for (std::size_t k = 0; k < tables_.size(); ++k) {
    for (const auto& [path, watchers] : tables_.at(k)) {
      std::string server_path = prepend_chroot(chroot, path);
      if (paths > 0 && bytes + server_path.size() > batch_bytes) flush();
      bytes += server_path.size();
      ++paths;
      lists.at(k)(batch)->push_back(std::move(server_path));
    }
  }
  flush();
  return batches;
}

}  // namespace zkwire::proto::session_detail
