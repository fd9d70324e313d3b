#include "zkwire/proto/headers.hpp"

#include "record_fields.hpp"

namespace zkwire::proto {

// The fields are described in records.hpp; encode and decode derive from them.
static_assert(detail::min_wire_size<request_header>() == request_header_size);
static_assert(detail::min_wire_size<reply_header>() == reply_header_size);
static_assert(detail::min_wire_size<multi_header>() == multi_header_size);

void encode(jute::writer& w, const request_header& v) { detail::encode_fields(w, v); }

void decode(jute::reader& r, request_header& v) { detail::decode_fields(r, v); }

void encode(jute::writer& w, const reply_header& v) { detail::encode_fields(w, v); }

void decode(jute::reader& r, reply_header& v) { detail::decode_fields(r, v); }

void encode(jute::writer& w, const multi_header& v) { detail::encode_fields(w, v); }

void decode(jute::reader& r, multi_header& v) { detail::decode_fields(r, v); }

}  // namespace zkwire::proto
