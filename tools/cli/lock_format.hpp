#pragma once
// How the lock commands print what they know about lock nodes. Pure functions.

#include <cstdint>
#include <string>

#include "zkwire/recipes/contenders.hpp"

namespace zkwire::cli {

// A session id as ZooKeeper's own logs print it: "0x" and lower-case hex digits without padding ("0x0" for none).
std::string session_hex(std::int64_t session_id);

// One line of `zkwire locks`: {"node","sequence","kind","session","ctime","holder","data"} (docs/cli.md#locks), with
// "node" the full path (what `zkwire revoke` and `zkwire rm` take) and "sequence" null for a foreign sibling.
std::string contender_json(const recipes::contender& c);

}  // namespace zkwire::cli
