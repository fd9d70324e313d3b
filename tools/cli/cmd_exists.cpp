// zkwire exists PATH

#include "commands.hpp"
#include "errors.hpp"
#include "session.hpp"
#include "util.hpp"

namespace zkwire::cli {

int run_exists(const command_context& context) {
  const auto args = parse_command(context.args, {}, 1, 1);
  const std::string& path = args.positional[0];
  check_path(path);

  session s(context.global);
  const auto stat = s.read(path, [&] { return s.client().exists(path); });
  return stat ? exit_ok : exit_false;
}

}  // namespace zkwire::cli
