#include "zkwire/proto/headers.hpp"

#include "record_fields.hpp"

namespace zkwire::proto {
namespace detail {

// Each record's fields in wire order (record_fields.hpp derives encode and decode from them).
template <>
inline constexpr auto record_fields<request_header> = std::tuple{&request_header::xid, &request_header::type};
template <>
inline constexpr auto record_fields<reply_header> =
    std::tuple{&reply_header::xid, &reply_header::zxid, &reply_header::err};
template <>
inline constexpr auto record_fields<multi_header> =
    std::tuple{&multi_header::type, &multi_header::done, &multi_header::err};

}  // namespace detail

void encode(jute::writer& w, const request_header& v) { detail::encode_fields(w, v); }

void decode(jute::reader& r, request_header& v) { detail::decode_fields(r, v); }

void encode(jute::writer& w, const reply_header& v) { detail::encode_fields(w, v); }

void decode(jute::reader& r, reply_header& v) { detail::decode_fields(r, v); }

void encode(jute::writer& w, const multi_header& v) { detail::encode_fields(w, v); }

void decode(jute::reader& r, multi_header& v) { detail::decode_fields(r, v); }

}  // namespace zkwire::proto
