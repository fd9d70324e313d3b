#include "zkwire/proto/headers.hpp"

namespace zkwire::proto {

void encode(jute::writer& w, const request_header& h) {
  w.write_int(h.xid);
  w.write_int(static_cast<std::int32_t>(h.type));
}

void decode(jute::reader& r, request_header& h) {
  h.xid = r.read_int();
  h.type = static_cast<op_code>(r.read_int());
}

void encode(jute::writer& w, const reply_header& h) {
  w.write_int(h.xid);
  w.write_long(h.zxid);
  w.write_int(h.err);
}

void decode(jute::reader& r, reply_header& h) {
  h.xid = r.read_int();
  h.zxid = r.read_long();
  h.err = r.read_int();
}

void encode(jute::writer& w, const multi_header& h) {
  w.write_int(static_cast<std::int32_t>(h.type));
  w.write_bool(h.done);
  w.write_int(h.err);
}

void decode(jute::reader& r, multi_header& h) {
  h.type = static_cast<op_code>(r.read_int());
  h.done = r.read_bool();
  h.err = r.read_int();
}

}  // namespace zkwire::proto
