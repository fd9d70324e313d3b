#pragma once
// What every workload's oracle keeps (lock_workload, recipe_workload): the first violation (also written to the
// trace), the operations started and not yet completed (a completion handler that runs twice is a violation), and
// the end's check of what clients and servers still hold.

#include <cstdint>
#include <optional>
#include <set>
#include <string>

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
