#pragma once
// A command's options and arguments, parsed with CLI11 the same way in every zkwire command:
//
//  - options come before the positional arguments: the first positional argument ends them, so DATA may start
//    with '-' after PATH; "-" alone is a positional argument (stdin); "--" ends the options explicitly
//  - short flags bundle ("-es" is "-e -s"); a value follows its option ("-n 3", also "-n -1") or is attached to it
//    ("-n3", "--mode=once")
//  - an option given twice keeps its last value, except those added with repeatable()
//  - "-h" or "--help" among the options throws help_requested at once: run_command prints the command's own help
//    text (the command table's), never CLI11's
//  - what CLI11 rejects becomes usage_error naming the option or argument: "unknown option -x", "--count needs a
//    value", "--ephemeral takes no value", "missing PATH (see --help)", "unexpected argument 'x'"; a value that
//    does not convert is reported by the helper that converts it ("-v: 'x' is not an integer in [-1, 2147483647]")
//
// Each command builds its own parser in its run function, adds its options and positional arguments, and calls
// parse() once:
//
//   command_parser parser;
//   std::int32_t version = any_version;  // kept when -v is not given
//   std::string path;
//   std::string data;
//   parser.integer("-v,--version", version, -1, std::numeric_limits<std::int32_t>::max());
//   parser.positional("PATH", path);
//   parser.positional("DATA", data);
//   parser.parse(context.args);
//
// Errors in values are reported under the option's first name ("-v" above). The targets are written during parse()
// (an option's conversion runs once, after every argument was read) and must outlive it; a target whose option is
// not given keeps its value. A parser is for one parse on one thread.

#include <CLI/CLI.hpp>
#include <concepts>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "values.hpp"

namespace zkwire::cli {

class command_parser {
 public:
  command_parser();

  // A flag without a value ("-e", "--ephemeral", bundled "-es"); "--ephemeral=1" is a usage error.
  CLI::Option* flag(const std::string& names, bool& target);

  // An option with a value, handed to `store` (which may throw usage_error) once parsing is done.
  CLI::Option* value(const std::string& names, const std::function<void(const std::string&)>& store);
  CLI::Option* option(const std::string& names, std::string& target);
  CLI::Option* option(const std::string& names, std::optional<std::string>& target);

  // An option that may be given several times; `target` gets every value in order ("--rule A --rule B").
  CLI::Option* repeatable(const std::string& names, std::vector<std::string>& target);

  // An integer option in [min, max] (which must fit in T).
  template <std::integral T>
  CLI::Option* integer(const std::string& names, T& target, std::int64_t min, std::int64_t max) {
    return value(names, [&target, min, max, what = first_name(names)](const std::string& text) {
      target = static_cast<T>(parse_integer(text, min, max, what));
    });
  }
  template <std::integral T>
  CLI::Option* integer(const std::string& names, std::optional<T>& target, std::int64_t min, std::int64_t max) {
    return value(names, [&target, min, max, what = first_name(names)](const std::string& text) {
      target = static_cast<T>(parse_integer(text, min, max, what));
    });
  }

  // A non-negative number of seconds, decimals allowed ("5", "0.5").
  CLI::Option* seconds(const std::string& names, std::optional<double>& target);

  // One of a fixed set of words, each standing for a value of T: "--mode: 'x' is not once, persistent or
  // recursive" otherwise.
  template <class T>
  CLI::Option* choice(const std::string& names, T& target, std::vector<std::pair<std::string, T>> choices) {
    return value(names, [&target, choices = std::move(choices), what = first_name(names)](const std::string& text) {
      for (const auto& [word, meaning] : choices) {
        if (word == text) {
          target = meaning;
          return;
        }
      }
      std::vector<std::string_view> words;
      words.reserve(choices.size());
      for (const auto& choice : choices) words.emplace_back(choice.first);
      throw_not_a_choice(what, text, words);
    });
  }

  // Positional arguments, in the order they are added: a required one (`target` is a string), an optional one
  // (`target` is an optional string; only after the required ones), or all the remaining ones (zero or more; last).
  CLI::Option* positional(const std::string& name, std::string& target);
  CLI::Option* positional(const std::string& name, std::optional<std::string>& target);
  CLI::Option* positionals(const std::string& name, std::vector<std::string>& target);

  // Parses `args`, the words after the command's name. Throws help_requested for -h/--help, usage_error for a bad
  // option, value or argument count. Call it once.
  void parse(std::span<const std::string> args);

  // The CLI11 app, for what the helpers above do not cover (e.g. ->excludes()). Its own help flag is off.
  CLI::App& app() noexcept { return app_; }

  // "-v" for "-v,--version".
  static std::string first_name(std::string_view names);

 private:
  [[noreturn]] static void throw_not_a_choice(std::string_view what, std::string_view text,
                                              std::span<const std::string_view> words);
  // "unknown option -x" for the first unknown option given, if any.
  [[nodiscard]] std::optional<std::string> unknown_option() const;
  // A usage message for what CLI11 rejected.
  [[nodiscard]] std::string describe(const CLI::ParseError& error) const;

  CLI::App app_;
  std::vector<std::string> unexpected_;  // positional arguments beyond those the command takes
  bool takes_the_rest_ = false;          // a positionals() argument, or the catch-all for unexpected_, was added
};

// For the commands that build a CLI11 app of their own (bench, proxy, semaphore: options command_parser has no
// helper for): parses `args` like command_parser::parse, -h/--help throwing help_requested and what CLI11 rejects a
// usage_error with its message and `hint` after it.
void parse_app(CLI::App& app, std::span<const std::string> args, std::string_view hint = {});

// For the commands whose one argument is PATH (exists, get, stat, sync): parses `args` and checks the path.
std::string parse_path_only(std::span<const std::string> args);

}  // namespace zkwire::cli
