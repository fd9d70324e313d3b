#pragma once
// Stat, the metadata of a znode (docs/protocol.md#stat). A plain value: copy it freely, no shared state.

#include <cstddef>
#include <cstdint>

#include "zkwire/jute/reader.hpp"
#include "zkwire/jute/writer.hpp"

namespace zkwire::proto {

struct stat {
  std::int64_t czxid = 0;  // zxid of the create
  std::int64_t mzxid = 0;  // zxid of the last setData
  std::int64_t ctime = 0;  // ms since the epoch
  std::int64_t mtime = 0;  // ms since the epoch
  std::int32_t version = 0;
  // Bumped by every child create *and* delete, so it is not the next sequential suffix (that counts creates).
  std::int32_t cversion = 0;
  std::int32_t aversion = 0;
  // The owning session for ephemeral nodes, else 0. Also 0 for container and TTL nodes: the server hides the
  // special owner values it stores for them.
  std::int64_t ephemeral_owner = 0;
  std::int32_t data_length = 0;
  std::int32_t num_children = 0;
  std::int64_t pzxid = 0;  // zxid of the last child create or delete

  bool operator==(const stat&) const = default;
};

// Stat is fixed-size on the wire.
inline constexpr std::size_t stat_size = 68;

void encode(jute::writer& w, const stat& v);
void decode(jute::reader& r, stat& v);

}  // namespace zkwire::proto
