// zkwire rm [-v VERSION] [-r] PATH

#include <cstdint>
#include <limits>
#include <vector>

#include "cli11_support.hpp"
#include "commands.hpp"
#include "errors.hpp"
#include "session.hpp"
#include "util.hpp"
#include "zkwire/proto/error.hpp"
#include "zkwire/proto/path.hpp"

namespace zkwire::cli {
namespace {

// Children appearing while we delete make the delete fail with NOTEMPTY; we list and try again this often.
constexpr int max_not_empty_retries = 10;

// Deletes `path` and everything below it, depth first. Nodes vanishing meanwhile are fine; `version` applies to
// `path` only. `top` says whether `path` is the node the user named (its NONODE is an error).
void remove_tree(session& s, const std::string& path, std::int32_t version, bool top) {
  for (int attempt = 0;; ++attempt) {
    std::vector<std::string> children;
    try {
      children = s.read(path, [&] { return s.client().get_children(path); }).children;
    } catch (const operation_error& e) {
      if (e.code() == proto::server_error::no_node && !top) return;
      throw;
    }
    for (const auto& name : children) remove_tree(s, proto::child_path(path, name), any_version, false);
    try {
      s.write(path, [&] { s.client().remove(path, version); });
      return;
    } catch (const operation_error& e) {
      if (e.code() == proto::server_error::no_node && (!top || attempt > 0)) return;
      if (e.code() != proto::server_error::not_empty || attempt == max_not_empty_retries) throw;
    }
  }
}

}  // namespace

int run_rm(const command_context& context) {
  std::int32_t version = any_version;
  bool recursive = false;
  std::string path;
  command_parser parser;
  parser.integer("-v,--version", version, -1, std::numeric_limits<std::int32_t>::max());
  parser.flag("-r,--recursive", recursive);
  parser.positional("PATH", path);
  parser.parse(context.args);
  check_path(path);
  if (path == "/") throw usage_error("refusing to delete the root");

  session s(context.global);
  if (recursive) {
    if (version != any_version) {
      // Check VERSION before deleting anything below PATH.
      const auto stat = s.read(path, [&] { return s.client().exists(path); });
      if (!stat) throw operation_error(proto::server_error::no_node, path);
      if (stat->version != version) throw operation_error(proto::server_error::bad_version, path);
    }
    remove_tree(s, path, version, true);
  } else {
    s.write(path, [&] { s.client().remove(path, version); });
  }
  return exit_ok;
}

}  // namespace zkwire::cli
