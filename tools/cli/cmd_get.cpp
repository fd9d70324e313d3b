// zkwire get PATH

#include "base64.hpp"
#include "cli11_support.hpp"
#include "commands.hpp"
#include "errors.hpp"
#include "json.hpp"
#include "session.hpp"
#include "utf8.hpp"
#include "util.hpp"

namespace zkwire::cli {

int run_get(const command_context& context) {
  const std::string path = parse_path_only(context.args);

  session s(context.global);
  const auto result = s.read(path, [&] { return s.client().get(path); });
  if (context.global.json) {
    json record = {{"path", path}};
    if (is_valid_utf8(result.data)) record["data"] = result.data;
    record["data_base64"] = base64_encode(result.data);
    record["stat"] = stat_json(result.stat);
    print_line(json_text(record));
  } else {
    write_stdout(result.data);
  }
  return exit_ok;
}

}  // namespace zkwire::cli
