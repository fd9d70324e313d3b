// zkwire stat PATH

#include "cli11_support.hpp"
#include "commands.hpp"
#include "errors.hpp"
#include "json.hpp"
#include "session.hpp"
#include "util.hpp"

namespace zkwire::cli {

int run_stat(const command_context& context) {
  std::string path;
  command_parser parser;
  parser.positional("PATH", path);
  parser.parse(context.args);
  check_path(path);

  session s(context.global);
  const auto stat = s.read(path, [&] { return s.client().exists(path); });
  if (!stat) throw operation_error(proto::server_error::no_node, path);
  print_line(json_text(stat_json(*stat)));
  return exit_ok;
}

}  // namespace zkwire::cli
