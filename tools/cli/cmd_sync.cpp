// zkwire sync PATH

#include "cli11_support.hpp"
#include "commands.hpp"
#include "errors.hpp"
#include "session.hpp"
#include "util.hpp"

namespace zkwire::cli {

int run_sync(const command_context& context) {
  const std::string path = parse_path_only(context.args);

  session s(context.global);
  s.read(path, [&] { s.client().sync(path); });
  return exit_ok;
}

}  // namespace zkwire::cli
