#include "zkwire/proto/stat.hpp"

namespace zkwire::proto {

void encode(jute::writer& w, const stat& s) {
  w.write_long(s.czxid);
  w.write_long(s.mzxid);
  w.write_long(s.ctime);
  w.write_long(s.mtime);
  w.write_int(s.version);
  w.write_int(s.cversion);
  w.write_int(s.aversion);
  w.write_long(s.ephemeral_owner);
  w.write_int(s.data_length);
  w.write_int(s.num_children);
  w.write_long(s.pzxid);
}

void decode(jute::reader& r, stat& s) {
  s.czxid = r.read_long();
  s.mzxid = r.read_long();
  s.ctime = r.read_long();
  s.mtime = r.read_long();
  s.version = r.read_int();
  s.cversion = r.read_int();
  s.aversion = r.read_int();
  s.ephemeral_owner = r.read_long();
  s.data_length = r.read_int();
  s.num_children = r.read_int();
  s.pzxid = r.read_long();
}

}  // namespace zkwire::proto
