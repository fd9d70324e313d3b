#include "zkwire/proto/requests.hpp"

#include "record_fields.hpp"

namespace zkwire::proto {

// Each record's fields are described once, in records.hpp; encode and decode derive from them.

void encode(jute::writer& w, const create_request& v) { detail::encode_fields(w, v); }

void decode(jute::reader& r, create_request& v) { detail::decode_fields(r, v); }

void encode(jute::writer& w, const create_ttl_request& v) { detail::encode_fields(w, v); }

void decode(jute::reader& r, create_ttl_request& v) { detail::decode_fields(r, v); }

void encode(jute::writer& w, const delete_request& v) { detail::encode_fields(w, v); }

void decode(jute::reader& r, delete_request& v) { detail::decode_fields(r, v); }

void encode(jute::writer& w, const exists_request& v) { detail::encode_fields(w, v); }

void decode(jute::reader& r, exists_request& v) { detail::decode_fields(r, v); }

void encode(jute::writer& w, const get_data_request& v) { detail::encode_fields(w, v); }

void decode(jute::reader& r, get_data_request& v) { detail::decode_fields(r, v); }

void encode(jute::writer& w, const set_data_request& v) { detail::encode_fields(w, v); }

void decode(jute::reader& r, set_data_request& v) { detail::decode_fields(r, v); }

void encode(jute::writer& w, const get_acl_request& v) { detail::encode_fields(w, v); }

void decode(jute::reader& r, get_acl_request& v) { detail::decode_fields(r, v); }

void encode(jute::writer& w, const set_acl_request& v) { detail::encode_fields(w, v); }

void decode(jute::reader& r, set_acl_request& v) { detail::decode_fields(r, v); }

void encode(jute::writer& w, const get_children_request& v) { detail::encode_fields(w, v); }

void decode(jute::reader& r, get_children_request& v) { detail::decode_fields(r, v); }

void encode(jute::writer& w, const get_children2_request& v) { detail::encode_fields(w, v); }

void decode(jute::reader& r, get_children2_request& v) { detail::decode_fields(r, v); }

void encode(jute::writer& w, const sync_request& v) { detail::encode_fields(w, v); }

void decode(jute::reader& r, sync_request& v) { detail::decode_fields(r, v); }

void encode(jute::writer& w, const check_version_request& v) { detail::encode_fields(w, v); }

void decode(jute::reader& r, check_version_request& v) { detail::decode_fields(r, v); }

void encode(jute::writer& w, const reconfig_request& v) { detail::encode_fields(w, v); }

void decode(jute::reader& r, reconfig_request& v) { detail::decode_fields(r, v); }

void encode(jute::writer& w, const auth_packet& v) { detail::encode_fields(w, v); }

void decode(jute::reader& r, auth_packet& v) { detail::decode_fields(r, v); }

void encode(jute::writer& w, const get_ephemerals_request& v) { detail::encode_fields(w, v); }

void decode(jute::reader& r, get_ephemerals_request& v) { detail::decode_fields(r, v); }

void encode(jute::writer& w, const get_all_children_number_request& v) { detail::encode_fields(w, v); }

void decode(jute::reader& r, get_all_children_number_request& v) { detail::decode_fields(r, v); }

void encode(jute::writer& w, const get_sasl_request& v) { detail::encode_fields(w, v); }

void decode(jute::reader& r, get_sasl_request& v) { detail::decode_fields(r, v); }

}  // namespace zkwire::proto
