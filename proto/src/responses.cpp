#include "zkwire/proto/responses.hpp"

#include "record_fields.hpp"

namespace zkwire::proto {
// Each record's fields are described once, in records.hpp; encode and decode derive from them.
namespace detail {

static_assert(min_wire_size<client_info>() == min_client_info_size);

}  // namespace detail

void write_string_list(jute::writer& w, const std::vector<std::string>& list) {
  w.write_vector(list, [](jute::writer& out, const std::string& s) { out.write_ustring(s); });
}

void encode(jute::writer& w, const create_response& v) { detail::encode_fields(w, v); }

void decode(jute::reader& r, create_response& v) { detail::decode_fields(r, v); }

void encode(jute::writer& w, const create2_response& v) { detail::encode_fields(w, v); }

void decode(jute::reader& r, create2_response& v) { detail::decode_fields(r, v); }

void encode(jute::writer& w, const exists_response& v) { detail::encode_fields(w, v); }

void decode(jute::reader& r, exists_response& v) { detail::decode_fields(r, v); }

void encode(jute::writer& w, const get_data_response& v) { detail::encode_fields(w, v); }

void decode(jute::reader& r, get_data_response& v) { detail::decode_fields(r, v); }

void encode(jute::writer& w, const set_data_response& v) { detail::encode_fields(w, v); }

void decode(jute::reader& r, set_data_response& v) { detail::decode_fields(r, v); }

void encode(jute::writer& w, const get_acl_response& v) { detail::encode_fields(w, v); }

void decode(jute::reader& r, get_acl_response& v) { detail::decode_fields(r, v); }

void encode(jute::writer& w, const set_acl_response& v) { detail::encode_fields(w, v); }

void decode(jute::reader& r, set_acl_response& v) { detail::decode_fields(r, v); }

void encode(jute::writer& w, const get_children_response& v) { detail::encode_fields(w, v); }

void decode(jute::reader& r, get_children_response& v) { detail::decode_fields(r, v); }

void encode(jute::writer& w, const get_children2_response& v) { detail::encode_fields(w, v); }

void decode(jute::reader& r, get_children2_response& v) { detail::decode_fields(r, v); }

void encode(jute::writer& w, const sync_response& v) { detail::encode_fields(w, v); }

void decode(jute::reader& r, sync_response& v) { detail::decode_fields(r, v); }

void encode(jute::writer& w, const get_ephemerals_response& v) { detail::encode_fields(w, v); }

void decode(jute::reader& r, get_ephemerals_response& v) { detail::decode_fields(r, v); }

void encode(jute::writer& w, const get_all_children_number_response& v) { detail::encode_fields(w, v); }

void decode(jute::reader& r, get_all_children_number_response& v) { detail::decode_fields(r, v); }

void encode(jute::writer& w, const client_info& v) { detail::encode_fields(w, v); }

void decode(jute::reader& r, client_info& v) { detail::decode_fields(r, v); }

void encode(jute::writer& w, const who_am_i_response& v) { detail::encode_fields(w, v); }

void decode(jute::reader& r, who_am_i_response& v) { detail::decode_fields(r, v); }

void encode(jute::writer& w, const set_sasl_response& v) { detail::encode_fields(w, v); }

void decode(jute::reader& r, set_sasl_response& v) { detail::decode_fields(r, v); }

void encode(jute::writer& w, const error_response& v) { detail::encode_fields(w, v); }

void decode(jute::reader& r, error_response& v) { detail::decode_fields(r, v); }

}  // namespace zkwire::proto
