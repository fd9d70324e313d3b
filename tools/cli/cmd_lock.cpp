// zkwire lock [--read|--write] [--timeout SEC] [--naming curator|kazoo] [--kill-after SEC] PATH [PATH...] -- CMD
// [ARG...]

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>

#include "cli11_support.hpp"
#include "commands.hpp"
#include "errors.hpp"
#include "lock_runner.hpp"
#include "util.hpp"

namespace zkwire::cli {
namespace {

std::chrono::milliseconds milliseconds_of(double seconds) {
  return std::chrono::milliseconds(std::llround(seconds * 1000.0));
}

lock_request request_from(const std::vector<std::string>& arguments) {
  command_parser parser;
  bool read = false;
  bool write = false;
  std::optional<double> timeout;
  std::optional<double> kill_after;
  std::optional<std::int64_t> safety_margin;
  lock_request request;
  // PATH [PATH...] -- CMD [ARG...]: after the first PATH every word is positional, "--" included.
  std::vector<std::string> words;
  parser.flag("--read", read);
  parser.flag("--write", write);
  parser.seconds("--timeout", timeout);
  parser.seconds("--kill-after", kill_after);
  parser.integer("--safety-margin", safety_margin, 0, std::numeric_limits<std::int32_t>::max());
  parser.choice("--naming", request.naming, {{"curator", recipes::naming::curator}, {"kazoo", recipes::naming::kazoo}});
  parser.positionals("PATH", words);
  parser.parse(arguments);
  if (read && write) throw usage_error("--read and --write exclude each other");
  if (read) request.kind = recipes::lock_kind::read;
  if (write) request.kind = recipes::lock_kind::write;
  if (timeout) request.timeout = milliseconds_of(*timeout);
  if (kill_after) request.kill_after = milliseconds_of(*kill_after);
  if (safety_margin) request.safety_margin = std::chrono::milliseconds(*safety_margin);
  if (words.empty()) throw usage_error("missing PATH (see --help)");
  const auto separator = std::find(words.begin(), words.end(), "--");
  if (separator == words.end()) throw usage_error("expected '--' and the command after PATH");
  if (separator + 1 == words.end()) throw usage_error("missing the command after '--'");
  request.directories.assign(words.begin(), separator);
  for (const auto& path : request.directories) check_path(path);
  if (request.directories.size() > 1 && request.kind != recipes::lock_kind::exclusive) {
    throw usage_error("--read and --write take one PATH");
  }
  request.command.assign(separator + 1, words.end());
  return request;
}

int run_lock_command(const command_context& context) { return run_lock(context.global, request_from(context.args)); }

}  // namespace

const command lock_command{
    "lock",
    "lock [--read|--write] [--timeout SEC] [--naming curator|kazoo] [--kill-after SEC] PATH [PATH...] -- CMD [ARG...]",
    "run a command while holding a lock",
    R"(Takes the lock on the lock directory PATH (created as a container, with parents, when missing), runs CMD
while it is held, releases it when CMD exits and exits with CMD's status. Without --read/--write the lock is
exclusive; --read/--write take the shared read/write lock on the same directory (readers share it, a writer
excludes everyone, later readers queue behind an earlier writer).

With several PATHs: a multi-lock, the exclusive lock on every PATH, all of them or none. They are taken one
after the other in one canonical order (sorted) whatever the order given, so `lock /a /b` and `lock /b /a`
never deadlock; --timeout bounds the whole; on a timeout, a signal or an error the locks already taken are
released. Losing any of them while CMD runs is losing the lock (exit 76). ZKWIRE_LOCK_NODE and
ZKWIRE_FENCING_TOKEN then hold one line per PATH, in the sorted order (ZooKeeper paths cannot contain a
newline). --read/--write take one PATH only.

  --read              the read side of the shared lock
  --write             the write side of the shared lock
  --timeout SEC       give up after waiting SEC seconds for the lock (decimals allowed; 0 tries once);
                      default: wait forever. Connecting is bounded by --connect-timeout on its own
  --naming FORMAT     node names we create: curator (default, _c_<uuid>-lock-<seq>, __READ__/__WRIT__) or
                      kazoo (<hex>__lock__<seq> / __rlock__), so that Kazoo's Lock orders us too; the order
                      always understands every known family (Curator, Kazoo, go-zookeeper, ZooKeeper recipes)
  --kill-after SEC    when the lock is lost: SIGKILL this long after SIGTERM (default 10)
  --safety-margin MS  signal the loss this long before the server could expire the session (default: a
                      quarter of the session timeout); CMD must stop within it. 0 leaves CMD no time (tests)

CMD runs with the lock node in its environment:
  ZKWIRE_LOCK_NODE       full path of our lock node
  ZKWIRE_FENCING_TOKEN   the node's czxid (decimal): grows with every grant, so a resource that remembers the
                         highest token seen can refuse a stale holder
  ZKWIRE_SESSION_ID      our session id (hex, 0x...)
CMD inherits stdin, stdout, stderr and the descriptors zkwire was started with, runs in zkwire's process group
with default signal dispositions, and is searched on PATH. zkwire's own descriptors (the ZooKeeper connection)
are not inherited. If zkwire itself dies without ending CMD (kill -9), CMD is killed too (SIGKILL): nothing could
stop it once the session expires.

The lock is lost while CMD runs when the session expires, no server has answered for longer than the safety
margin allows (a quarter of the session timeout before the server could expire it), or our node is deleted by
someone else; zkwire then sends CMD SIGTERM, SIGKILL after --kill-after, and exits 76 (also when the loss is
noticed just as CMD ends). Signals go to CMD's process only: a shell CMD should exec its program or pass them on.

Signals to zkwire: SIGINT, SIGTERM or SIGHUP while waiting for the lock gives up, deletes our node and exits
128+N (130, 143, 129). While CMD runs they are forwarded to CMD (a Ctrl-C in a terminal reaches CMD directly as
well); the lock is held until CMD has ended, then released, and zkwire exits with CMD's status.

Revocation: `zkwire revoke NODE` (or Curator's Revoker, or setData "unlock") on our node asks us to release: zkwire
sends CMD SIGTERM once and keeps the lock until CMD has ended.

Exit status: CMD's status (128+N if it died of signal N); 75 not acquired within --timeout; 76 lock lost while CMD
ran (CMD terminated); 126 CMD cannot be executed, 127 CMD not found (the lock is released without running it);
2 usage error; 3 refused (e.g. NOAUTH on PATH); 4 no session (connect timeout, expiry while waiting, auth failed).
)",
    run_lock_command};

}  // namespace zkwire::cli
