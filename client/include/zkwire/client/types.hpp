#pragma once
// Result and event types of zkwire::client. Plain values: copy them freely.

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <system_error>
#include <tuple>
#include <utility>
#include <vector>

#include "zkwire/proto/acl.hpp"
#include "zkwire/proto/create_mode.hpp"
#include "zkwire/proto/multi.hpp"
#include "zkwire/proto/opcodes.hpp"
#include "zkwire/proto/responses.hpp"
#include "zkwire/proto/session/session.hpp"
#include "zkwire/proto/stat.hpp"
#include "zkwire/proto/watches.hpp"

namespace zkwire {

// The protocol vocabulary, under the client's namespace.
using stat = proto::stat;
using acl = proto::acl;
using acl_id = proto::acl_id;
using create_mode = proto::create_mode;
using session_state = proto::session_state;
using event_type = proto::event_type;
using keeper_state = proto::keeper_state;
using watcher_type = proto::watcher_type;
using add_watch_mode = proto::add_watch_mode;
using client_info = proto::client_info;
using op_code = proto::op_code;
using proto::creator_all_acl;
using proto::open_acl_unsafe;
using proto::read_acl_unsafe;
namespace perms = proto::perms;

// A version argument meaning "whatever the current version is".
inline constexpr std::int32_t any_version = -1;

// Not an aggregate (nor is any option or value type a caller builds: acl, acl_id, multi_op, client_options, the
// recipes' options): GCC 12 destroys an aggregate temporary built with braces inside a co_await expression twice
// when the awaited operation throws. With constructors, `create_options{}` and
// `create_options{create_mode::ephemeral}` are safe anywhere.
struct create_options {
  create_mode mode = create_mode::persistent;
  std::vector<zkwire::acl> acl = proto::open_acl_unsafe();
  // Milliseconds, for create_mode::persistent_with_ttl and persistent_sequential_with_ttl only (the server must
  // run with -Dzookeeper.extendedTypesEnabled=true); 1 .. 2^40-1.
  std::int64_t ttl = -1;
  // Store null data instead of the bytes given (getData then reports null_data).
  bool null_data = false;

  create_options();  // persistent, open ACL
  explicit create_options(create_mode create_as, std::vector<zkwire::acl> entries = proto::open_acl_unsafe());

