// zkwire set [-v VERSION] PATH DATA|-

#include <cstdint>
#include <limits>

#include "cli11_support.hpp"
#include "commands.hpp"
#include "errors.hpp"
#include "json.hpp"
#include "session.hpp"
#include "util.hpp"

namespace zkwire::cli {
int run_set(const command_context& context) {
  std::int32_t version = any_version;
  std::string path;
  std::string data_word;
  command_parser parser;
  parser.integer("-v,--version", version, -1, std::numeric_limits<std::int32_t>::max());
  parser.positional("PATH", path);
  parser.positional("DATA", data_word);
  parser.parse(context.args);
  check_path(path);
  const std::string data = data_argument(data_word);

  session s(context.global);
  const auto stat = s.write(path, [&] { return s.client().set(path, data, version); });
  if (context.global.json) print_line(json_text(stat_json(stat)));
  return exit_ok;
}

}  // namespace zkwire::cli
