#include "zkwire/proto/requests.hpp"

#include "record_fields.hpp"

namespace zkwire::proto {
namespace detail {

// Each record's fields in wire order (record_fields.hpp derives encode and decode from them).
template <>
inline constexpr auto record_fields<create_request> =
    std::tuple{&create_request::path, &create_request::data, &create_request::acl, &create_request::flags};
template <>
inline constexpr auto record_fields<create_ttl_request> =
    std::tuple{&create_ttl_request::path, &create_ttl_request::data, &create_ttl_request::acl,
               &create_ttl_request::flags, &create_ttl_request::ttl};
template <>
inline constexpr auto record_fields<delete_request> = std::tuple{&delete_request::path, &delete_request::version};
template <>
inline constexpr auto record_fields<exists_request> = std::tuple{&exists_request::path, &exists_request::watch};
template <>
inline constexpr auto record_fields<get_data_request> = std::tuple{&get_data_request::path, &get_data_request::watch};
template <>
inline constexpr auto record_fields<set_data_request> =
    std::tuple{&set_data_request::path, &set_data_request::data, &set_data_request::version};
template <>
inline constexpr auto record_fields<get_acl_request> = std::tuple{&get_acl_request::path};
template <>
inline constexpr auto record_fields<set_acl_request> =
    std::tuple{&set_acl_request::path, &set_acl_request::acl, &set_acl_request::version};
template <>
inline constexpr auto record_fields<get_children_request> =
    std::tuple{&get_children_request::path, &get_children_request::watch};
template <>
inline constexpr auto record_fields<get_children2_request> =
    std::tuple{&get_children2_request::path, &get_children2_request::watch};
template <>
inline constexpr auto record_fields<sync_request> = std::tuple{&sync_request::path};
template <>
inline constexpr auto record_fields<check_version_request> =
    std::tuple{&check_version_request::path, &check_version_request::version};
template <>
inline constexpr auto record_fields<reconfig_request> =
    std::tuple{&reconfig_request::joining_servers, &reconfig_request::leaving_servers, &reconfig_request::new_members,
               &reconfig_request::cur_config_id};
template <>
inline constexpr auto record_fields<auth_packet> =
    std::tuple{&auth_packet::type, &auth_packet::scheme, &auth_packet::auth};
template <>
inline constexpr auto record_fields<get_ephemerals_request> = std::tuple{&get_ephemerals_request::prefix_path};
template <>
inline constexpr auto record_fields<get_all_children_number_request> =
    std::tuple{&get_all_children_number_request::path};
template <>
inline constexpr auto record_fields<get_sasl_request> = std::tuple{&get_sasl_request::token};

}  // namespace detail

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
