// PLACEHOLDER (session scaffolding): replaced by the issue that builds `zkwire locks`.
#include <cstdio>

#include "commands.hpp"
#include "errors.hpp"

namespace zkwire::cli {
namespace {
int run(const command_context&) {
  std::fputs("zkwire: locks: not built yet\n", stderr);
  return exit_usage;
}
}  // namespace
const command locks_command{"locks", "locks", "(not built yet)", "", run};
}  // namespace zkwire::cli
