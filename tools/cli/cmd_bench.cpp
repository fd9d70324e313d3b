// PLACEHOLDER (session scaffolding): replaced by the issue that builds `zkwire bench`.
#include <cstdio>

#include "commands.hpp"
#include "errors.hpp"

namespace zkwire::cli {
namespace {
int run(const command_context&) {
  std::fputs("zkwire: bench: not built yet\n", stderr);
  return exit_usage;
}
}  // namespace
const command bench_command{"bench", "bench", "(not built yet)", "", run};
}  // namespace zkwire::cli
