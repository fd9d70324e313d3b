// zkwire get PATH

#include "base64.hpp"
#include "commands.hpp"
#include "errors.hpp"
#include "json.hpp"
#include "session.hpp"
#include "util.hpp"

namespace zkwire::cli {

int run_get(const command_context& context) {
  const auto args = parse_command(context.args, {}, 1, 1);
  const std::string& path = args.positional[0];
  check_path(path);

  session s(context.global);
  const auto result = s.read(path, [&] { return s.client().get(path); });
  if (context.global.json) {
    json_object record;
    record.add("path", path);
    if (is_valid_utf8(result.data)) record.add("data", result.data);
    record.add("data_base64", base64_encode(result.data));
    record.add_raw("stat", stat_json(result.stat));
    print_line(record.str());
  } else {
    write_stdout(result.data);
  }
  return exit_ok;
}

}  // namespace zkwire::cli
