// zkwire set [-v VERSION] PATH DATA|-

#include <array>
#include <cstdint>
#include <limits>

#include "commands.hpp"
#include "errors.hpp"
#include "json.hpp"
#include "session.hpp"
#include "util.hpp"

namespace zkwire::cli {
namespace {

constexpr std::array<option_spec, 1> specs = {{{'v', "version", true}}};

}  // namespace

int run_set(const command_context& context) {
  const auto args = parse_command(context.args, specs, 2, 2);
  std::int32_t version = any_version;
  if (const auto v = args.value("version")) {
    version = static_cast<std::int32_t>(parse_integer(*v, -1, std::numeric_limits<std::int32_t>::max(), "-v"));
  }
  const std::string& path = args.positional[0];
  check_path(path);
  const std::string data = data_argument(args.positional[1]);

  session s(context.global);
  const auto stat = s.write(path, [&] { return s.client().set(path, data, version); });
  if (context.global.json) print_line(stat_json(stat));
  return exit_ok;
}

}  // namespace zkwire::cli
