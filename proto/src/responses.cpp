#include "zkwire/proto/responses.hpp"

#include "record_fields.hpp"

namespace zkwire::proto {
namespace detail {

// Each record's fields in wire order (record_fields.hpp derives encode and decode from them).
template <>
inline constexpr auto record_fields<create_response> = std::tuple{&create_response::path};
template <>
inline constexpr auto record_fields<create2_response> = std::tuple{&create2_response::path, &create2_response::stat};
template <>
inline constexpr auto record_fields<exists_response> = std::tuple{&exists_response::stat};
template <>
inline constexpr auto record_fields<get_data_response> = std::tuple{&get_data_response::data, &get_data_response::stat};
template <>
inline constexpr auto record_fields<set_data_response> = std::tuple{&set_data_response::stat};
template <>
inline constexpr auto record_fields<get_acl_response> = std::tuple{&get_acl_response::acl, &get_acl_response::stat};
template <>
inline constexpr auto record_fields<set_acl_response> = std::tuple{&set_acl_response::stat};
template <>
inline constexpr auto record_fields<get_children_response> = std::tuple{&get_children_response::children};
template <>
inline constexpr auto record_fields<get_children2_response> =
    std::tuple{&get_children2_response::children, &get_children2_response::stat};
template <>
inline constexpr auto record_fields<sync_response> = std::tuple{&sync_response::path};
template <>
inline constexpr auto record_fields<get_ephemerals_response> = std::tuple{&get_ephemerals_response::ephemerals};
template <>
inline constexpr auto record_fields<get_all_children_number_response> =
    std::tuple{&get_all_children_number_response::total_number};
template <>
inline constexpr auto record_fields<client_info> = std::tuple{&client_info::auth_scheme, &client_info::user};
template <>
inline constexpr auto record_fields<who_am_i_response> = std::tuple{&who_am_i_response::client_info};
template <>
inline constexpr auto record_fields<set_sasl_response> = std::tuple{&set_sasl_response::token};
template <>
inline constexpr auto record_fields<error_response> = std::tuple{&error_response::err};

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
