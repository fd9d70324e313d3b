#include "convert.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "zkwire/client/errors.hpp"
#include "zkwire/client/tls_options.hpp"

namespace zkwire::capi {

namespace {

char* dup_string(const std::string& s) {
  auto* out = static_cast<char*>(std::malloc(s.size() + 1));
  if (out == nullptr) return nullptr;
  std::memcpy(out, s.data(), s.size());
  out[s.size()] = '\0';
  return out;
}

}  // namespace

std::string hosts_from_c(std::string_view hosts) {
  const auto slash = hosts.find('/');
  const std::string_view list = hosts.substr(0, slash);
  std::string out;
  out.reserve(hosts.size() + 8);
  std::size_t start = 0;
  while (start <= list.size()) {
    const auto comma = std::min(list.find(',', start), list.size());
    const std::string_view entry = list.substr(start, comma - start);
    const auto first = entry.find_first_not_of(" \t");
    const auto last_colon = entry.rfind(':');
    const bool bare_ipv6 = first != std::string_view::npos && entry[first] != '[' &&
                           last_colon != std::string_view::npos && entry.find(':', first) != last_colon;
    if (bare_ipv6) {
      out.append(entry.substr(0, first)).append("[").append(entry.substr(first, last_colon - first)).append("]");
      out.append(entry.substr(last_colon));
    } else {
      out.append(entry);
    }
    if (comma == list.size()) break;
    out.push_back(',');
    start = comma + 1;
  }
  if (slash != std::string_view::npos) out.append(hosts.substr(slash));
  return out;
}

int to_rc(const std::error_code& ec) noexcept {
  if (!ec) return ZOK;
  if (ec.category() == proto::server_category()) return ec.value();
  if (ec.category() == proto::client_error_category()) {
    switch (static_cast<proto::client_error>(ec.value())) {
      case proto::client_error::connection_loss:
        return ZCONNECTIONLOSS;
      case proto::client_error::session_expired:
        return ZSESSIONEXPIRED;
      case proto::client_error::closed:
      case proto::client_error::cancelled:
        return ZCLOSING;
      case proto::client_error::operation_timeout:
        return ZOPERATIONTIMEOUT;
      case proto::client_error::invalid_path:
      case proto::client_error::invalid_argument:
      case proto::client_error::request_too_large:
        return ZBADARGUMENTS;
      case proto::client_error::frame_too_large:
      case proto::client_error::protocol_violation:
      case proto::client_error::truncated_frame:
        return ZMARSHALLINGERROR;
      case proto::client_error::sasl_failed:
      case proto::client_error::sasl_exchange_failed:
        return ZAUTHFAILED;
    }
    return ZSYSTEMERROR;
  }
  if (ec.category() == zkwire::tls_category()) return ZSSLCONNECTIONERROR;
  if (ec == proto::condition::timeout) return ZOPERATIONTIMEOUT;
  if (ec == proto::condition::connection_loss) return ZCONNECTIONLOSS;
  if (ec == proto::condition::invalid_argument) return ZBADARGUMENTS;
  if (ec == proto::condition::protocol_violation) return ZMARSHALLINGERROR;
  return ZSYSTEMERROR;
}

void copy_stat(const zkwire::stat& from, struct Stat* to) noexcept {
  if (to == nullptr) return;
  to->czxid = from.czxid;
  to->mzxid = from.mzxid;
  to->ctime = from.ctime;
  to->mtime = from.mtime;
  to->version = from.version;
  to->cversion = from.cversion;
  to->aversion = from.aversion;
  to->ephemeralOwner = from.ephemeral_owner;
  to->dataLength = from.data_length;
  to->numChildren = from.num_children;
  to->pzxid = from.pzxid;
}

std::vector<zkwire::acl> acl_from_c(const struct ACL_vector* acl) {
  std::vector<zkwire::acl> out;
  if (acl == nullptr || acl->data == nullptr) return out;
  out.reserve(static_cast<std::size_t>(acl->count > 0 ? acl->count : 0));
  for (int32_t i = 0; i < acl->count; ++i) {
    const struct ACL& a = acl->data[i];
    out.push_back(zkwire::acl{a.perms, {a.id.scheme ? a.id.scheme : "", a.id.id ? a.id.id : ""}});
  }
  return out;
}

void acl_to_c(const std::vector<zkwire::acl>& acl, struct ACL_vector* out) {
  if (out == nullptr) return;
  allocate_ACL_vector(out, static_cast<int32_t>(acl.size()));
  for (std::size_t i = 0; i < acl.size(); ++i) {
    out->data[i].perms = acl[i].perms;
    out->data[i].id.scheme = dup_string(acl[i].id.scheme);
    out->data[i].id.id = dup_string(acl[i].id.id);
  }
}

void strings_to_c(const std::vector<std::string>& strings, struct String_vector* out) {
  if (out == nullptr) return;
  allocate_String_vector(out, static_cast<int32_t>(strings.size()));
  for (std::size_t i = 0; i < strings.size(); ++i) out->data[i] = dup_string(strings[i]);
}

int state_to_c(zkwire::session_state state) noexcept {
  switch (state) {
    case zkwire::session_state::not_started:
    case zkwire::session_state::connecting:
    case zkwire::session_state::suspended:
    case zkwire::session_state::lost:
      return ZOO_CONNECTING_STATE;
    case zkwire::session_state::connected:
      return ZOO_CONNECTED_STATE;
    case zkwire::session_state::connected_read_only:
      return ZOO_READONLY_STATE;
    case zkwire::session_state::expired:
      return ZOO_EXPIRED_SESSION_STATE;
    case zkwire::session_state::auth_failed:
      return ZOO_AUTH_FAILED_STATE;
    case zkwire::session_state::closed:
      return 0;  // the C client's closed state, which it does not export
  }
  return 0;
}

int event_to_c(zkwire::event_type type) noexcept {
  switch (type) {
    case zkwire::event_type::node_created:
      return ZOO_CREATED_EVENT;
    case zkwire::event_type::node_deleted:
      return ZOO_DELETED_EVENT;
    case zkwire::event_type::node_data_changed:
      return ZOO_CHANGED_EVENT;
    case zkwire::event_type::node_children_changed:
      return ZOO_CHILD_EVENT;
    case zkwire::event_type::data_watch_removed:
    case zkwire::event_type::child_watch_removed:
    case zkwire::event_type::persistent_watch_removed:
      return ZOO_NOTWATCHING_EVENT;
    case zkwire::event_type::none:
      return ZOO_SESSION_EVENT;
  }
  return ZOO_SESSION_EVENT;
}

std::optional<std::string> data_from_c(const char* value, int valuelen) {
  if (valuelen < 0 || (value == nullptr && valuelen > 0)) return std::nullopt;
  if (valuelen == 0) return std::string();
  return std::string(value, static_cast<std::size_t>(valuelen));
}

bool create_mode_from_c(int mode, zkwire::create_mode& out) noexcept {
  if (mode < 0 || mode > 6) return false;
  out = static_cast<zkwire::create_mode>(mode);
  return true;
}

}  // namespace zkwire::capi

