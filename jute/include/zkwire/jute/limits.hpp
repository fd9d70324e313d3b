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

// What a client accepts by default in one reply frame: 64 MiB. The server bounds what it accepts (jute.maxbuffer),
// not what it sends: a getChildren reply lists every child, so a directory's listing has no bound but the tree's
// (60,000 children with 67-byte names are a 4.3 MB reply). 64 MiB holds about a million 60-byte names, around the
// count the decoder takes in one vector (default_max_length elements). Reading costs memory only as a frame's
// bytes arrive (proto/frame_reader.hpp), so the size is a ceiling, not a reservation (docs/protocol.md#limits).
inline constexpr std::size_t default_max_reply_size = std::size_t{64} * 1024 * 1024;

// The largest length a Jute int can express.
inline constexpr std::size_t max_wire_length = INT32_MAX;

}  // namespace zkwire::jute
