// zkwire create [-e] [-s] [-c] [--ttl MS] [-p] PATH [DATA|-]

#include <cstdint>
#include <optional>

#include "cli11_support.hpp"
#include "commands.hpp"
#include "errors.hpp"
#include "json.hpp"
#include "session.hpp"
#include "util.hpp"
#include "zkwire/proto/error.hpp"
#include "zkwire/proto/path.hpp"

namespace zkwire::cli {
namespace {

struct create_arguments {
  bool ephemeral = false;
  bool sequential = false;
  bool container = false;
  bool parents = false;
  std::optional<std::int64_t> ttl;
  std::string path;
  std::optional<std::string> data;
};

create_arguments parse_arguments(const command_context& context) {
  create_arguments a;
  command_parser parser;
  parser.flag("-e,--ephemeral", a.ephemeral);
  parser.flag("-s,--sequential", a.sequential);
  parser.flag("-c,--container", a.container);
  parser.integer("--ttl", a.ttl, proto::min_ttl_ms, proto::max_ttl_ms);
  parser.flag("-p,--parents", a.parents);
  parser.positional("PATH", a.path);
  parser.positional("DATA", a.data);
  parser.parse(context.args);
  return a;
}

create_options options_from(const create_arguments& a) {
  create_options options;
  if (a.ttl) {
    if (a.ephemeral || a.container) throw usage_error("--ttl cannot be combined with -e or -c");
    options.ttl = *a.ttl;
    options.mode = a.sequential ? create_mode::persistent_sequential_with_ttl : create_mode::persistent_with_ttl;
  } else if (a.container) {
    if (a.ephemeral || a.sequential) throw usage_error("-c cannot be combined with -e or -s");
    options.mode = create_mode::container;
  } else if (a.ephemeral) {
    options.mode = a.sequential ? create_mode::ephemeral_sequential : create_mode::ephemeral;
  } else {
    options.mode = a.sequential ? create_mode::persistent_sequential : create_mode::persistent;
  }
  return options;
}

// Creates every missing ancestor of `path` (not `path` itself) as a persistent node, top down. A node that already
// exists, or appears meanwhile, is fine.
void create_parents(session& s, const std::string& path) {
  const std::string parent(proto::parent_of(path));
  if (parent.size() <= 1) return;  // under the root, or the root itself
  for (std::size_t slash = parent.find('/', 1);; slash = parent.find('/', slash + 1)) {
    const std::string ancestor = slash == std::string::npos ? parent : parent.substr(0, slash);
    try {
      s.write(ancestor, [&] { return s.client().create(ancestor, ""); });
    } catch (const operation_error& e) {
      if (e.code() != proto::server_error::node_exists) throw;
    }
    if (slash == std::string::npos) break;
  }
}

}  // namespace

int run_create(const command_context& context) {
  const auto args = parse_arguments(context);
  const auto options = options_from(args);
  const std::string& path = args.path;
  check_path(path, proto::is_sequential(options.mode));
  const std::string data = args.data ? data_argument(*args.data) : std::string();

  session s(context.global);
  const auto create = [&] { return s.write(path, [&] { return s.client().create(path, data, options); }); };
  create_result result;
  if (!args.parents) {
    result = create();
  } else {
    // Try first (the common case has its parents); on NONODE create them and try again. A parent deleted
    // meanwhile by someone else makes us try a few more times.
    for (int attempt = 0;; ++attempt) {
      try {
        result = create();
        break;
      } catch (const operation_error& e) {
        if (e.code() != proto::server_error::no_node || attempt == 3) throw;
      }
      create_parents(s, path);
    }
  }
  if (context.global.json) {
    print_line(json_text({{"path", result.path}, {"stat", stat_json(result.stat)}}));
  } else {
    print_line(result.path);
  }
  return exit_ok;
}

}  // namespace zkwire::cli
