#include "cli11_support.hpp"

#include "errors.hpp"
#include "util.hpp"

namespace zkwire::cli {

command_parser::command_parser() {
  // The first positional argument ends the options (DATA may start with '-').
  app_.positionals_at_end();
  // The last value of a repeated option wins, as with most Unix tools.
  app_.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  // Not CLI11's help, which prints CLI11's text; ours stops the parse at once, so nothing after -h (a bad value, an
  // option missing its value, a missing PATH) hides the help.
  app_.set_help_flag();
  app_.add_flag_callback("-h,--help", [] { throw help_requested{}; })->trigger_on_parse();
}

CLI::Option* command_parser::flag(const std::string& names, bool& target) {
  return app_.add_flag(names, target)->disable_flag_override();
}

CLI::Option* command_parser::value(const std::string& names, const std::function<void(const std::string&)>& store) {
  return app_.add_option_function<std::string>(names, store);
}

CLI::Option* command_parser::option(const std::string& names, std::string& target) {
  return app_.add_option(names, target);
}

CLI::Option* command_parser::option(const std::string& names, std::optional<std::string>& target) {
  return value(names, [&target](const std::string& text) { target = text; });
}

CLI::Option* command_parser::repeatable(const std::string& names, std::vector<std::string>& target) {
  // One value per occurrence: without allow_extra_args(false) a vector option swallows the words after it.
  return app_.add_option(names, target)->allow_extra_args(false)->take_all();
}

CLI::Option* command_parser::seconds(const std::string& names, std::optional<double>& target) {
  return value(names,
               [&target, what = first_name(names)](const std::string& text) { target = parse_seconds(text, what); });
}

CLI::Option* command_parser::positional(const std::string& name, std::string& target) {
  return app_.add_option(name, target)->required();
}

CLI::Option* command_parser::positional(const std::string& name, std::optional<std::string>& target) {
  return value(name, [&target](const std::string& text) { target = text; });
}

CLI::Option* command_parser::positionals(const std::string& name, std::vector<std::string>& target) {
  takes_the_rest_ = true;
  return app_.add_option(name, target);
}

void command_parser::parse(std::span<const std::string> args) {
  // Added last, so it only receives what the command's own positional arguments leave over. CLI11 allows one
  // positional of unlimited length, and with positionals() there is nothing left over.
  if (!takes_the_rest_) {
    app_.add_option("UNEXPECTED", unexpected_);
    takes_the_rest_ = true;
  }
  std::vector<std::string> reversed(args.rbegin(), args.rend());  // CLI11 consumes from the back
  try {
    app_.parse(reversed);
  } catch (const CLI::ParseError& e) {
    throw usage_error(unknown_option().value_or(describe(e)));
  } catch (const usage_error&) {
    // An unknown option is the first thing to tell, even if a value given after it is bad too.
    if (auto unknown = unknown_option()) throw usage_error(*unknown);
    throw;
  }
  if (auto unknown = unknown_option()) throw usage_error(*unknown);
  if (!unexpected_.empty()) throw usage_error("unexpected argument '" + unexpected_.front() + "'");
}

void parse_app(CLI::App& app, std::span<const std::string> args, std::string_view hint) {
  std::vector<std::string> reversed(args.rbegin(), args.rend());  // CLI11 consumes from the back
  try {
    app.parse(reversed);
  } catch (const CLI::CallForHelp&) {
    throw help_requested{};
  } catch (const CLI::ParseError& e) {
    throw usage_error(std::string(e.what()) + std::string(hint));
  }
}

std::string parse_path_only(std::span<const std::string> args) {
  std::string path;
  command_parser parser;
  parser.positional("PATH", path);
  parser.parse(args);
  check_path(path);
  return path;
}

std::string command_parser::first_name(std::string_view names) { return std::string(names.substr(0, names.find(','))); }

void command_parser::throw_not_a_choice(std::string_view what, std::string_view text,
                                        std::span<const std::string_view> words) {
  std::string message = std::string(what) + ": '" + std::string(text) + "' is not ";
  for (std::size_t i = 0; i < words.size(); ++i) {
    if (i > 0) message += i + 1 == words.size() ? " or " : ", ";
    message += words[i];
  }
  throw usage_error(message);
}

std::optional<std::string> command_parser::unknown_option() const {
  for (const std::string& word : app_.remaining()) {
    if (word.size() < 2 || word.front() != '-' || word == "--") continue;
    if (word[1] == '-') return "unknown option " + word.substr(0, word.find('='));
    // CLI11 leaves a bundle from its first unknown letter on: "-ex" with -e known leaves "-x".
    return "unknown option " + word.substr(0, 2);
  }
  return std::nullopt;
}

std::string command_parser::describe(const CLI::ParseError& error) const {
  std::string what = error.what();
  if (dynamic_cast<const CLI::RequiredError*>(&error) != nullptr) {
    for (const CLI::Option* option : app_.get_options()) {
      if (option->get_positional() && option->get_required() && option->count() == 0) {
        return "missing " + option->get_name() + " (see --help)";
      }
    }
  }
  if (dynamic_cast<const CLI::ArgumentMismatch*>(&error) != nullptr) {
    // CLI11 2.x words these "ephemeral was given a disallowed flag override" and "--count: 1 required TEXT
    // missing"; anything else keeps CLI11's own message.
    constexpr std::string_view override_suffix = " was given a disallowed flag override";
    if (what.ends_with(override_suffix)) {
      const std::string name = what.substr(0, what.size() - override_suffix.size());
      for (const std::string& spelled : {"--" + name, "-" + name}) {
        if (const CLI::Option* option = app_.get_option_no_throw(spelled)) {
          return option->get_name() + " takes no value";
        }
      }
    } else if (const auto colon = what.find(':'); colon != std::string::npos) {
      if (const CLI::Option* option = app_.get_option_no_throw(what.substr(0, colon))) {
        return option->get_name() + " needs a value";
      }
    }
  }
  return what;
}

}  // namespace zkwire::cli
