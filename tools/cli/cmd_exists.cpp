// zkwire exists PATH

#include "cli11_support.hpp"
#include "commands.hpp"
#include "errors.hpp"
#include "session.hpp"
#include "util.hpp"

namespace zkwire::cli {

int run_exists(const command_context& context) {
  std::string path;
  command_parser parser;
  parser.positional("PATH", path);
  parser.parse(context.args);
  check_path(path);

  session s(context.global);
  const auto stat = s.read(path, [&] { return s.client().exists(path); });
  return stat ? exit_ok : exit_false;
}

}  // namespace zkwire::cli
