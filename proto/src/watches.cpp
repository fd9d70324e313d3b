#include "zkwire/proto/watches.hpp"

#include "zkwire/proto/responses.hpp"

namespace zkwire::proto {

std::string_view event_type_name(event_type type) noexcept {
  switch (type) {
    case event_type::none:
      return "None";
    case event_type::node_created:
      return "NodeCreated";
    case event_type::node_deleted:
      return "NodeDeleted";
    case event_type::node_data_changed:
      return "NodeDataChanged";
    case event_type::node_children_changed:
      return "NodeChildrenChanged";
    case event_type::data_watch_removed:
      return "DataWatchRemoved";
    case event_type::child_watch_removed:
      return "ChildWatchRemoved";
    case event_type::persistent_watch_removed:
      return "PersistentWatchRemoved";
  }
  return "Unknown";
}

std::string_view keeper_state_name(keeper_state state) noexcept {
  switch (state) {
    case keeper_state::unknown:
      return "Unknown";
    case keeper_state::disconnected:
      return "Disconnected";
    case keeper_state::no_sync_connected:
      return "NoSyncConnected";
    case keeper_state::sync_connected:
      return "SyncConnected";
    case keeper_state::auth_failed:
      return "AuthFailed";
    case keeper_state::connected_read_only:
      return "ConnectedReadOnly";
    case keeper_state::sasl_authenticated:
      return "SaslAuthenticated";
    case keeper_state::expired:
      return "Expired";
    case keeper_state::closed:
      return "Closed";
  }
  return "Unknown";
}

void encode(jute::writer& w, const watcher_event& v) {
  w.write_int(static_cast<std::int32_t>(v.type));
  w.write_int(static_cast<std::int32_t>(v.state));
  w.write_ustring(v.path);
}

void decode(jute::reader& r, watcher_event& v) {
  v.type = static_cast<event_type>(r.read_int());
  v.state = static_cast<keeper_state>(r.read_int());
  v.path = r.read_ustring();
}

void encode(jute::writer& w, const set_watches& v) {
  w.write_long(v.relative_zxid);
  write_string_list(w, v.data_watches);
  write_string_list(w, v.exist_watches);
  write_string_list(w, v.child_watches);
}

void decode(jute::reader& r, set_watches& v) {
  v.relative_zxid = r.read_long();
  v.data_watches = r.read_ustring_vector();
  v.exist_watches = r.read_ustring_vector();
  v.child_watches = r.read_ustring_vector();
}

void encode(jute::writer& w, const set_watches2& v) {
  w.write_long(v.relative_zxid);
  write_string_list(w, v.data_watches);
  write_string_list(w, v.exist_watches);
  write_string_list(w, v.child_watches);
  write_string_list(w, v.persistent_watches);
  write_string_list(w, v.persistent_recursive_watches);
}

void decode(jute::reader& r, set_watches2& v) {
  v.relative_zxid = r.read_long();
  v.data_watches = r.read_ustring_vector();
  v.exist_watches = r.read_ustring_vector();
  v.child_watches = r.read_ustring_vector();
  v.persistent_watches = r.read_ustring_vector();
  v.persistent_recursive_watches = r.read_ustring_vector();
}

void encode(jute::writer& w, const check_watches_request& v) {
  w.write_ustring(v.path);
  w.write_int(static_cast<std::int32_t>(v.type));
}

void decode(jute::reader& r, check_watches_request& v) {
  v.path = r.read_ustring();
  v.type = static_cast<watcher_type>(r.read_int());
}

void encode(jute::writer& w, const remove_watches_request& v) {
  w.write_ustring(v.path);
  w.write_int(static_cast<std::int32_t>(v.type));
}

void decode(jute::reader& r, remove_watches_request& v) {
  v.path = r.read_ustring();
  v.type = static_cast<watcher_type>(r.read_int());
}

void encode(jute::writer& w, const add_watch_request& v) {
  w.write_ustring(v.path);
  w.write_int(static_cast<std::int32_t>(v.mode));
}

void decode(jute::reader& r, add_watch_request& v) {
  v.path = r.read_ustring();
  v.mode = static_cast<add_watch_mode>(r.read_int());
}

}  // namespace zkwire::proto
