// zkwire ls [-R] PATH

#include <algorithm>
#include <optional>
#include <vector>

#include "cli11_support.hpp"
#include "commands.hpp"
#include "errors.hpp"
#include "json.hpp"
#include "session.hpp"
#include "util.hpp"
#include "zkwire/proto/error.hpp"
#include "zkwire/proto/path.hpp"

namespace zkwire::cli {
namespace {

std::vector<std::string> sorted_children(session& s, const std::string& path) {
  auto children = s.read(path, [&] { return s.client().get_children(path); }).children;
  std::sort(children.begin(), children.end());
  return children;
}

void print_path(const command_context& context, const std::string& path) {
  print_line(context.global.json ? json_text({{"path", path}}) : path);
}

// Prints `path`'s descendants depth first, siblings sorted. A node deleted meanwhile is skipped.
void print_subtree(const command_context& context, session& s, const std::string& path) {
  std::vector<std::string> children;
  try {
    children = sorted_children(s, path);
  } catch (const operation_error& e) {
    if (e.code() == proto::server_error::no_node) return;
    throw;
  }
  for (const auto& name : children) {
    const std::string child = proto::child_path(path, name);
    print_path(context, child);
    print_subtree(context, s, child);
  }
}

}  // namespace

int run_ls(const command_context& context) {
  bool recursive = false;
  std::string path;
  command_parser parser;
  parser.flag("-R,--recursive", recursive);
  parser.positional("PATH", path);
  parser.parse(context.args);
  check_path(path);

  session s(context.global);
  if (recursive) {
    // PATH itself must exist (NONODE, exit 1); below it, vanishing nodes are skipped.
    const auto children = sorted_children(s, path);
    print_path(context, path);
    for (const auto& name : children) {
      const std::string child = proto::child_path(path, name);
      print_path(context, child);
      print_subtree(context, s, child);
    }
    return exit_ok;
  }
  for (const auto& name : sorted_children(s, path)) {
    if (context.global.json) {
      print_line(json_text({{"name", name}, {"path", proto::child_path(path, name)}}));
    } else {
      print_line(name);
    }
  }
  return exit_ok;
}

}  // namespace zkwire::cli
