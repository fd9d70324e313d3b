#pragma once
// How the lock commands print what they know about lock nodes. Pure functions.

#include <cstdint>
#include <optional>
#include <string>

#include "zkwire/recipes/contenders.hpp"

namespace zkwire::cli {

// A session id as ZooKeeper's own logs print it: "0x" and lower-case hex digits without padding ("0x0" for none).
std::string session_hex(std::int64_t session_id);

// With `zkwire locks --check-members`: how many members list the node after a sync, of those that answered and of
// all, and whether a majority does not (recipes::find_diverged).
struct member_listing {
  std::size_t listed_by = 0;
  std::size_t answered = 0;
  std::size_t members = 0;
  bool diverged = false;
};

// One line of `zkwire locks`: {"node","sequence","kind","session","ctime","holder","data"} (docs/cli.md#locks), with
// "node" the full path (what `zkwire revoke` and `zkwire rm` take) and "sequence" null for a foreign sibling; with
// `members`, also "listed_by", "answered", "members" and "diverged".
std::string contender_json(const recipes::contender& c, const std::optional<member_listing>& members = std::nullopt);

}  // namespace zkwire::cli
