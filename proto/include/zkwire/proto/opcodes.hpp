#pragma once
// Opcodes (ZooDefs.OpCode) and the reserved xids of the ZooKeeper 3.8 client protocol (docs/protocol.md#special-xids,
// docs/protocol.md#opcodes).

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

namespace zkwire::proto {

// The `type` of a RequestHeader, and of a MultiHeader inside multi requests and responses.
// Values not listed can appear on the wire (the enum has a fixed underlying type, so any int32 is a valid
// value); decoders keep them and the dispatching layer rejects them.
enum class op_code : std::int32_t {
  notification = 0,  // server to client only: a watch event, xid -1
  create = 1,        // replies CreateResponse (path only); create2 is what modern clients send
  delete_ = 2,       // trailing underscore: `delete` is a keyword
  exists = 3,
  get_data = 4,
  set_data = 5,
  get_acl = 6,
  set_acl = 7,
  get_children = 8,
  sync = 9,
  ping = 11,
  get_children2 = 12,
  check = 13,  // inside multi only: sent standalone, a 3.8.0 server drops the connection
  multi = 14,
  create2 = 15,
  reconfig = 16,
  check_watches = 17,
  remove_watches = 18,
  create_container = 19,  // the opcode, not create_mode::container, is what makes a container node
  delete_container = 20,  // server-internal (container reaper); its body is not Jute, never send it
  create_ttl = 21,
  multi_read = 22,
  auth = 100,
  set_watches = 101,
  sasl = 102,
  get_ephemerals = 103,
  get_all_children_number = 104,
  set_watches2 = 105,
  add_watch = 106,
  who_am_i = 107,
  create_session = -10,  // internal transaction type; clients send a ConnectRequest instead
  close_session = -11,
  error = -1,  // multi result type meaning "this op failed"; also the MultiHeader terminator type
};

// Every enumerator of op_code, for tables and exhaustive tests.
inline constexpr std::array<op_code, 33> all_op_codes = {
    op_code::notification,
    op_code::create,
    op_code::delete_,
    op_code::exists,
    op_code::get_data,
    op_code::set_data,
    op_code::get_acl,
    op_code::set_acl,
    op_code::get_children,
    op_code::sync,
    op_code::ping,
    op_code::get_children2,
    op_code::check,
    op_code::multi,
    op_code::create2,
    op_code::reconfig,
    op_code::check_watches,
    op_code::remove_watches,
    op_code::create_container,
    op_code::delete_container,
    op_code::create_ttl,
    op_code::multi_read,
    op_code::auth,
    op_code::set_watches,
    op_code::sasl,
    op_code::get_ephemerals,
    op_code::get_all_children_number,
    op_code::set_watches2,
    op_code::add_watch,
    op_code::who_am_i,
    op_code::create_session,
    op_code::close_session,
    op_code::error,
};

// Xids with a fixed meaning. Normal requests use positive xids; replies echo them.
namespace special_xid {
inline constexpr std::int32_t notification = -1;  // server to client: ReplyHeader(-1, zxid -1, 0) + WatcherEvent
inline constexpr std::int32_t ping = -2;          // the server forces -2 on every ping reply
inline constexpr std::int32_t auth = -4;          // AuthPacket; its reply may overtake earlier replies
// Only a convention of the C client: the Java client sends SetWatches with a normal xid and the server echoes
// whatever it gets, so a client may use either.
inline constexpr std::int32_t set_watches = -8;
}  // namespace special_xid

// The operation whose reply carries `xid`, for the special xids above; nullopt for any other xid (a normal
// reply, matched against the FIFO of sent requests).
std::optional<op_code> special_xid_op(std::int32_t xid) noexcept;

// ZooKeeper's own name for an opcode ("getData", "create2", "closeSession"), for logs and tools; "unknown"
// for a value not in the table.
std::string_view op_code_name(op_code op) noexcept;

// True for the opcodes zkwire knows (every enumerator above).
bool is_known_op_code(std::int32_t value) noexcept;

// Ops a multi (14) may contain: create, create2, createTTL, createContainer, delete, setData, check.
bool is_multi_write_op(op_code op) noexcept;
// Ops a multiRead (22) may contain: getChildren, getData.
bool is_multi_read_op(op_code op) noexcept;

}  // namespace zkwire::proto
