#include "zkwire/proto/requests.hpp"

namespace zkwire::proto {
namespace {

// Buffers the client never sends null; a null from a peer reads as empty (jute encodes buffers and ustrings alike).
std::string read_bytes(jute::reader& r) { return std::string(r.read_buffer_view()); }

}  // namespace

void encode(jute::writer& w, const create_request& v) {
  w.write_ustring(v.path);
  w.write_buffer(v.data);
  write_acl_list(w, v.acl);
  w.write_int(static_cast<std::int32_t>(v.flags));
}

void decode(jute::reader& r, create_request& v) {
  v.path = r.read_ustring();
  v.data = r.read_buffer();
  read_acl_list(r, v.acl);
  v.flags = static_cast<create_mode>(r.read_int());
}

void encode(jute::writer& w, const create_ttl_request& v) {
  w.write_ustring(v.path);
  w.write_buffer(v.data);
  write_acl_list(w, v.acl);
  w.write_int(static_cast<std::int32_t>(v.flags));
  w.write_long(v.ttl);
}

void decode(jute::reader& r, create_ttl_request& v) {
  v.path = r.read_ustring();
  v.data = r.read_buffer();
  read_acl_list(r, v.acl);
  v.flags = static_cast<create_mode>(r.read_int());
  v.ttl = r.read_long();
}

void encode(jute::writer& w, const delete_request& v) {
  w.write_ustring(v.path);
  w.write_int(v.version);
}

void decode(jute::reader& r, delete_request& v) {
  v.path = r.read_ustring();
  v.version = r.read_int();
}

void encode(jute::writer& w, const exists_request& v) {
  w.write_ustring(v.path);
  w.write_bool(v.watch);
}

void decode(jute::reader& r, exists_request& v) {
  v.path = r.read_ustring();
  v.watch = r.read_bool();
}

void encode(jute::writer& w, const get_data_request& v) {
  w.write_ustring(v.path);
  w.write_bool(v.watch);
}

void decode(jute::reader& r, get_data_request& v) {
  v.path = r.read_ustring();
  v.watch = r.read_bool();
}

void encode(jute::writer& w, const set_data_request& v) {
  w.write_ustring(v.path);
  w.write_buffer(v.data);
  w.write_int(v.version);
}

void decode(jute::reader& r, set_data_request& v) {
  v.path = r.read_ustring();
  v.data = r.read_buffer();
  v.version = r.read_int();
}

void encode(jute::writer& w, const get_acl_request& v) { w.write_ustring(v.path); }

void decode(jute::reader& r, get_acl_request& v) { v.path = r.read_ustring(); }

void encode(jute::writer& w, const set_acl_request& v) {
  w.write_ustring(v.path);
  write_acl_list(w, v.acl);
  w.write_int(v.version);
}

void decode(jute::reader& r, set_acl_request& v) {
  v.path = r.read_ustring();
  read_acl_list(r, v.acl);
  v.version = r.read_int();
}

void encode(jute::writer& w, const get_children_request& v) {
  w.write_ustring(v.path);
  w.write_bool(v.watch);
}

void decode(jute::reader& r, get_children_request& v) {
  v.path = r.read_ustring();
  v.watch = r.read_bool();
}

void encode(jute::writer& w, const get_children2_request& v) {
  w.write_ustring(v.path);
  w.write_bool(v.watch);
}

void decode(jute::reader& r, get_children2_request& v) {
  v.path = r.read_ustring();
  v.watch = r.read_bool();
}

void encode(jute::writer& w, const sync_request& v) { w.write_ustring(v.path); }

void decode(jute::reader& r, sync_request& v) { v.path = r.read_ustring(); }

void encode(jute::writer& w, const check_version_request& v) {
  w.write_ustring(v.path);
  w.write_int(v.version);
}

void decode(jute::reader& r, check_version_request& v) {
  v.path = r.read_ustring();
  v.version = r.read_int();
}

// A null ustring has the same encoding as a null buffer (length -1), so the buffer calls carry the nulls.
void encode(jute::writer& w, const reconfig_request& v) {
  w.write_buffer(v.joining_servers);
  w.write_buffer(v.leaving_servers);
  w.write_buffer(v.new_members);
  w.write_long(v.cur_config_id);
}

void decode(jute::reader& r, reconfig_request& v) {
  v.joining_servers = r.read_buffer();
  v.leaving_servers = r.read_buffer();
  v.new_members = r.read_buffer();
  v.cur_config_id = r.read_long();
}

void encode(jute::writer& w, const auth_packet& v) {
  w.write_int(v.type);
  w.write_ustring(v.scheme);
  w.write_buffer(std::string_view(v.auth));
}

void decode(jute::reader& r, auth_packet& v) {
  v.type = r.read_int();
  v.scheme = r.read_ustring();
  v.auth = read_bytes(r);
}

void encode(jute::writer& w, const get_ephemerals_request& v) { w.write_ustring(v.prefix_path); }

void decode(jute::reader& r, get_ephemerals_request& v) { v.prefix_path = r.read_ustring(); }

void encode(jute::writer& w, const get_all_children_number_request& v) { w.write_ustring(v.path); }

void decode(jute::reader& r, get_all_children_number_request& v) { v.path = r.read_ustring(); }

void encode(jute::writer& w, const get_sasl_request& v) { w.write_buffer(std::string_view(v.token)); }

void decode(jute::reader& r, get_sasl_request& v) { v.token = read_bytes(r); }

}  // namespace zkwire::proto
