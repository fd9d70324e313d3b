#include "zkwire/proto/stat.hpp"

#include "record_fields.hpp"

namespace zkwire::proto {
namespace detail {

// Each record's fields in wire order (record_fields.hpp derives encode and decode from them).
template <>
inline constexpr auto record_fields<stat> = std::tuple{
    &stat::czxid,    &stat::mzxid,           &stat::ctime,       &stat::mtime,        &stat::version, &stat::cversion,
    &stat::aversion, &stat::ephemeral_owner, &stat::data_length, &stat::num_children, &stat::pzxid};

}  // namespace detail

void encode(jute::writer& w, const stat& v) { detail::encode_fields(w, v); }

void decode(jute::reader& r, stat& v) { detail::decode_fields(r, v); }

}  // namespace zkwire::proto
