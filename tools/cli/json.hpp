#pragma once
// The CLI's JSON records, one object per line, with nlohmann-json: `json` keeps keys in insertion order.

#include <nlohmann/json.hpp>
#include <string>

#include "zkwire/proto/stat.hpp"

namespace zkwire::cli {

using json = nlohmann::ordered_json;

// `record` as one line of compact JSON (no spaces, no newline): {"name":"x","path":"/a/x"}. Characters JSON must
// escape are escaped ("\n", "\u0001"), other UTF-8 is written as is, and bytes that are not well-formed UTF-8
// become U+FFFD, so any bytes make valid JSON and nothing throws.
inline std::string json_text(const json& record) { return record.dump(-1, ' ', false, json::error_handler_t::replace); }

// A stat with the keys of docs/cli.md#stat: czxid, mzxid, pzxid, ctime, mtime, version, cversion, aversion,
// ephemeralOwner, dataLength, numChildren, in this order (integers; times in ms).
inline json stat_json(const proto::stat& s) {
  return {{"czxid", s.czxid},
          {"mzxid", s.mzxid},
          {"pzxid", s.pzxid},
          {"ctime", s.ctime},
          {"mtime", s.mtime},
          {"version", s.version},
          {"cversion", s.cversion},
          {"aversion", s.aversion},
          {"ephemeralOwner", s.ephemeral_owner},
          {"dataLength", s.data_length},
          {"numChildren", s.num_children}};
}

}  // namespace zkwire::cli
