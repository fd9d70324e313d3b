// zkwire locks [--watch [--json]] PATH

#include <vector>

#include "async_session.hpp"
#include "cli11_support.hpp"
#include "commands.hpp"
#include "errors.hpp"
#include "lock_format.hpp"
#include "util.hpp"
#include "zkwire/recipes/contenders.hpp"

namespace zkwire::cli {
namespace {

int run_locks_command(const command_context& context) {
  command_parser parser;
  std::string directory;
  bool watch = false;
  bool as_json = false;
  parser.flag("--watch", watch);
  parser.flag("--json", as_json);
  parser.positional("PATH", directory);
  parser.parse(context.args);
  check_path(directory);
  if (watch) return watch_locks(context.global, directory, as_json || context.global.json);
  async_session s(context.global);
  s.connect();
  const auto contenders = s.read<std::vector<recipes::contender>>(
      directory, [&](auto handler) { recipes::async_contenders(s.client(), directory, std::move(handler)); });
  for (const auto& c : contenders) print_line(contender_json(c));
  s.close(s.connect_timeout());
  return exit_ok;
}

}  // namespace

const command locks_command{"locks", "locks [--watch [--json]] PATH",
                            "list the contenders of a lock directory as JSON, or watch it live",
                            R"(Prints the children of the lock directory PATH in lock order, one JSON line each:
  {"node":"/locks/job/_c_...-lock-0000000003","sequence":3,"kind":"exclusive","session":"0x10000c1a5e40001",
   "ctime":1732240000000,"holder":true,"data":"host:4711"}
  node      full path of the lock node (what `zkwire revoke` and `zkwire rm` take)
  sequence  the server's sequence suffix (null for a foreign sibling)
  kind      exclusive, read, write, or foreign (a sibling that is no lock node: never waited for)
  session   the session that owns the node (ephemeralOwner, hex; 0x0 for a persistent node)
  ctime     creation time, ms since the epoch
  holder    whether it holds the lock now: the first contender, and every reader before the first non-reader
  data      the node's data (zkwire stores host:pid; Kazoo its identifier; Curator an IP address)
Contenders of every known library are ordered by sequence (Curator, Kazoo, go-zookeeper, ZooKeeper's recipes);
foreign siblings come last, by name. A snapshot: nodes deleted while it is taken are left out.

Exit status: 0 (also for an empty directory), 1 no such directory, 3 refused (NOAUTH), 4 no session.

--watch: a live view instead, until SIGINT or SIGTERM (then exit 0), refreshed by a child watch on PATH (an exists
watch while PATH does not exist: the view then says so and waits for it), never by polling:
  queue depth    contenders (holders and waiters; foreign siblings are not counted)
  holder         the first holder's node, data, session and age (from its node's ctime: the server's clock)
  oldest waiter  the age of the longest-waiting contender
  grants         holders seen since the watch started, and the rate over the last 10 s (a holder granted and
                 released between two listings is not seen)
On a terminal the view is redrawn in place at each change; otherwise the views follow each other.
--json (or the global --json): one JSON line per change instead:
  {"path":"/locks/job","exists":true,"depth":2,"holders":1,"waiters":1,"holder":{"node":"/locks/job/_c_...",
   "session":"0x...","data":"host:4711","age_ms":1530},"oldest_waiter_age_ms":820,"grants":3,"grants_per_sec":0.3}
  ("holder" and "oldest_waiter_age_ms" are null when there is none.) Exit status: 0 after SIGINT/SIGTERM,
  3 refused, 4 the session expired or was lost.
)",
                            run_locks_command};

}  // namespace zkwire::cli
