#include "zkwire/proto/acl.hpp"

#include <utility>

#include "record_fields.hpp"

namespace zkwire::proto {

acl_id::acl_id() = default;
acl_id::acl_id(std::string scheme_name, std::string identity)
    : scheme(std::move(scheme_name)), id(std::move(identity)) {}

acl::acl() = default;
acl::acl(std::int32_t permissions, proto::acl_id identity) : perms(permissions), id(std::move(identity)) {}
acl::acl(std::int32_t permissions, std::string scheme_name, std::string identity)
    : perms(permissions), id(std::move(scheme_name), std::move(identity)) {}

// The fields are described in records.hpp; encode and decode derive from them. A list's count is bounded by the
// smallest entry before anything is allocated.
static_assert(detail::min_wire_size<acl_id>() == min_id_size);
static_assert(detail::min_wire_size<acl>() == min_acl_size);

void encode(jute::writer& w, const acl_id& v) { detail::encode_fields(w, v); }

void decode(jute::reader& r, acl_id& v) { detail::decode_fields(r, v); }

void encode(jute::writer& w, const acl& v) { detail::encode_fields(w, v); }

void decode(jute::reader& r, acl& v) { detail::decode_fields(r, v); }

void write_acl_list(jute::writer& w, const std::vector<acl>& list) { detail::write_field(w, list); }

void read_acl_list(jute::reader& r, std::vector<acl>& list) { detail::read_field(r, list); }

const std::vector<acl>& open_acl_unsafe() {
  static const std::vector<acl> list{acl{perms::all, acl_id{"world", "anyone"}}};
  return list;
}

const std::vector<acl>& read_acl_unsafe() {
  static const std::vector<acl> list{acl{perms::read, acl_id{"world", "anyone"}}};
  return list;
}

const std::vector<acl>& creator_all_acl() {
  static const std::vector<acl> list{acl{perms::all, acl_id{"auth", ""}}};
  return list;
}

}  // namespace zkwire::proto
