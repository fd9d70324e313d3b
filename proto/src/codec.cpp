#include "zkwire/proto/codec.hpp"

#include "zkwire/proto/error.hpp"

namespace zkwire::proto {

std::error_code complete_input_error(std::error_code ec) noexcept {
  if (ec == jute::error::need_more_bytes) return client_error::truncated_frame;
  return ec;
}

}  // namespace zkwire::proto
