#pragma once
// The simulated server's znode tree: data, ACLs and full stats, the per-parent counter sequential names come from,
// ephemeral owners and containers. It knows nothing of sessions, watches or bytes: each change returns the watch
// triggers it causes, and the server (server.hpp) fans them out. Every rule here is one a client can observe on a
// real ZooKeeper 3.8 server (docs/protocol.md); tests/sim/differential_test.cpp compares the two.
//
// Thread safety: none; the simulation runs on one thread.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "zkwire/proto/acl.hpp"
#include "zkwire/proto/create_mode.hpp"
#include "zkwire/proto/stat.hpp"
#include "zkwire/proto/watches.hpp"

namespace zkwire::sim {

struct znode {
  std::string data;
  std::vector<proto::acl> acl;
  proto::stat stat;
  std::int32_t sequence = 0;  // child creations so far: the next sequential suffix (it never counts deletes)
  bool container = false;
  std::int64_t owner = 0;  // the session of an ephemeral node (stat.ephemeral_owner), kept for containers as 0
};

// Which watch tables an event goes to: the data table (data, exist, persistent and recursive watches) or the child
// table (child and persistent watches), as the real server keeps them.
enum class watch_table_kind { data, child };

struct trigger {
  std::string path;
  proto::event_type type = proto::event_type::none;
  watch_table_kind table = watch_table_kind::data;
};

// What one applied change asks the watch table to fire, in the order the server fires it.
using triggers = std::vector<trigger>;

struct create_args {
  std::string path;  // for sequential modes the prefix the suffix is appended to
  std::string data;
  std::vector<proto::acl> acl;
  proto::create_mode mode = proto::create_mode::persistent;
  bool container = false;  // the createContainer opcode (the mode alone never makes a container)
  std::int64_t session = 0;
};

// Who is asking, for ACL checks: the connection's ids. world:anyone matches everyone, ip ids match the connection's
// address (the simulation's clients are all 127.0.0.1), digest ids match the ids the connection authenticated as
// (user:base64(sha1(user:password)), compared as strings).
struct access {
  std::string ip = "127.0.0.1";
  std::vector<std::string> digest;
  [[nodiscard]] bool allows(const std::vector<proto::acl>& acl, std::int32_t perm) const;
};

class data_tree {
 public:
  data_tree();

  [[nodiscard]] const znode* find(std::string_view path) const;
  // Children's names in an unspecified order, like the real server (which lists from a hash set).
  [[nodiscard]] std::vector<std::string> children(std::string_view path) const;
  [[nodiscard]] std::int32_t descendants(std::string_view path) const;
  // Full paths of the ephemeral nodes a session owns whose path starts with `prefix` ("" or "/": all).
  [[nodiscard]] std::vector<std::string> ephemerals(std::int64_t session, std::string_view prefix) const;
  [[nodiscard]] std::size_t size() const noexcept { return nodes_.size(); }
  [[nodiscard]] const std::map<std::string, znode, std::less<>>& nodes() const noexcept { return nodes_; }

  // Each change checks what the server checks, in its order, and leaves the tree unchanged when it fails.
  // `zxid` and `now_ms` stamp the stats. The created path (with its suffix) goes to *created.
  // `who` is checked where the server checks it (after the node or its parent is found), so the errors come in the
  // server's order; null skips the checks (the server's own deletes: expiry, the container reaper).
  std::error_code create(const create_args& args, std::int64_t zxid, std::int64_t now_ms, std::string* created,
                         triggers& out, const access* who);
  std::error_code remove(std::string_view path, std::int32_t version, std::int64_t zxid, triggers& out,
                         const access* who);
  std::error_code set_data(std::string_view path, std::string data, std::int32_t version, std::int64_t zxid,
                           std::int64_t now_ms, triggers& out, const access* who);
  std::error_code set_acl(std::string_view path, std::vector<proto::acl> acl, std::int32_t version, const access* who);
  std::error_code check_version(std::string_view path, std::int32_t version, const access* who) const;

  // The paths of empty containers that once had a child, which the container reaper deletes.
  [[nodiscard]] std::vector<std::string> reapable_containers() const;

 private:
  std::map<std::string, znode, std::less<>> nodes_;
};

// "/a/b" -> "/a"; "/a" -> "/".
std::string parent_path(std::string_view path);
// "/a/b" -> "b".
std::string_view node_name(std::string_view path);

}  // namespace zkwire::sim
