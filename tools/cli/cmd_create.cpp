// zkwire create [-e] [-s] [-c] [--ttl MS] [-p] PATH [DATA|-]

#include <array>

#include "commands.hpp"
#include "errors.hpp"
#include "json.hpp"
#include "session.hpp"
#include "util.hpp"
#include "zkwire/proto/error.hpp"

namespace zkwire::cli {
namespace {

constexpr std::array<option_spec, 5> specs = {{
    {'e', "ephemeral", false},
    {'s', "sequential", false},
    {'c', "container", false},
    {0, "ttl", true},
    {'p', "parents", false},
}};

create_options options_from(const parsed_args& args) {
  const bool ephemeral = args.has("ephemeral");
  const bool sequential = args.has("sequential");
  const bool container = args.has("container");
  create_options options;
  if (const auto ttl = args.value("ttl")) {
    if (ephemeral || container) throw usage_error("--ttl cannot be combined with -e or -c");
    options.ttl = parse_integer(*ttl, proto::min_ttl_ms, proto::max_ttl_ms, "--ttl");
    options.mode = sequential ? create_mode::persistent_sequential_with_ttl : create_mode::persistent_with_ttl;
  } else if (container) {
    if (ephemeral || sequential) throw usage_error("-c cannot be combined with -e or -s");
    options.mode = create_mode::container;
  } else if (ephemeral) {
    options.mode = sequential ? create_mode::ephemeral_sequential : create_mode::ephemeral;
  } else {
    options.mode = sequential ? create_mode::persistent_sequential : create_mode::persistent;
  }
  return options;
}

// Creates every missing ancestor of `path` (not `path` itself) as a persistent node, top down. A node that already
// exists, or appears meanwhile, is fine.
void create_parents(session& s, const std::string& path) {
  const std::string parent = parent_of(path);
  if (parent == "/") return;
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
  const auto args = parse_command(context.args, specs, 1, 2);
  const auto options = options_from(args);
  const std::string& path = args.positional[0];
  check_path(path, proto::is_sequential(options.mode));
  const std::string data = args.positional.size() > 1 ? data_argument(args.positional[1]) : std::string();

  session s(context.global);
  const auto create = [&] { return s.write(path, [&] { return s.client().create(path, data, options); }); };
  create_result result;
  if (!args.has("parents")) {
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
    print_line(json_object().add("path", result.path).add_raw("stat", stat_json(result.stat)).str());
  } else {
    print_line(result.path);
  }
  return exit_ok;
}

}  // namespace zkwire::cli
