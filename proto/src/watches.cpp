#include "zkwire/proto/watches.hpp"

#include "record_fields.hpp"

#include "zkwire/proto/responses.hpp"

namespace zkwire::proto {

// Each record's fields are described once, in records.hpp; encode and decode derive from them.

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

void encode(jute::writer& w, const watcher_event& v) { detail::encode_fields(w, v); }

void decode(jute::reader& r, watcher_event& v) { detail::decode_fields(r, v); }

void encode(jute::writer& w, const set_watches& v) { detail::encode_fields(w, v); }

void decode(jute::reader& r, set_watches& v) { detail::decode_fields(r, v); }

void encode(jute::writer& w, const set_watches2& v) { detail::encode_fields(w, v); }

void decode(jute::reader& r, set_watches2& v) { detail::decode_fields(r, v); }

void encode(jute::writer& w, const check_watches_request& v) { detail::encode_fields(w, v); }

void decode(jute::reader& r, check_watches_request& v) { detail::decode_fields(r, v); }

void encode(jute::writer& w, const remove_watches_request& v) { detail::encode_fields(w, v); }

void decode(jute::reader& r, remove_watches_request& v) { detail::decode_fields(r, v); }

void encode(jute::writer& w, const add_watch_request& v) { detail::encode_fields(w, v); }

void decode(jute::reader& r, add_watch_request& v) { detail::decode_fields(r, v); }

}  // namespace zkwire::proto
