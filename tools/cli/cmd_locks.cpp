// zkwire locks PATH

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

int run(const command_context& context) {
  command_parser parser;
  std::string directory;
  parser.positional("PATH", directory);
  parser.parse(context.args);
  check_path(directory);
  async_session s(context.global);
  s.connect();
  const auto contenders = s.read<std::vector<recipes::contender>>(
      directory, [&](auto handler) { recipes::async_contenders(s.client(), directory, std::move(handler)); });
  for (const auto& c : contenders) print_line(contender_json(c));
  s.close(s.connect_timeout());
  return exit_ok;
}

}  // namespace

const command locks_command{"locks", "locks PATH", "list the contenders of a lock directory as JSON",
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
)",
                            run};

}  // namespace zkwire::cli
