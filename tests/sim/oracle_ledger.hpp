#pragma once
// What every workload's oracle keeps (lock_workload, recipe_workload): the first violation (also written to the
// trace), the operations started and not yet completed (a completion handler that runs twice is a violation), and
// the end's check of what clients and servers still hold.

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "text.hpp"
#include "world.hpp"

namespace zkwire::sim {

class oracle_ledger {
 public:
  explicit oracle_ledger(world& w) : world_(w) {}

  // Keeps the first violation.
  void fail(std::string what) {
    if (violation_) return;
    world_.log().add(world_.now(), cat("VIOLATION: ", what));
    violation_ = std::move(what);
  }
  [[nodiscard]] const std::optional<std::string>& violation() const noexcept { return violation_; }

  std::uint64_t begin_op() {
    const std::uint64_t op = next_op_++;
    open_ops_.insert(op);
    return op;
  }
  // False (and a violation) if `op` had completed already.
  bool end_op(std::uint64_t op, const char* what) {
    if (open_ops_.erase(op) == 0) {
      fail(cat(what, " completion handler ran twice (operation ", op, ")"));
      return false;
    }
    return true;
  }
  [[nodiscard]] bool ops_open() const noexcept { return !open_ops_.empty(); }

  // Every process authenticates with the "ext" scheme (replayed on every reconnect and new session), so an outage of
  // that provider ends sessions on the client side only (fault_schedule.hpp). `alive` expires with the workload.
  void authenticate_all(const std::weak_ptr<int>& alive) {
    for (std::size_t p = 0; p < world_.processes(); ++p) {
      const std::uint64_t op = begin_op();
      world_.client(p).async_add_auth("ext", cat("process", p), [this, op, alive](std::error_code) {
        if (!alive.expired()) end_op(op, "add_auth");
      });
    }
  }

  // `fn` on process p's executor after `delay` (paused with the process), for as long as the wakeup lives.
  [[nodiscard]] std::unique_ptr<wakeup> after(std::size_t p, sim_time delay, std::function<void()> fn) {
    auto w = world_.clock().make_wakeup(world_.io(p).get_executor(), std::move(fn));
    w->expires_at(world_.clock().now() + delay);
    return w;
  }

  // No client has a pending request or a watch, and no server member has a watch registered.
  [[nodiscard]] bool clients_and_servers_clean() const {
    for (std::size_t p = 0; p < world_.processes(); ++p) {
      if (world_.client(p).pending_requests() != 0 || world_.client(p).watch_count() != 0) return false;
    }
    return server_watches() == 0;
  }
  // The same, as violations.
  void check_clients_and_servers_clean() {
    for (std::size_t p = 0; p < world_.processes(); ++p) {
      if (const auto n = world_.client(p).pending_requests(); n != 0) {
        fail(cat("process ", p, " has ", n, " pending requests at the end"));
      }
      if (const auto n = world_.client(p).watch_count(); n != 0) {
        fail(cat("process ", p, " keeps ", n, " watches at the end (every lock released, every acquire over)"));
      }
    }
    // The server's side of it: a watch the client forgot (or never knew it had) still costs the server memory and
    // fires at a client that no longer cares.
    if (const auto n = server_watches(); n != 0) fail(cat(n, " watches left registered at the server"));
  }

  // For a hang's report: each process's session and what it still holds, and the nodes left in `directories`.
  [[nodiscard]] std::string status(const std::vector<std::string>& directories) const {
    std::string out;
    for (std::size_t p = 0; p < world_.processes(); ++p) {
      auto& c = world_.client(p);
      out += cat("process ", p, ": session 0x", std::hex, c.session_id(), std::dec, " ",
                 proto::session_state_name(c.state()), ", ", c.pending_requests(), " pending, ", c.watch_count(),
                 " watches\n");
    }
    for (const auto& dir : directories) {
      for (const auto& name : world_.zk().tree().children(dir)) {
        const znode* n = world_.zk().tree().find(dir + "/" + name);
        out += cat("node ", dir, "/", name, " owner 0x", std::hex, n ? n->owner : 0, std::dec, " data ",
                   n ? n->data : "", "\n");
      }
    }
    return out;
  }

 private:
  [[nodiscard]] std::size_t server_watches() const {
    std::size_t n = 0;
    for (std::size_t m = 0; m < world_.zk().members(); ++m) n += world_.zk().member(m).watches().size();
    return n;
  }

  world& world_;
  std::optional<std::string> violation_;
  std::set<std::uint64_t> open_ops_;
  std::uint64_t next_op_ = 1;
};

}  // namespace zkwire::sim
