// zkwire sync PATH

#include "commands.hpp"
#include "errors.hpp"
#include "session.hpp"
#include "util.hpp"

namespace zkwire::cli {

int run_sync(const command_context& context) {
  const auto args = parse_command(context.args, {}, 1, 1);
  const std::string& path = args.positional[0];
  check_path(path);

  session s(context.global);
  s.read(path, [&] { s.client().sync(path); });
  return exit_ok;
}

}  // namespace zkwire::cli
