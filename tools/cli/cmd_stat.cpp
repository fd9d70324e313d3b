// zkwire stat PATH

#include "cli11_support.hpp"
#include "commands.hpp"
#include "errors.hpp"
#include "json.hpp"
#include "session.hpp"
#include "util.hpp"

namespace zkwire::cli {

int run_stat(const command_context& context) {
  const std::string path = parse_path_only(context.args);

  session s(context.global);
  const auto stat = s.read(path, [&] { return s.client().exists(path); });
  if (!stat) throw operation_error(proto::server_error::no_node, path);
  print_line(json_text(stat_json(*stat)));
  return exit_ok;
}

}  // namespace zkwire::cli
