#pragma once
// Create modes (the `flags` of CreateRequest) and the opcode each one must be sent with
// (docs/protocol.md#create-modes).

#include <cstdint>

#include "zkwire/proto/opcodes.hpp"

namespace zkwire::proto {

enum class create_mode : std::int32_t {
  persistent = 0,
  ephemeral = 1,
  persistent_sequential = 2,
  ephemeral_sequential = 3,
  container = 4,
  persistent_with_ttl = 5,
  persistent_sequential_with_ttl = 6,
};

// TTLs the server accepts for createTTL, in milliseconds: 1 .. 2^40-1.
inline constexpr std::int64_t min_ttl_ms = 1;
inline constexpr std::int64_t max_ttl_ms = (std::int64_t{1} << 40) - 1;

constexpr bool is_valid_create_mode(create_mode m) noexcept {
  const auto v = static_cast<std::int32_t>(m);
  return v >= 0 && v <= 6;
}
constexpr bool is_ephemeral(create_mode m) noexcept {
  return m == create_mode::ephemeral || m == create_mode::ephemeral_sequential;
}
constexpr bool is_sequential(create_mode m) noexcept {
  return m == create_mode::persistent_sequential || m == create_mode::ephemeral_sequential ||
         m == create_mode::persistent_sequential_with_ttl;
}
constexpr bool is_ttl(create_mode m) noexcept {
  return m == create_mode::persistent_with_ttl || m == create_mode::persistent_sequential_with_ttl;
}
constexpr bool is_container(create_mode m) noexcept { return m == create_mode::container; }

// The opcode the Java client uses for a mode: createTTL for the TTL modes, createContainer for container, create2
// otherwise. This matters: the server makes a container only for opcode createContainer, and create/create2 with
// flag 4 silently makes a plain persistent node.
constexpr op_code create_opcode(create_mode m) noexcept {
  if (is_ttl(m)) return op_code::create_ttl;
  if (is_container(m)) return op_code::create_container;
  return op_code::create2;
}

// Whether `op` may carry `mode` (and, for createTTL, `ttl_ms`) without the server rejecting it or silently doing
// something else: create/create2 take modes 0-3, createContainer only container, createTTL only the TTL modes with
// a TTL in [min_ttl_ms, max_ttl_ms]. Any other op is false.
bool is_valid_create(op_code op, create_mode mode, std::int64_t ttl_ms = -1) noexcept;

}  // namespace zkwire::proto
