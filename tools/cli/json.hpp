#pragma once
// A small JSON writer for the CLI's records (one object per line). Pure functions, no shared state.

#include <cstdint>
#include <string>
#include <string_view>

#include "zkwire/proto/stat.hpp"

namespace zkwire::cli {

// True if `bytes` is well-formed UTF-8 (no overlong forms, no encoded surrogates, nothing above U+10FFFF).
bool is_valid_utf8(std::string_view bytes) noexcept;

// `text` as a JSON string literal with the quotes: '"' and '\' escaped, control characters (U+0000-U+001F and
// DEL) as \n, \t, ... or \u00XX. Bytes that are not well-formed UTF-8 become \ufffd, so the output is always
// valid JSON.
std::string json_string(std::string_view text);

// Builds one JSON object, keys in insertion order: json_object().add("a", 1).add("b", "x").str() == {"a":1,"b":"x"}.
class json_object {
 public:
  json_object& add(std::string_view key, std::string_view value);
  json_object& add(std::string_view key, const char* value) { return add(key, std::string_view(value)); }
  json_object& add(std::string_view key, std::int64_t value);
  json_object& add(std::string_view key, std::int32_t value) { return add(key, std::int64_t{value}); }
  json_object& add(std::string_view key, bool value);
  // `json` is inserted as is (a nested object or array already serialized).
  json_object& add_raw(std::string_view key, std::string_view json);
  [[nodiscard]] std::string str() const { return body_ + "}"; }

 private:
  void key(std::string_view name);
  std::string body_ = "{";
};

// A stat with the keys of docs/cli.md#stat: czxid, mzxid, pzxid, ctime, mtime, version, cversion, aversion,
// ephemeralOwner, dataLength, numChildren (integers; times in ms).
std::string stat_json(const proto::stat& s);

}  // namespace zkwire::cli
