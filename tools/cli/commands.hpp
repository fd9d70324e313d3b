#pragma once
// The subcommands: one run function per command (cmd_<name>.cpp) and the table main() dispatches on.

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "global_options.hpp"

namespace zkwire::cli {

// What a command gets: the global options and its own arguments (after the command name).
struct command_context {
  const global_options& global;
  std::string_view name;
  std::vector<std::string> args;
};

struct command {
  std::string_view name;
  std::string_view synopsis;  // "create [-e] [-s] ... PATH [DATA|-]"
  std::string_view summary;   // one line for the global help
  std::string_view help;      // the rest of `zkwire <name> --help`
  // Returns the exit status; throws usage_error or operation_error (mapped by run_command).
  int (*run)(const command_context& context);
};

// Every command of this build, in the order the global help lists them.
std::span<const command* const> commands();
const command* find_command(std::string_view name);

// Runs the command named by global.command.front(): prints its help for -h/--help, maps usage_error to status 2
// and operation_error to the status of its code (docs/cli.md#exit-status), with the error line on stderr.
int run_command(const global_options& global);

int run_create(const command_context& context);
int run_get(const command_context& context);
int run_set(const command_context& context);
int run_ls(const command_context& context);
int run_stat(const command_context& context);
int run_rm(const command_context& context);
int run_exists(const command_context& context);
int run_sync(const command_context& context);
int run_watch(const command_context& context);

// Commands that describe themselves in their own file (recipes: cmd_lock/cmd_locks/cmd_revoke.cpp, cmd_elect.cpp,
// cmd_leader.cpp; faults:
// cmd_proxy.cpp; benchmarks: cmd_bench.cpp).
extern const command lock_command;
extern const command locks_command;
// `locks --watch` (locks_watch.cpp): runs until SIGINT/SIGTERM.
int watch_locks(const global_options& global, const std::string& directory, bool as_json);
extern const command elect_command;
extern const command leader_command;
extern const command revoke_command;
extern const command semaphore_command;
extern const command proxy_command;
extern const command bench_command;

}  // namespace zkwire::cli
