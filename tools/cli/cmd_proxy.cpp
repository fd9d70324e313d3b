// PLACEHOLDER (session scaffolding): replaced by the issue that builds `zkwire proxy`.
#include <cstdio>

#include "commands.hpp"
#include "errors.hpp"

namespace zkwire::cli {
namespace {
int run(const command_context&) {
  std::fputs("zkwire: proxy: not built yet\n", stderr);
  return exit_usage;
}
}  // namespace
const command proxy_command{"proxy", "proxy", "(not built yet)", "", run};
}  // namespace zkwire::cli
