#pragma once

#include <cstddef>
#include <cstdint>

namespace zkwire::jute {

// The server's jute.maxbuffer default (0xfffff). Frames and buffers the server accepts stay at or below it.
inline constexpr std::size_t server_max_buffer = 0xfffff;

// What we accept by default in one buffer, string or frame: a getData reply for a node at the server's size
// limit carries a 16-byte header and a 68-byte Stat on top of the data, so the client must allow more than
// the server does (docs/protocol.md#limits). 64 KiB of headroom, configurable wherever it is used.
inline constexpr std::size_t default_max_length = server_max_buffer + std::size_t{64} * 1024;

// The largest length a Jute int can express.
inline constexpr std::size_t max_wire_length = INT32_MAX;

}  // namespace zkwire::jute
