#include "zkwire/proto/create_mode.hpp"

namespace zkwire::proto {

bool is_valid_create(op_code op, create_mode mode, std::int64_t ttl_ms) noexcept {
  switch (op) {
    case op_code::create:
    case op_code::create2:
      return is_valid_create_mode(mode) && !is_container(mode) && !is_ttl(mode);
    case op_code::create_container:
      return is_container(mode);
    case op_code::create_ttl:
      return is_ttl(mode) && ttl_ms >= min_ttl_ms && ttl_ms <= max_ttl_ms;
    default:
      return false;
  }
}

}  // namespace zkwire::proto