extern "C" {

ZOOAPI const char* zerror(int c) {
  switch (c) {
    case ZOK:
      return "ok";
    case ZSYSTEMERROR:
      return "system error";
    case ZRUNTIMEINCONSISTENCY:
      return "run time inconsistency";
    case ZDATAINCONSISTENCY:
      return "data inconsistency";
    case ZCONNECTIONLOSS:
      return "connection loss";
    case ZMARSHALLINGERROR:
      return "marshalling error";
    case ZUNIMPLEMENTED:
      return "unimplemented";
    case ZOPERATIONTIMEOUT:
      return "operation timeout";
    case ZBADARGUMENTS:
      return "bad arguments";
    case ZINVALIDSTATE:
      return "invalid zhandle state";
    case ZNEWCONFIGNOQUORUM:
      return "no quorum of new config is connected and up-to-date with the leader of last committed config - try "
             "invoking reconfiguration after new servers are connected and synced";
    case ZRECONFIGINPROGRESS:
      return "Another reconfiguration is in progress -- concurrent reconfigs not supported (yet)";
    case ZAPIERROR:
      return "api error";
    case ZNONODE:
      return "no node";
    case ZNOAUTH:
      return "not authenticated";
    case ZBADVERSION:
      return "bad version";
    case ZNOCHILDRENFOREPHEMERALS:
      return "no children for ephemerals";
    case ZNODEEXISTS:
      return "node exists";
    case ZNOTEMPTY:
      return "not empty";
    case ZSESSIONEXPIRED:
      return "session expired";
    case ZINVALIDCALLBACK:
      return "invalid callback";
    case ZINVALIDACL:
      return "invalid acl";
    case ZAUTHFAILED:
      return "authentication failed";
    case ZCLOSING:
      return "zookeeper is closing";
    case ZNOTHING:
      return "(not error) no server responses to process";
    case ZSESSIONMOVED:
      return "session moved to another server, so operation is ignored";
    case ZNOTREADONLY:
      return "state-changing request is passed to read-only server";
    case ZEPHEMERALONLOCALSESSION:
      return "attempt to create ephemeral node on a local session";
    case ZNOWATCHER:
      return "the watcher couldn't be found";
    case ZRECONFIGDISABLED:
      return "attempts to perform a reconfiguration operation when reconfiguration feature is disable";
    case ZSESSIONCLOSEDREQUIRESASLAUTH:
      return "session closed by server because client is required to do SASL authentication";
    case ZTHROTTLEDOP:
      return "Operation was throttled due to high load";
    default:
      break;
  }
  if (c > 0) return std::strerror(c);
  return "unknown error";
}

}  // extern "C"
