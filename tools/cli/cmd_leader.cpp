// zkwire leader [--json] [--watch] PATH: an election's participants, the leader first (docs/cli.md#leader).

#include <vector>

#include "async_session.hpp"
#include "cli11_support.hpp"
#include "commands.hpp"
#include "directory_watch.hpp"
#include "errors.hpp"
#include "leader_view.hpp"
#include "util.hpp"
#include "zkwire/recipes/election.hpp"

namespace zkwire::cli {
namespace {

std::vector<recipes::participant> read_participants(async_session& s, const std::string& path) {
  return s.read<std::vector<recipes::participant>>(
      path, [&](auto handler) { recipes::async_participants(s.client(), path, std::move(handler)); });
}

int watch_leader(const global_options& global, const std::string& path, bool as_json) {
  directory_renderer render;
  render.listed = [&](async_session& s) {
    const auto participants = read_participants(s, path);
    return as_json ? participants_json(path, participants) : path + "\n" + participants_text(participants);
  };
  render.missing = [&] { return as_json ? missing_election_json(path) : path + " (does not exist)\n"; };
  return watch_directory(global, path, as_json, render);
}

int run_leader_command(const command_context& context) {
  command_parser parser;
  std::string path;
  bool watch = false;
  bool as_json = false;
  parser.flag("--watch", watch);
  parser.flag("--json", as_json);
  parser.positional("PATH", path);
  parser.parse(context.args);
  check_path(path);
  as_json = as_json || context.global.json;
  if (watch) return watch_leader(context.global, path, as_json);
  async_session s(context.global);
  s.connect();
  const auto participants = read_participants(s, path);
  if (as_json) {
    print_line(participants_json(participants));
  } else {
    write_stdout(participants_text(participants));
  }
  s.close(s.connect_timeout());
  return exit_ok;
}

}  // namespace

const command leader_command{
    "leader", "leader [--json] [--watch] PATH", "list an election's participants, the leader first",
    R"(Prints the participants of the leader election on PATH in election order, the leader first, without
joining: zkwire's (zkwire elect) and the peers' (Curator LeaderLatch and LeaderSelector, Kazoo Election),
with their ids read from their nodes. One line per participant:
  leader   host-a:4711  /svc/sched/_c_3f0c...-latch-0000000003  0x10000c1a5e40001
  waiting  host-b:4712  /svc/sched/_c_9a41...-latch-0000000004  0x10000c1a5e40002
The role is leader, waiting, or leading: a participant that the rule of its own naming puts first although
someone is ahead of it. On a path that mixes namings a peer's participant there leads as well (two leaders):
give every participant of one election the same naming. The participants are the children of every known
naming (and other lock nodes) by sequence number; other children are not listed. A snapshot.

--json (or the global --json): one object instead,
  {"leader":"host-a:4711","participants":[{"id":"host-a:4711","node":"/svc/sched/_c_...-latch-0000000003",
   "session":"0x10000c1a5e40001","leader":true},...]}
"leader" is null when nobody leads.

--watch: the listing again at every change until SIGINT or SIGTERM (then exit 0), refreshed by a child watch on
PATH (an exists watch while PATH does not exist), never by polling. With --json one object per change,
{"path":...,"exists":true|false,"leader":...,"participants":[...]}.

Exit status: 0; 1 no such PATH (NONODE; --watch waits for it instead); 3 refused (NOAUTH); 4 no session (with
--watch: the session expired or was lost).
)",
    run_leader_command};

}  // namespace zkwire::cli
