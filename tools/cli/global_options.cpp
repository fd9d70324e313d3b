#include "global_options.hpp"

#include <charconv>
#include <string_view>

namespace zkwire::cli {
namespace {

std::optional<std::chrono::milliseconds> parse_ms(std::string_view text) {
  long long value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || value <= 0 || value > INT32_MAX) return std::nullopt;
  return std::chrono::milliseconds(value);
}

}  // namespace

parse_result parse_global_options(std::span<const char* const> args, const char* servers_env) {
  parse_result result;
  global_options& o = result.options;
  o.servers = servers_env != nullptr && *servers_env != '\0' ? servers_env : "127.0.0.1:2181";

  std::size_t i = 0;
  // The value of option `name` given as "--name=value" or as the next argument.
  auto value_of = [&](std::string_view arg, std::string_view name) -> std::optional<std::string> {
    if (arg.size() > name.size() && arg.substr(0, name.size()) == name && arg[name.size()] == '=') {
      return std::string(arg.substr(name.size() + 1));
    }
    if (i + 1 >= args.size()) {
      result.error = std::string(name) + " needs a value";
      return std::nullopt;
    }
    return std::string(args[++i]);
  };
  auto is = [](std::string_view arg, std::string_view short_name, std::string_view long_name) {
    return arg == short_name || arg == long_name ||
           (arg.size() > long_name.size() && arg.substr(0, long_name.size()) == long_name &&
            arg[long_name.size()] == '=');
  };

  for (; i < args.size() && result.error.empty(); ++i) {
    const std::string_view arg = args[i];
    if (arg == "--") {
      ++i;
      break;
    }
    if (arg.empty() || arg[0] != '-') break;
    if (arg == "-h" || arg == "--help") {
      o.help = true;
    } else if (arg == "--version") {
      o.version = true;
    } else if (arg == "-v" || arg == "--verbose") {
      o.verbose = true;
    } else if (arg == "--json") {
      o.json = true;
    } else if (is(arg, "-s", "--servers")) {
      if (auto v = value_of(arg, arg[1] == 's' ? "-s" : "--servers")) o.servers = *v;
    } else if (is(arg, "-t", "--session-timeout")) {
      if (auto v = value_of(arg, arg[1] == 't' ? "-t" : "--session-timeout")) {
        if (auto ms = parse_ms(*v)) {
          o.session_timeout = *ms;
        } else {
          result.error = "--session-timeout: '" + *v + "' is not a positive number of milliseconds";
        }
      }
    } else if (is(arg, "", "--connect-timeout")) {
      if (auto v = value_of(arg, "--connect-timeout")) {
        if (auto ms = parse_ms(*v)) {
          o.connect_timeout = *ms;
        } else {
          result.error = "--connect-timeout: '" + *v + "' is not a positive number of milliseconds";
        }
      }
    } else if (is(arg, "", "--auth")) {
      if (auto v = value_of(arg, "--auth")) {
        if (v->find(':') == std::string::npos || v->front() == ':') {
          result.error = "--auth: '" + *v + "' is not SCHEME:CREDENTIALS";
        } else {
          o.auth.push_back(*v);
        }
      }
    } else {
      result.error = "unknown option " + std::string(arg);
    }
  }
  for (; i < args.size() && result.error.empty(); ++i) o.command.emplace_back(args[i]);
  return result;
}

}  // namespace zkwire::cli
