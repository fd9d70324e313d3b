// zkwire: the command line (contract: shared/CLI.md). This build parses the global options; the data, lock,
// proxy and bench commands are added as the layers they need land (client, recipes, faults, bench).

#include <cstdio>
#include <cstdlib>
#include <span>
#include <string>

#include "global_options.hpp"

namespace {

constexpr const char* usage = R"(usage: zkwire [GLOBAL OPTIONS] COMMAND [ARGS...]

Global options:
  -s, --servers LIST          host:port[,host:port...][/chroot]  ($ZKWIRE_SERVERS, else 127.0.0.1:2181)
  -t, --session-timeout MS    requested session timeout (10000)
      --connect-timeout MS    give up if no session is established within MS (the session timeout)
      --auth SCHEME:CREDS     e.g. digest:alice:secret; repeatable; replayed on reconnect
  -v, --verbose               session events and reconnects to stderr
      --json                  machine-readable output, one JSON object per line
  -h, --help                  this text
      --version               print the version

Commands in this build: none yet. The data commands (create get set ls stat rm exists sync watch) arrive
with the client layer; lock, locks and revoke with the recipes; proxy and bench after them.
To see the wire protocol against a real server now, run zkwire-wire-session HOST:PORT.

Exit status: 0 success, 2 usage error (see shared/CLI.md for the full table).
)";

}  // namespace

int main(int argc, char** argv) {
  const std::span<const char* const> args(argv + 1, static_cast<std::size_t>(argc > 0 ? argc - 1 : 0));
  const auto parsed = zkwire::cli::parse_global_options(args, std::getenv("ZKWIRE_SERVERS"));
  if (!parsed.error.empty()) {
    std::fprintf(stderr, "zkwire: %s\n", parsed.error.c_str());
    return 2;
  }
  const auto& options = parsed.options;
  if (options.help) {
    std::fputs(usage, stdout);
    return 0;
  }
  if (options.version) {
    std::printf("zkwire %s\n", ZKWIRE_VERSION);
    return 0;
  }
  if (options.command.empty()) {
    std::fputs(usage, stderr);
    return 2;
  }
  std::fprintf(stderr, "zkwire: %s: unknown command in this build (see zkwire --help)\n",
               options.command.front().c_str());
  return 2;
}
