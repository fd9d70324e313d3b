#include "zkwire/proto/stat.hpp"

#include "record_fields.hpp"

namespace zkwire::proto {

// The fields are described in records.hpp; encode and decode derive from them.
static_assert(detail::min_wire_size<stat>() == stat_size);

void encode(jute::writer& w, const stat& v) { detail::encode_fields(w, v); }

void decode(jute::reader& r, stat& v) { detail::decode_fields(r, v); }

}  // namespace zkwire::proto
