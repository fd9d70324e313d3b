#pragma once
// Each operation of the C API once, for both call forms: launch_* runs on the caller's thread after validation,
// starts the client operation under the client lock and hands the result, as a C return code and zkwire values, to
// the sink (ops.hpp). zoo_a* (async.cpp) and the synchronous calls (sync.cpp) differ only in their sinks.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ops.hpp"

namespace zkwire::capi {

struct create_args {
  std::string path;
  std::string data;
  zkwire::create_options options;
};
// Validates a create's arguments (path, mode, TTL, ACL pointer) into `out`; ZOK or the C client's code.
int make_create_args(const char* path, const char* value, int valuelen, const struct ACL_vector* acl, int mode,
                     int64_t ttl, create_args& out);

void launch_create(zhandle_t* zh, create_args args, sink<zkwire::create_result> out);
void launch_delete(zhandle_t* zh, std::string path, int version, sink<none> out);
// NONODE is an error here (rc ZNONODE), as in the C API; the exist watch is armed then too.
void launch_exists(zhandle_t* zh, std::string path, const watch_arg& watch, sink<zkwire::stat> out);
void launch_get(zhandle_t* zh, std::string path, const watch_arg& watch, sink<zkwire::get_result> out);
void launch_get_config(zhandle_t* zh, const watch_arg& watch, sink<zkwire::get_result> out);
void launch_reconfig(zhandle_t* zh, const char* joining, const char* leaving, const char* members, int64_t version,
                     sink<zkwire::get_result> out);
void launch_set(zhandle_t* zh, std::string path, const char* buffer, int buflen, int version, sink<zkwire::stat> out);
void launch_children(zhandle_t* zh, std::string path, const watch_arg& watch, sink<zkwire::children_result> out);
void launch_get_acl(zhandle_t* zh, std::string path, sink<zkwire::acl_result> out);
void launch_set_acl(zhandle_t* zh, std::string path, int version, std::vector<zkwire::acl> acl, sink<zkwire::stat> out);
void launch_sync(zhandle_t* zh, std::string path, sink<none> out);
// ZOK, or the C client's code for a watch removal it refuses before looking at the watches.
int check_remove_watches(zhandle_t* zh, const char* path, ZooWatcherType type, bool local);
// A watch removal as the C client does it (docs/libzookeeper.md#watches).
struct remove_args {
  std::string path;
  ZooWatcherType type = ZWATCHTYPE_ANY;
  std::optional<watcher_ref> watcher;  // zoo_remove_watches' watcher; none: every watcher of the path and type
  bool local = false;                  // the handle's watchers only, no request
  bool all = false;                    // zoo_remove_all_watches: removeWatches (else checkWatches)
};
// Starts the removal and returns ZOK, after which `out` gets the result; or returns the code the call itself
// returns without a result: ZNOWATCHER when the watcher has no such watch (nothing sent), ZCLOSING.
int launch_remove_watches(zhandle_t* zh, const remove_args& args, sink<none> out);

// Copies `text` into a caller's buffer of `size` bytes, cut to fit and always terminated (nothing for size 0).
void copy_string(const std::string& text, char* buffer, int size) noexcept;
// Copies data into a zoo_get-style buffer: `*len` in: its size, out: the bytes stored, -1 for null data (and for a
// negative size, which takes nothing).
void copy_data(const zkwire::get_result& result, char* buffer, int* len) noexcept;

}  // namespace zkwire::capi
