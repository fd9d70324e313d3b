#include "zkwire/proto/responses.hpp"

namespace zkwire::proto {

void write_string_list(jute::writer& w, const std::vector<std::string>& list) {
  w.write_vector(list, [](jute::writer& out, const std::string& s) { out.write_ustring(s); });
}

void encode(jute::writer& w, const create_response& v) { w.write_ustring(v.path); }

void decode(jute::reader& r, create_response& v) { v.path = r.read_ustring(); }

void encode(jute::writer& w, const create2_response& v) {
  w.write_ustring(v.path);
  encode(w, v.stat);
}

void decode(jute::reader& r, create2_response& v) {
  v.path = r.read_ustring();
  decode(r, v.stat);
}

void encode(jute::writer& w, const exists_response& v) { encode(w, v.stat); }

void decode(jute::reader& r, exists_response& v) { decode(r, v.stat); }

void encode(jute::writer& w, const get_data_response& v) {
  w.write_buffer(v.data);
  encode(w, v.stat);
}

void decode(jute::reader& r, get_data_response& v) {
  v.data = r.read_buffer();
  decode(r, v.stat);
}

void encode(jute::writer& w, const set_data_response& v) { encode(w, v.stat); }

void decode(jute::reader& r, set_data_response& v) { decode(r, v.stat); }

void encode(jute::writer& w, const get_acl_response& v) {
  write_acl_list(w, v.acl);
  encode(w, v.stat);
}

void decode(jute::reader& r, get_acl_response& v) {
  read_acl_list(r, v.acl);
  decode(r, v.stat);
}

void encode(jute::writer& w, const set_acl_response& v) { encode(w, v.stat); }

void decode(jute::reader& r, set_acl_response& v) { decode(r, v.stat); }

void encode(jute::writer& w, const get_children_response& v) { write_string_list(w, v.children); }

void decode(jute::reader& r, get_children_response& v) { v.children = r.read_ustring_vector(); }

void encode(jute::writer& w, const get_children2_response& v) {
  write_string_list(w, v.children);
  encode(w, v.stat);
}

void decode(jute::reader& r, get_children2_response& v) {
  v.children = r.read_ustring_vector();
  decode(r, v.stat);
}

void encode(jute::writer& w, const sync_response& v) { w.write_ustring(v.path); }

void decode(jute::reader& r, sync_response& v) { v.path = r.read_ustring(); }

void encode(jute::writer& w, const get_ephemerals_response& v) { write_string_list(w, v.ephemerals); }

void decode(jute::reader& r, get_ephemerals_response& v) { v.ephemerals = r.read_ustring_vector(); }

void encode(jute::writer& w, const get_all_children_number_response& v) { w.write_int(v.total_number); }

void decode(jute::reader& r, get_all_children_number_response& v) { v.total_number = r.read_int(); }

void encode(jute::writer& w, const client_info& v) {
  w.write_ustring(v.auth_scheme);
  w.write_ustring(v.user);
}

void decode(jute::reader& r, client_info& v) {
  v.auth_scheme = r.read_ustring();
  v.user = r.read_ustring();
}

void encode(jute::writer& w, const who_am_i_response& v) {
  w.write_vector(v.client_info, [](jute::writer& out, const client_info& c) { encode(out, c); });
}

void decode(jute::reader& r, who_am_i_response& v) {
  r.read_vector(v.client_info, min_client_info_size, [](jute::reader& in) {
    client_info c;
    decode(in, c);
    return c;
  });
}

void encode(jute::writer& w, const set_sasl_response& v) { w.write_buffer(v.token); }

void decode(jute::reader& r, set_sasl_response& v) { v.token = r.read_buffer(); }

void encode(jute::writer& w, const error_response& v) { w.write_int(v.err); }

void decode(jute::reader& r, error_response& v) { v.err = r.read_int(); }

}  // namespace zkwire::proto
