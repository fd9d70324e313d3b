#include "watch_table.hpp"

namespace zkwire::sim {

void watch_table::add_persistent(const std::string& path, connection_id c, bool recursive) {
  data_[path][c] = recursive ? watch_mode::persistent_recursive : watch_mode::persistent;
  if (!recursive) child_[path][c] = watch_mode::persistent;
}

void watch_table::fire(const trigger& t, std::set<connection_id>& notified, std::vector<fired_event>& out) {
  table& tab = t.table == watch_table_kind::data ? data_ : child_;
  const proto::watcher_event event{t.type, proto::keeper_state::sync_connected, t.path};
  auto tell = [&](connection_id c) {
    if (notified.insert(c).second) out.push_back({c, event});
  };
  // Watches on the path itself, whatever their mode; one-shot ones are used up.
  if (auto it = tab.find(t.path); it != tab.end()) {
    for (auto w = it->second.begin(); w != it->second.end();) {
      tell(w->first);
      w = w->second == watch_mode::standard ? it->second.erase(w) : std::next(w);
    }
    if (it->second.empty()) tab.erase(it);
  }
  // Recursive watches on the ancestors (data table only: they never hear of NodeChildrenChanged).
  if (t.table != watch_table_kind::data) return;
  for (std::string ancestor = t.path; ancestor != "/";) {
    ancestor = parent_path(ancestor);
    const auto it = tab.find(ancestor);
    if (it == tab.end()) continue;
    for (const auto& [c, mode] : it->second) {
      if (mode == watch_mode::persistent_recursive) tell(c);
    }
  }
}

bool watch_table::erase(table& t, const std::string& path, connection_id c, bool standard_only) {
  const auto it = t.find(path);
  if (it == t.end()) return false;
  const auto w = it->second.find(c);
  if (w == it->second.end() || (standard_only && w->second != watch_mode::standard)) return false;
  it->second.erase(w);
  if (it->second.empty()) t.erase(it);
  return true;
}

bool watch_table::has(const table& t, const std::string& path, connection_id c, bool standard_only) {
  const auto it = t.find(path);
  if (it == t.end()) return false;
  const auto w = it->second.find(c);
  return w != it->second.end() && (!standard_only || w->second == watch_mode::standard);
}

bool watch_table::remove(const std::string& path, connection_id c, proto::watcher_type type) {
  switch (type) {
    case proto::watcher_type::children:
      return erase(child_, path, c, true);
    case proto::watcher_type::data:
      return erase(data_, path, c, true);
    case proto::watcher_type::any: {
      const bool from_child = erase(child_, path, c, false);
      const bool from_data = erase(data_, path, c, false);
      return from_child || from_data;
    }
  }
  return false;
}

bool watch_table::contains(const std::string& path, connection_id c, proto::watcher_type type) const {
  switch (type) {
    case proto::watcher_type::children:
      return has(child_, path, c, true);
    case proto::watcher_type::data:
      return has(data_, path, c, true);
    case proto::watcher_type::any:
      return has(child_, path, c, false) || has(data_, path, c, false);
  }
  return false;
}

void watch_table::drop_connection(connection_id c) {
  for (table* t : {&data_, &child_}) {
    for (auto it = t->begin(); it != t->end();) {
      it->second.erase(c);
      it = it->second.empty() ? t->erase(it) : std::next(it);
    }
  }
}

std::size_t watch_table::size() const noexcept {
  std::size_t n = 0;
  for (const table* t : {&data_, &child_}) {
    for (const auto& [path, watchers] : *t) n += watchers.size();
  }
  return n;
}

std::size_t watch_table::size(connection_id c) const noexcept {
  std::size_t n = 0;
  for (const table* t : {&data_, &child_}) {
    for (const auto& [path, watchers] : *t) n += watchers.count(c);
  }
  return n;
}

}  // namespace zkwire::sim
