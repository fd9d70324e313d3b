#include "commands.hpp"

#include <algorithm>
#include <array>
#include <cstdio>
#include <vector>

#include "errors.hpp"
#include "util.hpp"

namespace zkwire::cli {
namespace {

constexpr std::array<command, 9> data_commands = {{
    {"create", "create [-e] [-s] [-c] [--ttl MS] [-p] PATH [DATA|-]", "create a node, print its path",
     R"(Creates PATH holding DATA (empty if omitted; '-' reads it from stdin) and prints the path created, with
the sequence suffix for -s. With --json prints {"path":...,"stat":{...}}.

  -e, --ephemeral    ephemeral node: deleted when this command's session ends, i.e. when it exits
  -s, --sequential   append a 10-digit sequence number (PATH may end with '/')
  -c, --container    container node (deleted by the server once its last child is gone)
      --ttl MS       persistent node deleted MS ms after its last change once it has no children
                     (the server needs zookeeper.extendedTypesEnabled=true)
  -p, --parents      create missing parents first (as persistent nodes); existing ones are fine

Exit status: 0 created, 1 a parent does not exist (NONODE), 3 refused (NODEEXISTS, NOAUTH,
NOCHILDRENFOREPHEMERALS, ...), 4 no session or connection lost (outcome unknown).
)",
     run_create},
    {"get", "get PATH", "print a node's data",
     R"(Prints the node's data bytes verbatim, without an added newline. With --json prints
{"path":...,"data":...,"data_base64":...,"stat":{...}}; "data" only when the bytes are valid UTF-8.

Exit status: 0, 1 no such node (NONODE), 3 refused (NOAUTH), 4 no session.
)",
     run_get},
    {"set", "set [-v VERSION] PATH DATA|-", "replace a node's data",
     R"(Replaces the node's data with DATA ('-' reads it from stdin). Prints nothing; with --json the new stat.

  -v, --version VERSION   only if the node's data version is VERSION (else BADVERSION, exit 3)

Exit status: 0, 1 no such node, 3 refused (BADVERSION, NOAUTH), 4 no session or connection lost.
)",
     run_set},
    {"ls", "ls [-R] PATH", "list children",
     R"(Prints the node's child names, sorted, one per line. With -R prints the full paths of the whole subtree,
PATH first, depth first with siblings sorted (nodes vanishing meanwhile are skipped). With --json each
line is {"path":...} (plus "name" without -R).

  -R, --recursive   the whole subtree

Exit status: 0, 1 no such node, 3 refused, 4 no session.
)",
     run_ls},
    {"stat", "stat PATH", "print a node's stat as JSON",
     R"(Prints the node's stat as one JSON object with the keys czxid, mzxid, pzxid, ctime, mtime, version,
cversion, aversion, ephemeralOwner, dataLength, numChildren (integers; times in ms since the epoch).

Exit status: 0, 1 no such node, 3 refused, 4 no session.
)",
     run_stat},
    {"rm", "rm [-v VERSION] [-r] PATH", "delete a node",
     R"(Deletes the node. Prints nothing.

  -v, --version VERSION   only if the node's data version is VERSION (else BADVERSION, exit 3)
  -r, --recursive         delete the whole subtree, depth first; nodes vanishing meanwhile are fine
                          (VERSION then applies to PATH itself)

Exit status: 0, 1 no such node, 3 refused (NOTEMPTY, BADVERSION, NOAUTH), 4 no session or connection lost.
)",
     run_rm},
    {"exists", "exists PATH", "test whether a node exists",
     R"(Prints nothing. Exit status: 0 the node exists, 1 it does not, 3 refused, 4 no session.
)",
     run_exists},
    {"sync", "sync PATH", "wait until the server has caught up with the leader",
     R"(Asks the connected server to catch up with the leader on PATH. Prints nothing.

Exit status: 0, 3 refused, 4 no session.
)",
     run_sync},
    {"watch", "watch [--mode once|persistent|recursive] [-n COUNT] [--timeout SEC] PATH",
     "print watch events as JSON lines",
     R"(Watches PATH and prints one JSON line per event, flushed at once:
  {"type":"NodeDataChanged","path":"/x"}
Session changes are printed as {"state":"Disconnected"}, {"state":"SyncConnected"}, {"state":"Expired"}, ...
and are not counted.

  --mode once         (default) a one-shot watch on the node (created, deleted, data changed, children
                      changed), armed again after each event; changes between two events can be missed
  --mode persistent   a persistent watch on the node (same events, none missed)
  --mode recursive    a persistent recursive watch on the subtree (created, deleted, data changed)
  -n, --count COUNT   exit after COUNT node events (default: 1 for once, unlimited otherwise)
  --timeout SEC       give up after SEC seconds (decimals allowed)

Exit status: 0 after COUNT events, 1 timeout, 3 refused, 4 session expired, authentication failed, or the
connection lost for so long that the session must have expired (events may have been missed).
)",
     run_watch},
}};

}  // namespace

std::span<const command* const> commands() {
  // The data commands, then those of the other layers, which describe themselves in their own cmd_<name>.cpp.
  static const std::vector<const command*> table = [] {
    std::vector<const command*> all;
    all.reserve(data_commands.size() + 8);
    for (const auto& c : data_commands) all.push_back(&c);
    for (const auto* c : {&lock_command, &locks_command, &revoke_command, &semaphore_command, &elect_command,
                          &leader_command, &proxy_command, &bench_command}) {
      all.push_back(c);
    }
    return all;
  }();
  return table;
}

const command* find_command(std::string_view name) {
  const auto all = commands();
  const auto it = std::find_if(all.begin(), all.end(), [&](const command* c) { return c->name == name; });
  return it == all.end() ? nullptr : *it;
}

int run_command(const global_options& global) {
  const std::string& name = global.command.front();
  const command* cmd = find_command(name);
  if (cmd == nullptr) {
    std::fprintf(stderr, "zkwire: %s: unknown command (see zkwire --help)\n", name.c_str());
    return exit_usage;
  }
  const command_context context{global, cmd->name, {global.command.begin() + 1, global.command.end()}};
  try {
    return cmd->run(context);
  } catch (const help_requested&) {
    std::printf("usage: zkwire [GLOBAL OPTIONS] %.*s\n\n%.*s", static_cast<int>(cmd->synopsis.size()),
                cmd->synopsis.data(), static_cast<int>(cmd->help.size()), cmd->help.data());
    return exit_ok;
  } catch (const usage_error& e) {
    std::fprintf(stderr, "zkwire: %s: %s\n", name.c_str(), e.what());
    return exit_usage;
  } catch (const operation_error& e) {
    std::fflush(stdout);
    std::fprintf(stderr, "%s\n", error_line(name, e.subject(), e.code()).c_str());
    return exit_status_for(e.code());
  }
}

}  // namespace zkwire::cli
