// zkwire elect [--id ID] [--naming latch|lock|kazoo] [--timeout MS] [--safety-margin MS] [--kill-after SEC] PATH --
// CMD [ARG...]: the election's leadership as what `lock`'s runner holds (lock_runner.hpp).

#include <algorithm>
#include <asio/bind_cancellation_slot.hpp>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "cli11_support.hpp"
#include "commands.hpp"
#include "errors.hpp"
#include "lock_runner.hpp"
#include "util.hpp"
#include "zkwire/recipes/election.hpp"

namespace zkwire::cli {
namespace {

using recipes::lock_state;

struct elect_request {
  std::string path;
  std::optional<std::string> id;
  recipes::election_naming naming = recipes::election_naming::latch;
  std::optional<std::chrono::milliseconds> timeout;  // empty: wait forever; 0: ask once
  std::optional<std::chrono::milliseconds> safety_margin;
  std::chrono::milliseconds kill_after{10000};
  std::vector<std::string> command;
};

elect_request elect_request_from(const std::vector<std::string>& arguments) {
  command_parser parser;
  elect_request request;
  std::optional<std::int64_t> timeout;
  std::optional<std::int64_t> safety_margin;
  std::optional<double> kill_after;
  std::vector<std::string> words;  // PATH -- CMD [ARG...]: after PATH every word is positional, "--" included
  parser.option("--id", request.id);
  parser.choice("--naming", request.naming,
                {{"latch", recipes::election_naming::latch},
                 {"lock", recipes::election_naming::lock},
                 {"kazoo", recipes::election_naming::kazoo}});
  parser.integer("--timeout", timeout, 0, std::numeric_limits<std::int32_t>::max());
  parser.integer("--safety-margin", safety_margin, 0, std::numeric_limits<std::int32_t>::max());
  parser.seconds("--kill-after", kill_after);
  parser.positionals("PATH", words);
  parser.parse(arguments);
  if (timeout) request.timeout = std::chrono::milliseconds(*timeout);
  if (safety_margin) request.safety_margin = std::chrono::milliseconds(*safety_margin);
  if (kill_after) request.kill_after = std::chrono::milliseconds(std::llround(*kill_after * 1000.0));
  if (words.empty()) throw usage_error("missing PATH (see --help)");
  const auto separator = std::find(words.begin(), words.end(), "--");
  if (separator == words.end()) throw usage_error("expected '--' and the command after PATH");
  if (separator + 1 == words.end()) throw usage_error("missing the command after '--'");
  if (separator != words.begin() + 1) throw usage_error("elect takes one PATH");
  request.path = words.front();
  check_path(request.path);
  request.command.assign(separator + 1, words.end());
  return request;
}

recipes::election_options elect_options_of(const elect_request& request) {
  recipes::election_options options;
  if (request.id) options.id = *request.id;
  options.name_format = request.naming;
  options.safety_margin = request.safety_margin;
  // A loss ends the run (exit 76): joining again would lead with a command that is still being stopped.
  options.rejoin = false;
  return options;
}

// The leadership of one participant, as the runner sees a lock: leading is `held`, a loss `lost`, leaving
// `released`. It cannot be revoked.
class held_leadership final : public held_resource {
 public:
  held_leadership(client& c, const elect_request& request) : election_(c, request.path, elect_options_of(request)) {
    election_.set_listener([this](const recipes::leadership_event& e) { on_leadership(e); });
  }

  void set_listener(recipes::lock_listener listener) override { listener_ = std::move(listener); }
  void set_revocation_handler(recipes::revocation_handler /*handler*/) override {}
  void acquire(std::chrono::milliseconds timeout, asio::cancellation_slot slot, done_handler done) override {
    election_.async_await_leadership(timeout, asio::bind_cancellation_slot(slot, std::move(done)));
  }
  void release(asio::cancellation_slot slot, done_handler done) override {
    election_.async_leave(asio::bind_cancellation_slot(slot, std::move(done)));
  }
  void wait_lost(done_handler done) override { election_.async_wait_lost(std::move(done)); }
  [[nodiscard]] lock_state state() const override {
    if (lost_) return lock_state::lost;
    switch (election_.state()) {
      case recipes::election_state::leader:
        return lock_state::held;
      case recipes::election_state::candidate:
        return lock_state::acquiring;
      case recipes::election_state::idle:
        break;
    }
    return lock_state::released;
  }
  // The leadership's node, token and session, also once it has ended (for the messages about its loss).
  [[nodiscard]] std::string node_path() const override { return node_; }
  [[nodiscard]] std::int64_t fencing_token() const override { return token_; }
  [[nodiscard]] std::int64_t session_id() const override { return session_; }
  [[nodiscard]] std::vector<std::pair<std::string, std::string>> environment() const override {
    return {{"ZKWIRE_LEADER_ID", election_.id()}};
  }

