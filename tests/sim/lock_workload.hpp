#pragma once
// The lock workload of the simulation and its oracle. Contenders (real zkwire::recipes::lock objects, several per
// simulated process) loop: acquire with a random timeout (try-once, short, long, unbounded), hold for a while,
// release; some acquires are cancelled or their lock object destroyed mid-way. The oracle checks, after every
// round of handlers:
//   - at most one holder the server still backs (state held, our node exists and is owned by our session);
//   - at most one lock object in state `held` among processes that are not paused: a holder the server no longer
//     backs must have moved to uncertain/lost before anyone else was granted (the safety-margin promise);
//   - fencing tokens strictly increase across grants;
//   - every completion handler runs exactly once;
// and at the end, once faults have stopped: every acquire completed within a bound, no node is left in the lock
// directory, no client has a pending request.

#include <cstdint>
#include <memory>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "world.hpp"
#include "zkwire/recipes/lock.hpp"

namespace zkwire::sim {

struct workload_options {
  std::size_t contenders_per_process = 2;
  std::string directory = "/locks/sim";
};

class lock_workload {
 public:
  lock_workload(world& w, std::uint64_t seed, workload_options options = {});
  lock_workload(const lock_workload&) = delete;
  lock_workload& operator=(const lock_workload&) = delete;
  lock_workload(lock_workload&&) = delete;
  lock_workload& operator=(lock_workload&&) = delete;
  ~lock_workload();

  void start();
  // No new acquires from now on; holders still release when their hold ends.
  void stop();
  // The invariants at this instant; the first violation is kept.
  void check();
  // Every contender idle and every started operation completed.
  [[nodiscard]] bool quiescent() const;
  // After quiescence: nothing left behind (orphan nodes, pending requests).
  void check_end();

  [[nodiscard]] const std::optional<std::string>& violation() const noexcept { return violation_; }
  [[nodiscard]] std::size_t grants() const noexcept { return grants_; }
  [[nodiscard]] std::string status() const;

 private:
  struct contender;
  void schedule(contender& c, sim_time delay, void (lock_workload::*action)(contender&));
  std::unique_ptr<recipes::lock> make_lock(const contender& c);
  void acquire(contender& c);
  void release(contender& c);
  void renew_session(std::size_t process);
  void fail(std::string what);
  std::uint64_t begin_op();
  bool end_op(std::uint64_t op, const char* what);

  world& world_;
  std::mt19937_64 random_;
  workload_options options_;
  std::vector<std::unique_ptr<contender>> contenders_;
  std::set<std::uint64_t> open_ops_;
  std::set<std::size_t> renewing_;  // processes starting a new session
  std::uint64_t next_op_ = 1;
  bool stopped_ = false;
  std::int64_t last_token_ = 0;
  std::size_t grants_ = 0;
  std::optional<std::string> violation_;
  std::shared_ptr<int> alive_ = std::make_shared<int>(0);  // handlers that outlive the workload see it expired
};

}  // namespace zkwire::sim
