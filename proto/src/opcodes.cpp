#include "zkwire/proto/opcodes.hpp"

namespace zkwire::proto {

std::optional<op_code> special_xid_op(std::int32_t xid) noexcept {
  switch (xid) {
    case special_xid::notification:
      return op_code::notification;
    case special_xid::ping:
      return op_code::ping;
    case special_xid::auth:
      return op_code::auth;
    case special_xid::set_watches:
      return op_code::set_watches;
    default:
      return std::nullopt;
  }
}

std::string_view op_code_name(op_code op) noexcept {
  switch (op) {
    case op_code::notification:
      return "notification";
    case op_code::create:
      return "create";
    case op_code::delete_:
      return "delete";
    case op_code::exists:
      return "exists";
    case op_code::get_data:
      return "getData";
    case op_code::set_data:
      return "setData";
    case op_code::get_acl:
      return "getACL";
    case op_code::set_acl:
      return "setACL";
    case op_code::get_children:
      return "getChildren";
    case op_code::sync:
      return "sync";
    case op_code::ping:
      return "ping";
    case op_code::get_children2:
      return "getChildren2";
    case op_code::check:
      return "check";
    case op_code::multi:
      return "multi";
    case op_code::create2:
      return "create2";
    case op_code::reconfig:
      return "reconfig";
    case op_code::check_watches:
      return "checkWatches";
    case op_code::remove_watches:
      return "removeWatches";
    case op_code::create_container:
      return "createContainer";
    case op_code::delete_container:
      return "deleteContainer";
    case op_code::create_ttl:
      return "createTTL";
    case op_code::multi_read:
      return "multiRead";
    case op_code::auth:
      return "auth";
    case op_code::set_watches:
      return "setWatches";
    case op_code::sasl:
      return "sasl";
    case op_code::get_ephemerals:
      return "getEphemerals";
    case op_code::get_all_children_number:
      return "getAllChildrenNumber";
    case op_code::set_watches2:
      return "setWatches2";
    case op_code::add_watch:
      return "addWatch";
    case op_code::who_am_i:
      return "whoAmI";
    case op_code::create_session:
      return "createSession";
    case op_code::close_session:
      return "closeSession";
    case op_code::error:
      return "error";
  }
  return "unknown";
}

bool is_known_op_code(std::int32_t value) noexcept { return op_code_name(static_cast<op_code>(value)) != "unknown"; }

bool is_multi_write_op(op_code op) noexcept {
  switch (op) {
    case op_code::create:
    case op_code::create2:
    case op_code::create_ttl:
    case op_code::create_container:
    case op_code::delete_:
    case op_code::set_data:
    case op_code::check:
      return true;
    default:
      return false;
  }
}

bool is_multi_read_op(op_code op) noexcept { return op == op_code::get_children || op == op_code::get_data; }

}  // namespace zkwire::proto
