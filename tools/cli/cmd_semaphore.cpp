// zkwire semaphore --leases N [--timeout SEC] [--kill-after SEC] PATH -- CMD [ARG...]

#include <CLI/CLI.hpp>
#include <algorithm>
#include <asio/bind_cancellation_slot.hpp>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cli11_support.hpp"
#include "commands.hpp"
#include "errors.hpp"
#include "lock_runner.hpp"
#include "util.hpp"
#include "values.hpp"
#include "zkwire/recipes/semaphore.hpp"

namespace zkwire::cli {
namespace {

struct semaphore_request {
  std::string path;
  std::int32_t leases = 0;
  std::optional<std::chrono::milliseconds> timeout;
  std::chrono::milliseconds kill_after{10000};
  std::vector<std::string> command;
};

std::chrono::milliseconds milliseconds_of(const std::string& text, std::string_view what) {
  return std::chrono::milliseconds(std::llround(parse_seconds(text, what) * 1000.0));
}

// Options and PATH go to CLI11; everything after the first "--" is the command, untouched.
semaphore_request semaphore_request_from(const std::vector<std::string>& arguments) {
  const auto separator = std::find(arguments.begin(), arguments.end(), "--");
  const std::vector<std::string> own(arguments.begin(), separator);
  CLI::App app{"", "semaphore"};
  app.set_help_flag("-h,--help");
  app.allow_extras(false);
  std::int64_t leases = 0;
  std::string timeout;
  std::string kill_after;
  std::string path;
  app.add_option("--leases", leases)
      ->required()
      ->check(CLI::Range(std::int64_t{1}, std::int64_t{std::numeric_limits<std::int32_t>::max()}));
  app.add_option("--timeout", timeout);
  app.add_option("--kill-after", kill_after);
  app.add_option("PATH", path)->required();
  parse_app(app, own);
  semaphore_request request;
  request.leases = static_cast<std::int32_t>(leases);
  if (app.count("--timeout") > 0) request.timeout = milliseconds_of(timeout, "--timeout");
  if (app.count("--kill-after") > 0) request.kill_after = milliseconds_of(kill_after, "--kill-after");
  if (separator == arguments.end()) throw usage_error("expected '--' and the command after PATH");
  if (separator + 1 == arguments.end()) throw usage_error("missing the command after '--'");
  request.path = path;
  check_path(request.path);
  request.command.assign(separator + 1, arguments.end());
  return request;
}

// One lease of a semaphore as what the runner holds. It cannot be revoked.
class held_lease final : public held_resource {
 public:
  held_lease(client& c, const semaphore_request& request) : semaphore_(c, request.path, request.leases) {}

  void set_listener(recipes::lock_listener listener) override { semaphore_.set_listener(std::move(listener)); }
  void set_revocation_handler(recipes::revocation_handler /*handler*/) override {}
  void acquire(std::chrono::milliseconds timeout, asio::cancellation_slot slot, done_handler done) override {
    semaphore_.async_acquire(timeout, asio::bind_cancellation_slot(slot, std::move(done)));
  }
  void release(asio::cancellation_slot slot, done_handler done) override {
    semaphore_.async_release(asio::bind_cancellation_slot(slot, std::move(done)));
  }
  void wait_lost(done_handler done) override { semaphore_.async_wait_lost(std::move(done)); }
  [[nodiscard]] recipes::lock_state state() const override { return semaphore_.state(); }
  [[nodiscard]] std::string node_path() const override {
    const auto paths = semaphore_.lease_paths();
    return paths.empty() ? std::string() : paths.front();
  }
  [[nodiscard]] std::int64_t fencing_token() const override { return semaphore_.fencing_token(); }
  [[nodiscard]] std::int64_t session_id() const override { return semaphore_.session_id(); }

 private:
  recipes::semaphore semaphore_;
};

int run_semaphore_command(const command_context& context) {
  const semaphore_request request = semaphore_request_from(context.args);
  hold_spec spec;
  spec.name = "semaphore";
  spec.node_variable = "ZKWIRE_LEASE_NODE";
  spec.path = request.path;
  spec.timeout = request.timeout;
  spec.kill_after = request.kill_after;
  spec.command = request.command;
  spec.make = [&request](client& c) -> std::unique_ptr<held_resource> {
    return std::make_unique<held_lease>(c, request);
  };
  return run_holding(context.global, spec);
}

}  // namespace

const command semaphore_command{
    "semaphore", "semaphore --leases N [--timeout SEC] [--kill-after SEC] PATH -- CMD [ARG...]",
    "run a command while holding a lease of a counting semaphore",
    R"(Takes one of the N leases of the counting semaphore PATH, runs CMD while it is held, returns the lease when
CMD exits and exits with CMD's status. At most N holders (of all clients using the same N) run at once. The
layout is Curator InterProcessSemaphoreV2's, so Curator processes share the semaphore: PATH/locks is a mutex
that serialises taking leases, the leases are ephemeral sequential nodes PATH/leases/_c_<uuid>-lease-<seq>
(PATH and its children are created as containers when missing).

  --leases N          the number of leases (required, at least 1)
  --timeout SEC       give up after waiting SEC seconds for a lease (decimals allowed; 0 tries once);
                      default: wait forever. Connecting is bounded by --connect-timeout on its own
  --kill-after SEC    when the lease is lost: SIGKILL this long after SIGTERM (default 10)

CMD runs with the lease in its environment:
  ZKWIRE_LEASE_NODE      full path of our lease node
  ZKWIRE_FENCING_TOKEN   the lease node's czxid (decimal)
  ZKWIRE_SESSION_ID      our session id (hex, 0x...)
The command's descriptors, process group, signals and the loss of the lease (session expiry, no server answer
within the safety margin, our node deleted) are handled as by `zkwire lock` (see zkwire lock --help).

Exit status: CMD's status (128+N if it died of signal N); 75 no lease within --timeout; 76 lease lost while CMD
ran (CMD terminated); 126 CMD cannot be executed, 127 CMD not found; 2 usage error; 3 refused (e.g. NOAUTH on
PATH); 4 no session.
)",
    run_semaphore_command};

}  // namespace zkwire::cli
