// zkwire locks [--watch [--json] | --check-members] PATH

#include <algorithm>
#include <cstdio>
#include <iterator>
#include <optional>
#include <vector>

#include "async_session.hpp"
#include "cli11_support.hpp"
#include "commands.hpp"
#include "errors.hpp"
#include "lock_format.hpp"
#include "session.hpp"
#include "util.hpp"
#include "zkwire/recipes/contenders.hpp"
#include "zkwire/recipes/member_views.hpp"

namespace zkwire::cli {
namespace {

// --check-members: each contender's line says how many members list it after a sync, and a node the member this
// session reads from shows but a majority does not is named on stderr with the contenders it holds up
// (docs/design.md#diverged-member).
void print_with_members(async_session& s, const global_options& global, const std::string& directory,
                        const std::vector<recipes::contender>& contenders) {
  std::vector<std::string> names;
  names.reserve(contenders.size());
  for (const auto& c : contenders) names.push_back(c.node);
  const auto reading = s.client().connected_host();
  auto [ec, check] = s.wait<recipes::member_check>([&](auto handler) {
    recipes::async_check_members(s.client(), make_client_options(global), directory, names, s.connect_timeout(),
                                 std::move(handler));
  });
  if (ec) throw operation_error(ec, directory);
  for (const auto& c : contenders) {
    member_listing listing;
    listing.members = check.views.size();
    listing.answered = check.answered();
    for (const auto& v : check.views) {
      if (!v.error && std::binary_search(v.children.begin(), v.children.end(), c.node)) ++listing.listed_by;
    }
    listing.diverged = std::any_of(check.diverged.begin(), check.diverged.end(),
                                   [&](const recipes::diverged_node& d) { return d.name == c.node; });
    print_line(contender_json(c, listing));
  }
  for (const auto& d : check.diverged) {
    const auto at = std::find_if(contenders.begin(), contenders.end(),
                                 [&](const recipes::contender& c) { return c.node == d.name; });
    if (at == contenders.end()) continue;
    const auto behind = std::count_if(std::next(at), contenders.end(), [](const recipes::contender& c) {
      return c.kind != recipes::contender_kind::foreign;
    });
    std::fprintf(stderr,
                 "zkwire: locks: %s: listed by the member this session reads from (%s) but not by %zu of %zu members "
                 "after a sync: that member diverged (docs/design.md#diverged-member); %zu contenders behind it wait "
                 "for it for good\n",
                 at->path.c_str(), reading ? to_string(*reading).c_str() : "?", d.answered - d.listed_by, d.members,
                 static_cast<std::size_t>(behind));
  }
  if (check.answered() < check.views.size() / 2 + 1) {
    std::fprintf(stderr, "zkwire: locks: only %zu of %zu members answered: a majority cannot be told\n",
                 check.answered(), check.views.size());
  }
}

int run_locks_command(const command_context& context) {
  command_parser parser;
  std::string directory;
  bool watch = false;
  bool as_json = false;
  bool check_members = false;
  parser.flag("--watch", watch);
  parser.flag("--json", as_json);
  parser.flag("--check-members", check_members);
  parser.positional("PATH", directory);
  parser.parse(context.args);
  check_path(directory);
  if (watch && check_members) throw usage_error("--check-members cannot be combined with --watch");
  if (watch) return watch_locks(context.global, directory, as_json || context.global.json);
  async_session s(context.global);
  s.connect();
  const auto contenders = s.read<std::vector<recipes::contender>>(
      directory, [&](auto handler) { recipes::async_contenders(s.client(), directory, std::move(handler)); });
  if (check_members) {
    print_with_members(s, context.global, directory, contenders);
  } else {
    for (const auto& c : contenders) print_line(contender_json(c));
  }
  s.close(s.connect_timeout());
  return exit_ok;
}

}  // namespace

const command locks_command{"locks", "locks [--watch [--json] | --check-members] PATH",
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

--check-members: also lists PATH through each member of --servers on a session of its own, after a sync, and adds
to each line "listed_by" (members listing the node), "answered" (members whose listing came back), "members" (in
--servers) and "diverged": true for a node this session's member shows but a majority of members does not (after
this member, too, caught up with the leader). Such a node lives on one member only (a server bug: see
docs/design.md#diverged-member); each one is named on stderr with the number of contenders behind it, which wait for
it for good. The exit status is as above (a diverged node is reported, not an error).

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