  // Named options (open ACL).
  static create_options with_mode(create_mode mode) {
    create_options options;
    options.mode = mode;
    return options;
  }
  static create_options persistent() { return with_mode(create_mode::persistent); }
  static create_options ephemeral() { return with_mode(create_mode::ephemeral); }
  static create_options persistent_sequential() { return with_mode(create_mode::persistent_sequential); }
  static create_options ephemeral_sequential() { return with_mode(create_mode::ephemeral_sequential); }
  static create_options container() { return with_mode(create_mode::container); }
  // persistent_with_ttl, or persistent_sequential_with_ttl with `sequential`.
  static create_options with_ttl(std::int64_t ttl_ms, bool sequential = false) {
    create_options options =
        with_mode(sequential ? create_mode::persistent_sequential_with_ttl : create_mode::persistent_with_ttl);
    options.ttl = ttl_ms;
    return options;
  }
};

struct create_result {
  std::string path;  // the node created, with its sequential suffix; the chroot is stripped
  zkwire::stat stat;
};

struct get_result {
  std::string data;        // empty when null_data
  bool null_data = false;  // the node holds null (a create with null data), not an empty byte string
  zkwire::stat stat;
  // The reply header's zxid: the last transaction the answering server had applied, so `data` is the node's state
  // after exactly that transaction (as children_result::zxid). A session's reads never show a lower one.
  std::int64_t zxid = 0;
};

struct children_result {
  std::vector<std::string> children;  // names, not paths, in the server's (unspecified) order
  zkwire::stat stat;                  // of the parent
  // The reply header's zxid: the last transaction the answering server had applied. The server never applies a
  // transaction while it answers a read, so `children` is the parent's state after exactly that transaction.
  std::int64_t zxid = 0;
};

struct acl_result {
  std::vector<zkwire::acl> acl;  // without ADMIN on the node, digest ids come back as "user:x"
  zkwire::stat stat;
};

// One op of a multi (create, delete, set, check) or of a multi_read (get, get_children). Build them with the
// functions in namespace zkwire::ops.
using multi_op = proto::multi_op;

// An ACL list from its entries, e.g. acl_list(acl(perms::all, "digest", id), acl(perms::read, "world", "anyone")):
// the form to use inside co_await, where GCC 12 rejects a braced list ("array used as initializer").
template <class... Entries>
std::vector<zkwire::acl> acl_list(Entries&&... entries) {
  std::vector<zkwire::acl> list;
  list.reserve(sizeof...(entries));
  (list.emplace_back(std::forward<Entries>(entries)), ...);
  return list;
}

namespace ops {
multi_op create(std::string path, std::string data, const create_options& options = {});
multi_op remove(std::string path, std::int32_t version = any_version);
multi_op set(std::string path, std::string data, std::int32_t version = any_version);
multi_op check(std::string path, std::int32_t version);
multi_op get(std::string path);           // multi_read only
multi_op get_children(std::string path);  // multi_read only

// The ops of a multi, in order: async_multi(ops::list(ops::check(a, 3), ops::set(b, "x")), token). The form to use
// inside co_await, where GCC 12 rejects a braced list ("array used as initializer").
template <class... Ops>
std::vector<multi_op> list(Ops&&... ops) {
  std::vector<multi_op> all;
  all.reserve(sizeof...(ops));
  (all.emplace_back(std::forward<Ops>(ops)), ...);
  return all;
}
}  // namespace ops

// The result of one op of a multi or multi_read.
struct op_result {
  // The result's type: the op's code on success (create results are op_code::create or create2, depending on the
  // server version), op_code::error for an op that failed or was rolled back.
  op_code type = op_code::error;
  // This op's error: for a failed multi, the failing op has its real error, ops before it none (they were rolled
  // back: check the multi's own error), ops after it RUNTIMEINCONSISTENCY.
  std::error_code error;
  std::string path;                   // create: the node created (chroot stripped)
  zkwire::stat stat;                  // create2/createTTL/createContainer, set, get
  std::string data;                   // get
  bool null_data = false;             // get
  std::vector<std::string> children;  // get_children (multi_read returns no parent stat)
};

// A watch notification, or the final delivery when the session ends: then type is event_type::none, `state`
// says why (expired, auth_failed, closed) and `error` is set. For a persistent watch removed with
// remove_watches, one last event with type persistent_watch_removed (data_watch_removed / child_watch_removed for
// one-shot watches) and no error.
struct watch_event {
  event_type type = event_type::none;
  keeper_state state = keeper_state::sync_connected;
  std::string path;  // client path (chroot stripped)
  std::error_code error;
};

// Called on the client's executor, once for a one-shot watch, once per event for a persistent watch (plus the
// final delivery described above). Must not throw.
using watch_callback = std::function<void(const watch_event&)>;

// The identity of a watcher that several reads register, as the C client's watcher (a function and its context)
// and the Java client's Watcher object are: the reads that take a watcher_key (client::async_get(path, key,
// on_event, token), ...) register one watcher per key on this client, with the callback of the first read that
// registered it while it lives. It is registered once per path and kind, called once per event however many of
// its reads armed that event, and client::async_remove_watcher removes it from a path while the path's other
// watchers keep their watches. Keys are the caller's to choose, e.g. an object's address and a tag; {0, 0} is a
// key like any other.
struct watcher_key {
  std::uintptr_t object = 0;
  std::uintptr_t tag = 0;
  friend bool operator==(const watcher_key&, const watcher_key&) = default;
  friend bool operator<(const watcher_key& a, const watcher_key& b) noexcept {
    return std::tie(a.object, a.tag) < std::tie(b.object, b.tag);
  }
};

// A session state transition, delivered to the state listener on the client's executor.
struct state_event {
  session_state from = session_state::not_started;
  session_state to = session_state::not_started;
  std::error_code reason;  // e.g. the I/O error that broke the connection, or session_expired
};

using state_listener = std::function<void(const state_event&)>;

}  // namespace zkwire
