// zkwire exists PATH

#include "cli11_support.hpp"
#include "commands.hpp"
#include "errors.hpp"
#include "session.hpp"
#include "util.hpp"

namespace zkwire::cli {

int run_exists(const command_context& context) {
  const std::string path = parse_path_only(context.args);

  session s(context.global);
  const auto stat = s.read(path, [&] { return s.client().exists(path); });
  return stat ? exit_ok : exit_false;
}

}  // namespace zkwire::cli
