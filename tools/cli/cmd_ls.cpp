// zkwire ls [-R] PATH

#include <algorithm>
#include <array>
#include <optional>
#include <vector>

#include "commands.hpp"
#include "errors.hpp"
#include "json.hpp"
#include "session.hpp"
#include "util.hpp"
#include "zkwire/proto/error.hpp"

namespace zkwire::cli {
namespace {

constexpr std::array<option_spec, 1> specs = {{{'R', "recursive", false}}};

std::vector<std::string> sorted_children(session& s, const std::string& path) {
  auto children = s.read(path, [&] { return s.client().get_children(path); }).children;
  std::sort(children.begin(), children.end());
  return children;
}

void print_path(const command_context& context, const std::string& path) {
  print_line(context.global.json ? json_object().add("path", path).str() : path);
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
    const std::string child = child_path(path, name);
    print_path(context, child);
    print_subtree(context, s, child);
  }
}

}  // namespace

int run_ls(const command_context& context) {
  const auto args = parse_command(context.args, specs, 1, 1);
  const std::string& path = args.positional[0];
  check_path(path);

  session s(context.global);
  if (args.has("recursive")) {
    // PATH itself must exist (NONODE, exit 1); below it, vanishing nodes are skipped.
    const auto children = sorted_children(s, path);
    print_path(context, path);
    for (const auto& name : children) {
      const std::string child = child_path(path, name);
      print_path(context, child);
      print_subtree(context, s, child);
    }
    return exit_ok;
  }
  for (const auto& name : sorted_children(s, path)) {
    if (context.global.json) {
      print_line(json_object().add("name", name).add("path", child_path(path, name)).str());
    } else {
      print_line(name);
    }
  }
  return exit_ok;
}

}  // namespace zkwire::cli
