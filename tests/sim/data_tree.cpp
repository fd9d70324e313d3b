#include "data_tree.hpp"

#include <algorithm>
#include <cstdio>

#include "zkwire/proto/error.hpp"
#include "zkwire/proto/path.hpp"

namespace zkwire::sim {
namespace {

using proto::server_error;

// The server formats the counter with Java's %010d: a negative value (after the int32 wraps) keeps its sign inside
// the ten characters' padding rules, e.g. -1 -> "-000000001".
std::string sequence_suffix(std::int32_t n) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%010d", n);
  return buf;
}

// Writes are validated by the server (BADARGUMENTS); "/" and "/zookeeper" cannot be deleted.
bool bad_write_path(std::string_view path) { return static_cast<bool>(proto::validate_path(path)); }

bool denied(const access* who, const std::vector<proto::acl>& acl, std::int32_t perm) {
  return who != nullptr && !who->allows(acl, perm);
}

bool version_matches(std::int32_t expected, std::int32_t actual) { return expected == -1 || expected == actual; }

// Every path strictly below `path`, as a [first, last) range of the ordered map.
template <class Map>
auto subtree(Map& nodes, std::string_view path) {
  std::string prefix(path);
  if (prefix != "/") prefix += '/';
  auto first = nodes.lower_bound(prefix);
  auto last = first;
  while (last != nodes.end() && last->first.starts_with(prefix)) ++last;
  return std::pair{first, last};
}

}  // namespace

bool access::allows(const std::vector<proto::acl>& acl, std::int32_t perm) const {
  if (acl.empty()) return true;
  return std::any_of(acl.begin(), acl.end(), [&](const proto::acl& a) {
    if ((a.perms & perm) == 0) return false;
    return (a.id.scheme == "world" && a.id.id == "anyone") || (a.id.scheme == "ip" && a.id.id == ip) ||
           (a.id.scheme == "digest" && std::find(digest.begin(), digest.end(), a.id.id) != digest.end());
  });
}

std::string parent_path(std::string_view path) {
  const auto slash = path.rfind('/');
  if (slash == 0 || slash == std::string_view::npos) return "/";
  return std::string(path.substr(0, slash));
}

