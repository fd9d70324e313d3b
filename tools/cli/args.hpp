#pragma once
// The hand-written argument parser the lock, locks, revoke, proxy and bench commands still use; the data
// commands parse with command_parser (cli11_support.hpp), which keeps these rules. Pure functions.
//
//  - an option is "-x" or "--long"; one that takes a value reads it from the next argument, or attached
//    ("-n3", "--mode=once")
//  - flags without values may be bundled: "-es" is "-e -s"
//  - the first argument that is not an option ends the options, so DATA may start with '-' after PATH;
//    "-" alone is a positional argument (stdin) and "--" ends the options explicitly
//  - "-h" / "--help" anywhere among the options asks for the command's help
// Errors throw usage_error with a message naming the option.

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "values.hpp"  // parse_integer, parse_seconds for the users of parse_args

namespace zkwire::cli {

struct option_spec {
  char short_name = 0;         // 0: no short form
  std::string_view long_name;  // "" : no long form
  bool takes_value = false;
};

class parsed_args {
 public:
  // Whether the option (named by its long name, or its short name as a one-letter string) was given.
  [[nodiscard]] bool has(std::string_view name) const;
  // Its last value, if it was given.
  [[nodiscard]] std::optional<std::string> value(std::string_view name) const;

  std::vector<std::string> positional;
  bool help = false;

 private:
  friend parsed_args parse_args(std::span<const std::string> args, std::span<const option_spec> specs);
  std::vector<std::pair<std::string, std::string>> options_;  // (name, value) in order
};

parsed_args parse_args(std::span<const std::string> args, std::span<const option_spec> specs);

}  // namespace zkwire::cli
