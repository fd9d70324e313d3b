#include "args.hpp"

#include <algorithm>
#include <cctype>

#include "errors.hpp"

namespace zkwire::cli {
namespace {

std::string name_of(const option_spec& spec) {
  return spec.long_name.empty() ? std::string(1, spec.short_name) : std::string(spec.long_name);
}

std::string spelled(const option_spec& spec) {
  return spec.long_name.empty() ? std::string("-") + spec.short_name : "--" + std::string(spec.long_name);
}

}  // namespace

bool parsed_args::has(std::string_view name) const {
  return std::any_of(options_.begin(), options_.end(), [&](const auto& o) { return o.first == name; });
}

std::optional<std::string> parsed_args::value(std::string_view name) const {
  std::optional<std::string> last;
  for (const auto& [option, value] : options_) {
    if (option == name) last = value;
  }
  return last;
}

parsed_args parse_args(std::span<const std::string> args, std::span<const option_spec> specs) {
  parsed_args result;
  std::size_t i = 0;
  const auto next_value = [&](const option_spec& spec) -> std::string {
    if (i + 1 >= args.size()) throw usage_error(spelled(spec) + " needs a value");
    return args[++i];
  };
  for (; i < args.size(); ++i) {
    const std::string_view arg = args[i];
    if (arg == "--") {
      ++i;
      break;
    }
    if (arg.size() < 2 || arg[0] != '-') break;  // a positional argument, or "-" (stdin)
    if (arg == "-h" || arg == "--help") {
      result.help = true;
      continue;
    }
    if (arg.substr(0, 2) == "--") {
      const std::string_view body = arg.substr(2);
      const std::size_t eq = body.find('=');
      const std::string_view name = body.substr(0, eq);
      const auto spec = std::find_if(specs.begin(), specs.end(),
                                     [&](const option_spec& s) { return !s.long_name.empty() && s.long_name == name; });
      if (spec == specs.end()) throw usage_error("unknown option --" + std::string(name));
      if (!spec->takes_value) {
        if (eq != std::string_view::npos) throw usage_error(spelled(*spec) + " takes no value");
        result.options_.emplace_back(name_of(*spec), "");
      } else if (eq != std::string_view::npos) {
        result.options_.emplace_back(name_of(*spec), std::string(body.substr(eq + 1)));
      } else {
        result.options_.emplace_back(name_of(*spec), next_value(*spec));
      }
      continue;
    }
    // One or more short options: "-e", "-es", "-n3", "-n 3".
    for (std::size_t k = 1; k < arg.size(); ++k) {
      const char c = arg[k];
      const auto spec =
          std::find_if(specs.begin(), specs.end(), [&](const option_spec& s) { return s.short_name == c; });
      if (spec == specs.end()) {
        if (k == 1 && arg.size() > 1 && (std::isdigit(static_cast<unsigned char>(c)) != 0)) {
          throw usage_error("unknown option " + std::string(arg) + " (use -- before arguments starting with '-')");
        }
        throw usage_error("unknown option -" + std::string(1, c));
      }
      if (!spec->takes_value) {
        result.options_.emplace_back(name_of(*spec), "");
        continue;
      }
      if (k + 1 < arg.size()) {
        result.options_.emplace_back(name_of(*spec), std::string(arg.substr(k + 1)));
      } else {
        result.options_.emplace_back(name_of(*spec), next_value(*spec));
      }
      break;
    }
  }
  for (; i < args.size(); ++i) result.positional.push_back(args[i]);
  return result;
}

}  // namespace zkwire::cli
