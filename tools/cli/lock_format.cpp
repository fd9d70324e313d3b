#include "lock_format.hpp"

#include <cstdio>

#include "json.hpp"

namespace zkwire::cli {

std::string session_hex(std::int64_t session_id) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "0x%llx", static_cast<unsigned long long>(session_id));
  return buffer;
}

std::string contender_json(const recipes::contender& c) {
  json_object line;
  line.add("node", c.path);
  if (c.kind == recipes::contender_kind::foreign) {
    line.add_raw("sequence", "null");
  } else {
    line.add("sequence", c.sequence);
  }
  line.add("kind", recipes::contender_kind_name(c.kind))
      .add("session", session_hex(c.session))
      .add("ctime", c.ctime)
      .add("holder", c.holder)
      .add("data", c.data);
  return line.str();
}

}  // namespace zkwire::cli