std::string_view node_name(std::string_view path) {
  const auto slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

data_tree::data_tree() {
  // What a fresh 3.8 server has: "/", "/zookeeper", "/zookeeper/quota" and "/zookeeper/config", all with zxid 0.
  for (const char* path : {"/", "/zookeeper", "/zookeeper/quota", "/zookeeper/config"}) {
    znode node;
    node.acl = proto::open_acl_unsafe();
    nodes_.emplace(path, std::move(node));
  }
  nodes_["/"].stat.num_children = 1;
  nodes_["/zookeeper"].stat.num_children = 2;
}

const znode* data_tree::find(std::string_view path) const {
  const auto it = nodes_.find(path);
  return it == nodes_.end() ? nullptr : &it->second;
}

std::vector<std::string> data_tree::children(std::string_view path) const {
  std::vector<std::string> names;
  const auto [first, last] = subtree(nodes_, path);
  const std::size_t skip = path == "/" ? 1 : path.size() + 1;
  for (auto it = first; it != last; ++it) {
    const std::string_view rest = std::string_view(it->first).substr(skip);
    if (rest.find('/') == std::string_view::npos) names.emplace_back(rest);
  }
  return names;
}

std::int32_t data_tree::descendants(std::string_view path) const {
  const auto [first, last] = subtree(nodes_, path);
  return static_cast<std::int32_t>(std::distance(first, last));
}

std::vector<std::string> data_tree::ephemerals(std::int64_t session, std::string_view prefix) const {
  std::vector<std::string> out;
  for (const auto& [path, node] : nodes_) {
    if (node.owner != session || session == 0) continue;
    if (prefix.empty() || prefix == "/" || path.starts_with(prefix)) out.push_back(path);
  }
  return out;
}

std::error_code data_tree::create(const create_args& args, std::int64_t zxid, std::int64_t now_ms, std::string* created,
                                  triggers& out, const access* who) {
  // The server checks only for a '/' and NUL first; the full path is validated after the parent is found and the
  // suffix appended (so "/missing/" is NONODE, not BADARGUMENTS).
  if (args.path.find('/') == std::string::npos || args.path.find('\0') != std::string::npos) {
    return server_error::bad_arguments;
  }
  const bool sequential = proto::is_sequential(args.mode);
  const std::string parent = parent_path(args.path);
  const auto parent_it = nodes_.find(parent);
  if (parent_it == nodes_.end()) return server_error::no_node;
  znode& dir = parent_it->second;
  if (denied(who, dir.acl, proto::perms::create)) return server_error::no_auth;
  std::string path = args.path;
  if (sequential) path += sequence_suffix(dir.sequence);
  if (bad_write_path(path)) return server_error::bad_arguments;
  if (nodes_.contains(path)) return server_error::node_exists;
  if (dir.owner != 0) return server_error::no_children_for_ephemerals;

  znode node;
  node.data = args.data;
  node.acl = args.acl;
  node.container = args.container;
  node.owner = proto::is_ephemeral(args.mode) ? args.session : 0;
  node.stat.czxid = node.stat.mzxid = node.stat.pzxid = zxid;
  node.stat.ctime = node.stat.mtime = now_ms;
  node.stat.ephemeral_owner = node.owner;
  node.stat.data_length = static_cast<std::int32_t>(node.data.size());
  dir.sequence = static_cast<std::int32_t>(static_cast<std::uint32_t>(dir.sequence) + 1U);  // wraps like Java's int
  ++dir.stat.cversion;
  ++dir.stat.num_children;
  dir.stat.pzxid = zxid;
  nodes_.emplace(path, std::move(node));

  out.push_back({path, proto::event_type::node_created, watch_table_kind::data});
  out.push_back({parent, proto::event_type::node_children_changed, watch_table_kind::child});
  if (created) *created = std::move(path);
  return {};
}

std::error_code data_tree::remove(std::string_view path, std::int32_t version, std::int64_t zxid, triggers& out,
                                  const access* who) {
  if (bad_write_path(path) || path == "/" || path == "/zookeeper") return server_error::bad_arguments;
  const auto it = nodes_.find(path);
  if (it == nodes_.end()) return server_error::no_node;
  if (denied(who, nodes_.at(parent_path(path)).acl, proto::perms::delete_)) return server_error::no_auth;
  if (!version_matches(version, it->second.stat.version)) return server_error::bad_version;
  if (it->second.stat.num_children > 0) return server_error::not_empty;
  const std::string parent = parent_path(path);
  znode& dir = nodes_.at(parent);
  ++dir.stat.cversion;
  --dir.stat.num_children;
  dir.stat.pzxid = zxid;
  out.push_back({std::string(path), proto::event_type::node_deleted, watch_table_kind::data});
  out.push_back({std::string(path), proto::event_type::node_deleted, watch_table_kind::child});
  out.push_back({parent, proto::event_type::node_children_changed, watch_table_kind::child});
  nodes_.erase(it);
  return {};
}

std::error_code data_tree::set_data(std::string_view path, std::string data, std::int32_t version, std::int64_t zxid,
                                    std::int64_t now_ms, triggers& out, const access* who) {
  if (bad_write_path(path)) return server_error::bad_arguments;
  const auto it = nodes_.find(path);
  if (it == nodes_.end()) return server_error::no_node;
  if (denied(who, it->second.acl, proto::perms::write)) return server_error::no_auth;
  proto::stat& stat = it->second.stat;
  if (!version_matches(version, stat.version)) return server_error::bad_version;
  it->second.data = std::move(data);
  ++stat.version;
  stat.mzxid = zxid;
  stat.mtime = now_ms;
  stat.data_length = static_cast<std::int32_t>(it->second.data.size());
  out.push_back({std::string(path), proto::event_type::node_data_changed, watch_table_kind::data});
  return {};
}

std::error_code data_tree::set_acl(std::string_view path, std::vector<proto::acl> acl, std::int32_t version,
                                   const access* who) {
  if (bad_write_path(path)) return server_error::bad_arguments;
  const auto it = nodes_.find(path);
  if (it == nodes_.end()) return server_error::no_node;
  if (denied(who, it->second.acl, proto::perms::admin)) return server_error::no_auth;
  if (!version_matches(version, it->second.stat.aversion)) return server_error::bad_version;
  it->second.acl = std::move(acl);
  ++it->second.stat.aversion;
  return {};
}

std::error_code data_tree::check_version(std::string_view path, std::int32_t version, const access* who) const {
  if (bad_write_path(path)) return server_error::bad_arguments;
  const znode* node = find(path);
  if (!node) return server_error::no_node;
  if (denied(who, node->acl, proto::perms::read)) return server_error::no_auth;
  if (!version_matches(version, node->stat.version)) return server_error::bad_version;
  return {};
}

std::vector<std::string> data_tree::reapable_containers() const {
  std::vector<std::string> out;
  for (const auto& [path, node] : nodes_) {
    if (node.container && node.stat.num_children == 0 && node.stat.cversion > 0) out.push_back(path);
  }
  return out;
}

}  // namespace zkwire::sim
