#pragma once
// The lock workload of the simulation and its oracle. Contenders (real zkwire::recipes::lock objects, several per
// simulated process) loop: acquire with a random timeout (try-once, short, long, unbounded), hold for a while,
// release; some acquires are cancelled or their lock object destroyed mid-way. Their roles:
//   exclusive  an exclusive lock on `directory`; some holds write the fenced resource with async_guarded_multi;
//   revocable  an exclusive lock on `directory` that holds until asked to release (revoke.hpp): a revoker, plain
//              client operations from a random process, lists the directory and revokes a revocable holder;
//   reader, writer  the two sides of a shared read/write lock on `rw_directory`.
// The oracle checks, after every round of handlers:
//   - among holders the server still backs (state held, our node exists and is owned by our session): at most one
//     exclusive holder per directory, and a writer only alone (readers may share);
//   - the same among lock objects in state `held` in processes that are not paused: a holder the server no longer
//     backs must have moved to uncertain/lost before anyone else was granted;
//   - such a holder has at least its safety margin left before the server may expire its session;
//   - fencing tokens strictly increase across exclusive and write grants; a reader's token exceeds every earlier
//     writer's;
//   - the fenced resource only ever sees non-decreasing tokens (a guarded write of a holder the server no longer
//     backs must fail);
//   - every completion handler runs exactly once; an acquire never times out before its time limit has passed;
// and at the end, once faults have stopped: every acquire completed within a bound, every revocation of a holder
// was honoured (else that holder holds forever: a hang), no node is left in a lock directory, no client has a
// pending request or a watch left.

#include <cstdint>
#include <memory>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "oracle_ledger.hpp"
#include "world.hpp"
#include "zkwire/recipes/lock.hpp"

namespace zkwire::sim {

struct workload_options {
  std::size_t contenders_per_process = 3;
  std::string directory = "/locks/sim";
  std::string rw_directory = "/locks/rw";
  std::string fenced = "/fenced";  // the resource guarded writes go to; data: the writer's fencing token
  // Exclusive contenders only, every acquire unbounded and undisturbed (no timeout, cancellation or destruction):
  // then each node is watched by its successor alone, and every wakeup is a release (see wakeups()).
  bool calm = false;
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
  // Nothing left behind yet (the end's cleanups run in the background after quiescence).
  [[nodiscard]] bool clean() const;

  // An operator force-unlocks: deletes the node of an exclusive holder (the first one holding from now on; another
  // process's client does it, as `zkwire` would) while the holder's path is slow by `extra` (network::slow), and
  // the holder writes the fenced resource right after, before it can hear of the deletion: the guarded write the
  // fence exists to refuse. The victim is exempt from the "one lock object held" invariant (nobody can stop a
  // holder from believing it holds while its node is deleted under it; that is what fencing is for), not from any
  // other.
  void force_unlock(sim_time extra);

  [[nodiscard]] const std::optional<std::string>& violation() const noexcept { return ledger_.violation(); }
  [[nodiscard]] std::size_t grants() const noexcept { return grants_; }
  [[nodiscard]] std::size_t releases() const noexcept { return releases_; }
  // Acquires without a time limit, and those of them granted (the others met a session end, a cancellation or
  // the destruction of their lock object).
  [[nodiscard]] std::size_t unbounded_acquires() const noexcept { return unbounded_acquires_; }
  [[nodiscard]] std::size_t unbounded_grants() const noexcept { return unbounded_grants_; }
  // What the run exercised (for the summary line): revocations honoured, guarded writes applied and refused (the
  // server's check of our node failed: lock_errc::lock_lost; each one checked to come from a holder the server no
  // longer backs), forced unlocks done.
  [[nodiscard]] std::size_t revocations() const noexcept { return revocations_; }
  [[nodiscard]] std::size_t forced_unlocks() const noexcept { return forced_.size(); }
  [[nodiscard]] std::size_t fenced_writes() const noexcept { return fenced_writes_; }
  [[nodiscard]] std::size_t fenced_refusals() const noexcept { return fenced_refusals_; }
  // The lock objects' wakeups by a watched blocker (lock::wakeups; objects replaced mid-run not counted).
  [[nodiscard]] std::uint64_t wakeups() const;
  [[nodiscard]] std::string status() const;

 private:
  struct contender;
  void schedule(contender& c, sim_time delay, void (lock_workload::*action)(contender&));
  void make_lock(contender& c);
  void acquire(contender& c);
  void granted(contender& c);
  void fenced_write(contender& c);
  void release(contender& c);
  void create_fenced();
  void revoke_tick();
  void schedule_revoker(sim_time delay);
  [[nodiscard]] bool revocable_busy() const;
  void check_holders(const std::string& directory);
  void renew_session(std::size_t process);

  world& world_;
  oracle_ledger ledger_;
  std::mt19937_64 random_;
  workload_options options_;
  std::vector<recipes::guid_source> guids_;  // one per process, seeded from the schedule: a seed names its nodes
  std::vector<std::unique_ptr<contender>> contenders_;
  std::set<std::size_t> renewing_;  // processes starting a new session
  bool stopped_ = false;
  std::int64_t last_token_ = 0;         // the newest exclusive grant's token (directory)
  std::int64_t last_rw_token_ = 0;      // the newest grant's token (rw_directory)
  std::int64_t last_writer_token_ = 0;  // the newest write grant's token (rw_directory)
  std::int64_t fenced_max_ = 0;         // the highest token the fenced resource has shown
  std::unique_ptr<wakeup> revoker_;
  std::unique_ptr<wakeup> forcer_;  // force_unlock looking for a holder
  std::size_t grants_ = 0;
  std::size_t releases_ = 0;
  std::size_t unbounded_acquires_ = 0;
  std::size_t unbounded_grants_ = 0;
  std::size_t revocations_ = 0;
  std::set<std::string> forced_;  // nodes an operator deleted under their holder
  std::size_t fenced_writes_ = 0;
  std::size_t fenced_refusals_ = 0;
  std::shared_ptr<int> alive_ = std::make_shared<int>(0);  // handlers that outlive the workload see it expired
};

}  // namespace zkwire::sim
