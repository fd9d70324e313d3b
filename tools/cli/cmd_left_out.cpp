// `proxy` and `bench` in a command line built without them (ZKWIRE_CLI_PROXY_AND_BENCH=OFF, the demos' tree of
// scripts/build-demo): they stay in the table, so that `zkwire --help` lists every command of the contract
// (docs/cli.md), and say why they cannot run instead of passing for unknown commands.
#include <string_view>

#include "commands.hpp"
#include "errors.hpp"

namespace zkwire::cli {
namespace {

[[noreturn]] int run_left_out(const command_context& /*context*/) {
  throw usage_error(
      "not in this build of zkwire (configured with ZKWIRE_CLI_PROXY_AND_BENCH=OFF, as the demos' "
      "build is); build the command line as README.md#building says");
}

constexpr std::string_view left_out_help =
    "Not in this build of zkwire: it was configured with ZKWIRE_CLI_PROXY_AND_BENCH=OFF (the demos' build).\n"
    "Build the command line as README.md#building says to use this command.\n\nExit status: 2.\n";

}  // namespace

const command proxy_command{"proxy", "proxy ...", "(not in this build) the fault-injecting proxy", left_out_help,
                            run_left_out};
const command bench_command{"bench", "bench ...", "(not in this build) measure latency and throughput", left_out_help,
                            run_left_out};

}  // namespace zkwire::cli
