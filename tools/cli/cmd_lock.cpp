// PLACEHOLDER (session scaffolding): replaced by the issue that builds `zkwire lock`.
#include <cstdio>

#include "commands.hpp"
#include "errors.hpp"

namespace zkwire::cli {
namespace {
int run(const command_context&) {
  std::fputs("zkwire: lock: not built yet\n", stderr);
  return exit_usage;
}
}  // namespace
const command lock_command{"lock", "lock", "(not built yet)", "", run};
}  // namespace zkwire::cli
