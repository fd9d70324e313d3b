// PLACEHOLDER (session scaffolding): replaced by the issue that builds `zkwire revoke`.
#include <cstdio>

#include "commands.hpp"
#include "errors.hpp"

namespace zkwire::cli {
namespace {
int run(const command_context&) {
  std::fputs("zkwire: revoke: not built yet\n", stderr);
  return exit_usage;
}
}  // namespace
const command revoke_command{"revoke", "revoke", "(not built yet)", "", run};
}  // namespace zkwire::cli
