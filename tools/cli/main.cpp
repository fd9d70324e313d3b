// zkwire: the command line (contract: docs/cli.md). This file parses the global options and dispatches to the
// command table (command_table.cpp); each data command lives in cmd_<name>.cpp. The lock, proxy and bench
// commands are added as the layers they need land (recipes, faults, bench).

#include <cstdio>
#include <cstdlib>
#include <span>
#include <string>

#include "commands.hpp"
#include "errors.hpp"
#include "global_options.hpp"

namespace {

constexpr const char* usage_head = R"(usage: zkwire [GLOBAL OPTIONS] COMMAND [ARGS...]

Global options:
  -s, --servers LIST          host:port[,host:port...][/chroot]  ($ZKWIRE_SERVERS, else 127.0.0.1:2181)
  -t, --session-timeout MS    requested session timeout (10000)
      --connect-timeout MS    give up if no session is established within MS (the session timeout)
      --auth SCHEME:CREDS     e.g. digest:alice:secret; repeatable; replayed on reconnect
      --sasl USER:PASSWORD    SASL DIGEST-MD5 login before any request, on every connection
      --request-timeout MS    deadline of each request; past it the command fails with exit 4 (a write's
                              outcome is then unknown: the server may still apply it) (none)
      --read-only             accept read-only servers: reads work, writes fail with NOTREADONLY (off)
      --max-frame-size BYTES  largest reply accepted, e.g. 256M; a larger one fails its command (64M)
      --tls-ca FILE           TLS to every server, its certificate verified against the PEM CA FILE and the host
      --tls-cert FILE         client certificate (PEM) for servers that require one; needs --tls-key
      --tls-key FILE          the client certificate's private key (PEM, unencrypted)
  -v, --verbose               session events and reconnects to stderr
      --json                  machine-readable output, one JSON object per line
  -h, --help                  this text
      --version               print the version

Commands (zkwire COMMAND --help for each):
)";

constexpr const char* usage_tail = R"(
Errors go to stderr as `zkwire: COMMAND: WHAT HAPPENED (ZOOKEEPER ERROR NAME)`.
Exit status: 0 success; 1 no such node, or the condition tested is false; 2 usage error (nothing was sent);
3 the server refused the operation; 4 no session (connect timeout, session expired, auth failed, connection
lost: the outcome is unknown).
)";

void print_usage(std::FILE* out) {
  std::fputs(usage_head, out);
  for (const auto* command : zkwire::cli::commands()) {
    std::fprintf(out, "  %-9.*s %.*s\n", static_cast<int>(command->name.size()), command->name.data(),
                 static_cast<int>(command->summary.size()), command->summary.data());
  }
  std::fputs(usage_tail, out);
}

}  // namespace

int main(int argc, char** argv) {
  const std::span<const char* const> args(argv + 1, static_cast<std::size_t>(argc > 0 ? argc - 1 : 0));
  const auto parsed = zkwire::cli::parse_global_options(args, std::getenv("ZKWIRE_SERVERS"));
  if (!parsed.error.empty()) {
    std::fprintf(stderr, "zkwire: %s\n", parsed.error.c_str());
    return zkwire::cli::exit_usage;
  }
  const auto& options = parsed.options;
  if (options.help) {
    print_usage(stdout);
    return zkwire::cli::exit_ok;
  }
  if (options.version) {
    std::printf("zkwire %s\n", ZKWIRE_VERSION);
    return zkwire::cli::exit_ok;
  }
  if (options.command.empty()) {
    print_usage(stderr);
    return zkwire::cli::exit_usage;
  }
  const int status = zkwire::cli::run_command(options);
  if (std::fflush(stdout) != 0 && status == zkwire::cli::exit_ok) return zkwire::cli::exit_no_session;
  return status;
}
