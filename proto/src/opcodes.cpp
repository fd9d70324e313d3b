#include "zkwire/proto/opcodes.hpp"

#include "zkwire/proto/op_traits.hpp"

namespace zkwire::proto {

std::optional<op_code> special_xid_op(std::int32_t xid) noexcept {
  if (xid >= 0) return std::nullopt;
  for (const auto& t : op_table) {
    if (t.special_xid == xid) return t.op;
  }
  return std::nullopt;
}

std::string_view op_code_name(op_code op) noexcept {
  const op_traits* t = find_op_traits(op);
  return t != nullptr ? t->name : "unknown";
}

bool is_known_op_code(std::int32_t value) noexcept { return find_op_traits(static_cast<op_code>(value)) != nullptr; }

bool is_multi_write_op(op_code op) noexcept {
  const op_traits* t = find_op_traits(op);
  return t != nullptr && t->in_multi == multi_use::write;
}

bool is_multi_read_op(op_code op) noexcept {
  const op_traits* t = find_op_traits(op);
  return t != nullptr && t->in_multi == multi_use::read;
}

}  // namespace zkwire::proto