 private:
  void on_leadership(const recipes::leadership_event& e) {
    recipes::lock_event event;
    if (e.change == recipes::leadership_change::gained) {
      node_ = election_.node_path();
      token_ = e.fencing_token;
      session_ = election_.session_id();
      event = {lock_state::acquiring, lock_state::held, {}};
    } else {
      lost_ = e.reason != recipes::lock_errc::relinquished;
      event = {lock_state::held, lost_ ? lock_state::lost : lock_state::released, e.reason};
    }
    if (listener_) listener_(event);
  }

  recipes::election election_;
  recipes::lock_listener listener_;
  std::string node_;
  std::int64_t token_ = 0;
  std::int64_t session_ = 0;
  bool lost_ = false;
};

int run_elect_command(const command_context& context) {
  const elect_request request = elect_request_from(context.args);
  hold_spec spec;
  spec.name = "elect";
  spec.node_variable = "ZKWIRE_LEADER_NODE";
  spec.path = request.path;
  spec.granted = "leading";
  spec.busy = "another participant leads";
  spec.subject = "leadership";
  spec.timeout = request.timeout;
  spec.kill_after = request.kill_after;
  spec.command = request.command;
  spec.make = [&request](client& c) -> std::unique_ptr<held_resource> {
    return std::make_unique<held_leadership>(c, request);
  };
  return run_holding(context.global, spec);
}

}  // namespace

const command elect_command{
    "elect",
    "elect [--id ID] [--naming latch|lock|kazoo] [--timeout MS] [--safety-margin MS] [--kill-after SEC] PATH -- CMD "
    "[ARG...]",
    "run a command while leading an election",
    R"(Joins the leader election on PATH (created as a container, with parents, when missing) as participant ID,
runs CMD while it leads, leaves when CMD exits (our node is deleted) and exits with CMD's status. Our node's
data is ID, as Curator's LeaderLatch and LeaderSelector and Kazoo's Election store their participants' ids, so
`zkwire leader` and the peers list us.

  --id ID             our participant id (default <hostname>:<pid>)
  --naming NAMING     the node names we create, and so the peers we elect a leader with:
                      latch (default) _c_<uuid>-latch-<seq>, Curator's LeaderLatch
                      lock            _c_<uuid>-lock-<seq>, Curator's LeaderSelector (InterProcessMutex)
                      kazoo           <hex>__lock__<seq>, Kazoo's Election (Lock)
                      We lead only where that peer would lead in our place AND no participant of any
                      known naming (nor any other lock node) is ahead of ours in sequence order.
  --timeout MS        give up when not leading within MS milliseconds (exit 75, our node deleted);
                      0 asks once; default: wait as long as it takes
  --safety-margin MS  stop leading this long before the server could expire the session (default: a quarter
                      of the session timeout); CMD must have stopped within it
  --kill-after SEC    when leadership is lost: SIGKILL this long after SIGTERM (default 10)

CMD runs, once we lead, with:
  ZKWIRE_LEADER_ID       our participant id
  ZKWIRE_FENCING_TOKEN   our node's czxid (decimal), larger than any earlier leader's
  ZKWIRE_LEADER_NODE     full path of our node
  ZKWIRE_SESSION_ID      our session id (hex, 0x...)
CMD is started and supervised as `lock` does (see zkwire lock --help).

Leadership is lost while CMD runs when the session expires, no server has answered for longer than the safety
margin allows, or our node is deleted by someone else: zkwire sends CMD SIGTERM before the server could expire
the session and let another participant lead, SIGKILL after --kill-after, and exits 76. It does not join again.

Signals: SIGINT, SIGTERM or SIGHUP while waiting to lead gives up, deletes our node and exits 128+N; while CMD
runs they are forwarded to CMD, and we lead until it has ended.

Exit status: CMD's status (128+N if it died of signal N); 75 not leading within --timeout; 76 leadership lost
while CMD ran; 126 CMD cannot be executed, 127 CMD not found (we leave without running it); 2 usage error;
3 refused (e.g. NOAUTH on PATH); 4 no session (connect timeout, expiry while waiting, authentication failed).
)",
    run_elect_command};

}  // namespace zkwire::cli
