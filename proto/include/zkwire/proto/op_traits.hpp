#pragma once
// What zkwire knows about each opcode, in one table: its name, the records its request and reply carry, where
// its path is, whether a user may submit it, whether and how it may appear in a multi, and the special xid it
// travels with. opcodes.hpp, message.hpp, multi.hpp, the session engine and the fault proxy all answer their
// questions about an opcode from this table; nothing else restates these facts.
//
// The rows are built from record *types*, so a row cannot name a record that is not in its variant (that fails
// to compile), and static_asserts below check the table as a whole: every op_code exactly once, unique names,
// unique special xids, submittable ops have a request and a reply.
//
// Thread safety: constant data; use from any thread.

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <type_traits>
#include <variant>

#include "zkwire/proto/detail/variant.hpp"
#include "zkwire/proto/message.hpp"
#include "zkwire/proto/multi.hpp"
#include "zkwire/proto/opcodes.hpp"

namespace zkwire::proto {

// Where a request body names a node: a `path` member (chroot applies; the path is the body's first field on the
// wire), getEphemerals' prefix (also the first field, but sent as given, without the chroot, as the Java 3.8
// client does), or nowhere.
enum class op_path : std::uint8_t { none, path, prefix };

// Whether an op may be one of the ops of a multi (14) or of a multiRead (22).
enum class multi_use : std::uint8_t { none, write, read };

struct op_traits {
  op_code op = op_code::error;
  std::string_view name;  // ZooKeeper's own name ("getData", "create2", "closeSession")
  // The request_body alternative the op is sent with; std::variant_npos when a client never sends it
  // (notification, error, createSession, deleteContainer).
  std::size_t request_body = std::variant_npos;
  // The response_body alternative of a successful reply (notification: the watcher_event); variant_npos when no
  // reply to it is ever decoded.
  std::size_t response_body = std::variant_npos;
  op_path path = op_path::none;
  // session::submit accepts it. Not: ops the engine sends itself (ping, auth, setWatches, closeSession), ops a
  // client never sends, check outside a multi (a 3.8.0 server drops the connection) and sasl (its reply overtakes
  // others, which breaks matching replies to requests in order).
  bool user_submittable = false;
  multi_use in_multi = multi_use::none;
  std::size_t multi_op_body = std::variant_npos;      // multi_op_body alternative, when in_multi is not none
  std::size_t multi_result_body = std::variant_npos;  // multi_result_body alternative, when a result may have this
                                                      // type (createTTL/createContainer results come back as 15)
  // The reserved xid that marks its frames (special_xid::*; special_xid_op() reads it back), 0 if none. For
  // setWatches that is only the C client's convention: zkwire's engine sends it with a normal xid.
  std::int32_t special_xid = 0;
};

namespace detail {

// "This op has no such record."
struct no_record {};

template <class T, class Variant>
constexpr std::size_t alternative_of() {
  if constexpr (std::is_same_v<T, no_record>) {
    return std::variant_npos;
  } else {
    return index_of_v<T, Variant>;  // does not compile when T is not an alternative
  }
}

template <class T>
constexpr op_path path_of() {
  if constexpr (std::is_same_v<T, get_ephemerals_request>) {
    return op_path::prefix;
  } else if constexpr (requires(const T& v) { v.path; }) {
    return op_path::path;
  } else {
    return op_path::none;
  }
}

// The facts of a row that are not about record types.
struct op_facts {
  bool user_submittable = false;
  multi_use in_multi = multi_use::none;
  std::int32_t special_xid = 0;
};

// One row: Request/Response are the records of a request and its successful reply, MultiResult the body of a
// multi result of this type (no_record: this type never appears as a multi result).
template <class Request, class Response, class MultiResult = no_record>
constexpr op_traits row(op_code op, std::string_view name, op_facts facts = {}) {
  op_traits t;
  t.op = op;
  t.name = name;
  t.request_body = alternative_of<Request, request_body>();
  t.response_body = alternative_of<Response, response_body>();
  t.path = path_of<Request>();
  t.user_submittable = facts.user_submittable;
  t.in_multi = facts.in_multi;
  // Not checked here: rows_consistent() reports an op in a multi whose request is not a multi op.
  if (facts.in_multi != multi_use::none) t.multi_op_body = find_index<Request, multi_op_body>::value;
  t.multi_result_body = alternative_of<MultiResult, multi_result_body>();
  t.special_xid = facts.special_xid;
  return t;
}

constexpr op_facts user{.user_submittable = true};
constexpr op_facts user_multi_write{.user_submittable = true, .in_multi = multi_use::write};
constexpr op_facts user_multi_read{.user_submittable = true, .in_multi = multi_use::read};

}  // namespace detail

// The table, in wire-value order of the client ops, then the server-side ones.
inline constexpr auto op_table = [] {
  using detail::no_record;
  using detail::row;
  using detail::user;
  using detail::user_multi_read;
  using detail::user_multi_write;
  using o = op_code;
  return std::array{
      row<no_record, watcher_event>(o::notification, "notification", {.special_xid = special_xid::notification}),
      row<create_request, create_response, create_response>(o::create, "create", user_multi_write),
      row<delete_request, no_body, no_body>(o::delete_, "delete", user_multi_write),
      row<exists_request, exists_response>(o::exists, "exists", user),
      row<get_data_request, get_data_response, get_data_response>(o::get_data, "getData", user_multi_read),
      row<set_data_request, set_data_response, set_data_response>(o::set_data, "setData", user_multi_write),
      row<get_acl_request, get_acl_response>(o::get_acl, "getACL", user),
      row<set_acl_request, set_acl_response>(o::set_acl, "setACL", user),
      row<get_children_request, get_children_response, get_children_response>(o::get_children, "getChildren",
                                                                              user_multi_read),
      row<sync_request, sync_response>(o::sync, "sync", user),
      row<no_body, no_body>(o::ping, "ping", {.special_xid = special_xid::ping}),
      row<get_children2_request, get_children2_response>(o::get_children2, "getChildren2", user),
      row<check_version_request, no_body, no_body>(o::check, "check", {.in_multi = multi_use::write}),
      row<multi_request, multi_response>(o::multi, "multi", user),
      row<create_request, create2_response, create2_response>(o::create2, "create2", user_multi_write),
      row<reconfig_request, get_data_response>(o::reconfig, "reconfig", user),  // replies the new config
      row<check_watches_request, no_body>(o::check_watches, "checkWatches", user),
      row<remove_watches_request, no_body>(o::remove_watches, "removeWatches", user),
      row<create_request, create2_response>(o::create_container, "createContainer", user_multi_write),
      row<no_record, no_record>(o::delete_container, "deleteContainer"),  // its body is not Jute: never sent
      row<create_ttl_request, create2_response>(o::create_ttl, "createTTL", user_multi_write),
      row<multi_request, multi_response>(o::multi_read, "multiRead", user),
      row<auth_packet, no_body>(o::auth, "auth", {.special_xid = special_xid::auth}),
      row<set_watches, no_body>(o::set_watches, "setWatches", {.special_xid = special_xid::set_watches}),
      row<get_sasl_request, set_sasl_response>(o::sasl, "sasl"),
      row<get_ephemerals_request, get_ephemerals_response>(o::get_ephemerals, "getEphemerals", user),
      row<get_all_children_number_request, get_all_children_number_response>(o::get_all_children_number,
                                                                             "getAllChildrenNumber", user),
      row<set_watches2, no_body>(o::set_watches2, "setWatches2"),
      row<add_watch_request, error_response>(o::add_watch, "addWatch", user),  // a 4-byte body: always 0
      row<no_body, who_am_i_response>(o::who_am_i, "whoAmI", user),
      row<no_record, no_record>(o::create_session, "createSession"),  // a ConnectRequest is sent instead
      row<no_body, no_body>(o::close_session, "closeSession"),
      row<no_record, no_record, no_body>(o::error, "error"),  // a failed multi op; also the terminator type
  };
}();

namespace detail {

constexpr std::int32_t op_value(op_code op) { return static_cast<std::int32_t>(op); }

constexpr std::int32_t min_op_value = [] {
  std::int32_t m = op_value(op_table[0].op);
  for (const auto& t : op_table) m = op_value(t.op) < m ? op_value(t.op) : m;
  return m;
}();
constexpr std::int32_t max_op_value = [] {
  std::int32_t m = op_value(op_table[0].op);
  for (const auto& t : op_table) m = op_value(t.op) > m ? op_value(t.op) : m;
  return m;
}();

// Row index by wire value - min_op_value, no_row for values not in the table: a lookup costs one bounds check.
constexpr std::uint8_t no_row = 0xff;
static_assert(op_table.size() < no_row);
constexpr auto op_index = [] {
  std::array<std::uint8_t, static_cast<std::size_t>(max_op_value - min_op_value + 1)> index{};
  for (auto& i : index) i = no_row;
  for (std::size_t r = 0; r < op_table.size(); ++r) {
    index[static_cast<std::size_t>(op_value(op_table[r].op) - min_op_value)] = static_cast<std::uint8_t>(r);
  }
  return index;
}();

constexpr bool each_op_once() {
  for (const op_code op : all_op_codes) {
    std::size_t n = 0;
    for (const auto& t : op_table) n += t.op == op ? 1U : 0U;
    if (n != 1) return false;
  }
  return op_table.size() == all_op_codes.size();
}

constexpr bool names_unique() {
  for (std::size_t i = 0; i < op_table.size(); ++i) {
    if (op_table[i].name.empty() || op_table[i].name == "unknown") return false;
    for (std::size_t j = i + 1; j < op_table.size(); ++j) {
      if (op_table[i].name == op_table[j].name) return false;
    }
  }
  return true;
}

constexpr bool special_xids_unique_and_negative() {
  for (std::size_t i = 0; i < op_table.size(); ++i) {
    if (op_table[i].special_xid > 0) return false;
    if (op_table[i].special_xid == 0) continue;
    for (std::size_t j = i + 1; j < op_table.size(); ++j) {
      if (op_table[i].special_xid == op_table[j].special_xid) return false;
    }
  }
  return true;
}

constexpr bool row_consistent(const op_traits& t) {
  const bool sendable = t.request_body != std::variant_npos;
  if (t.user_submittable && (!sendable || t.response_body == std::variant_npos || t.special_xid != 0)) return false;
  if ((t.in_multi != multi_use::none) != (t.multi_op_body != std::variant_npos)) return false;
  return sendable || t.path == op_path::none;
}

constexpr bool rows_consistent() { return std::all_of(op_table.begin(), op_table.end(), row_consistent); }

static_assert(each_op_once(), "op_table must hold every op_code exactly once");
static_assert(names_unique(), "op_table names must be unique and not \"unknown\"");
static_assert(special_xids_unique_and_negative(), "special xids are negative and belong to one op each");
static_assert(rows_consistent(), "op_table row facts contradict each other");

}  // namespace detail

// The row of `op`, or nullptr for a value that is not a known opcode (any int32 can arrive from the wire).
constexpr const op_traits* find_op_traits(op_code op) noexcept {
  const std::int32_t v = detail::op_value(op);
  if (v < detail::min_op_value || v > detail::max_op_value) return nullptr;
  const std::uint8_t r = detail::op_index[static_cast<std::size_t>(v - detail::min_op_value)];
  return r == detail::no_row ? nullptr : &op_table[r];
}

static_assert(find_op_traits(op_code::get_data)->name == "getData");
static_assert(find_op_traits(static_cast<op_code>(10)) == nullptr);

}  // namespace zkwire::proto
