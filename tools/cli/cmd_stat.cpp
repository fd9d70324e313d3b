// zkwire stat PATH

#include "commands.hpp"
#include "errors.hpp"
#include "json.hpp"
#include "session.hpp"
#include "util.hpp"

namespace zkwire::cli {

int run_stat(const command_context& context) {
  const auto args = parse_command(context.args, {}, 1, 1);
  const std::string& path = args.positional[0];
  check_path(path);

  session s(context.global);
  const auto stat = s.read(path, [&] { return s.client().exists(path); });
  if (!stat) throw operation_error(proto::server_error::no_node, path);
  print_line(stat_json(*stat));
  return exit_ok;
}

}  // namespace zkwire::cli
