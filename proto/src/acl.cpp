#include "zkwire/proto/acl.hpp"

#include <utility>

namespace zkwire::proto {

acl_id::acl_id() = default;
acl_id::acl_id(std::string scheme_name, std::string identity)
    : scheme(std::move(scheme_name)), id(std::move(identity)) {}

acl::acl() = default;
acl::acl(std::int32_t permissions, proto::acl_id identity) : perms(permissions), id(std::move(identity)) {}
acl::acl(std::int32_t permissions, std::string scheme_name, std::string identity)
    : perms(permissions), id(std::move(scheme_name), std::move(identity)) {}

void encode(jute::writer& w, const acl_id& v) {
  w.write_ustring(v.scheme);
  w.write_ustring(v.id);
}

void decode(jute::reader& r, acl_id& v) {
  v.scheme = r.read_ustring();
  v.id = r.read_ustring();
}

void encode(jute::writer& w, const acl& v) {
  w.write_int(v.perms);
  encode(w, v.id);
}

void decode(jute::reader& r, acl& v) {
  v.perms = r.read_int();
  decode(r, v.id);
}

void write_acl_list(jute::writer& w, const std::vector<acl>& list) {
  w.write_vector(list, [](jute::writer& out, const acl& a) { encode(out, a); });
}

void read_acl_list(jute::reader& r, std::vector<acl>& list) {
  r.read_vector(list, min_acl_size, [](jute::reader& in) {
    acl a;
    decode(in, a);
    return a;
  });
}

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
