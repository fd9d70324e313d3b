#include "lock_format.hpp"

#include <cstdio>

#include "json.hpp"

namespace zkwire::cli {

std::string session_hex(std::int64_t session_id) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "0x%llx", static_cast<unsigned long long>(session_id));
  return buffer;
}

std::string contender_json(const recipes::contender& c, const std::optional<member_listing>& members) {
  json line = {{"node", c.path}};
  if (c.kind == recipes::contender_kind::foreign) {
    line["sequence"] = nullptr;
  } else {
    line["sequence"] = c.sequence;
  }
  line["kind"] = recipes::contender_kind_name(c.kind);
  line["session"] = session_hex(c.session);
  line["ctime"] = c.ctime;
  line["holder"] = c.holder;
  line["data"] = c.data;
  if (members) {
    line["listed_by"] = members->listed_by;
    line["answered"] = members->answered;
    line["members"] = members->members;
    line["diverged"] = members->diverged;
  }
  return json_text(line);
}

}  // namespace zkwire::cli
