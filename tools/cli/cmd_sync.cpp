// zkwire sync PATH

#include "cli11_support.hpp"
#include "commands.hpp"
#include "errors.hpp"
#include "session.hpp"
#include "util.hpp"

namespace zkwire::cli {

int run_sync(const command_context& context) {
  std::string path;
  command_parser parser;
  parser.positional("PATH", path);
  parser.parse(context.args);
  check_path(path);

  session s(context.global);
  s.read(path, [&] { s.client().sync(path); });
  return exit_ok;
}

}  // namespace zkwire::cli
