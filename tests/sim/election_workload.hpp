#pragma once
// Leader election in the simulation: participants (real zkwire::recipes::election objects, several per process) on
// one election directory under the shared fault schedule (fault_schedule.hpp). The seed picks the directory's naming:
// every participant with Curator LeaderLatch's, LeaderSelector's or Kazoo Election's names, or each its own (a path of
// mixed namings, where only the rule "nobody of any naming ahead" keeps zkwire's participants to one leader).
// A participant loops: joins (async_join, or async_await_leadership with a random time limit: try once, short, long,
// unbounded; some cancelled, some election objects destroyed mid-way), and when it leads, holds for 10 to 810 ms and
// then relinquishes (queues again at the back), leaves, closes or is destroyed; a candidate also leaves now and then.
// Half the leaderships write a fenced resource with async_guarded_multi. Losses by faults are the recipe's to mend: a
// joined participant joins again by itself (election_options::rejoin), with a new session after an expiry.
// Discrete faults of the workload's own (from generators of their own, so the seed's other faults stay what they
// were): in half the schedules the process of a leader pauses for 2.5 to 4 s (a GC pause: its leadership is lost by
// the safety margin or the session's expiry), and in a third an operator deletes the leader's node while the leader's
// path is slow, and the leader writes the fenced resource before it can hear of it.
//
// The oracle, after every round of handlers:
//   - at most one leader the server backs (state leader, its node exists and belongs to its session; in an ensemble
//     the leader's tree decides), and at most one participant in state leader in a process that is not paused (the
//     victim of an operator's delete is exempt from the second until it hears, as the lock workload's);
//   - a leader in an unpaused process has at least its safety margin (a quarter of the session timeout) left before
//     the server may expire its session: it is told `lost` before anyone else can lead, so two leaderships never
//     overlap beyond what a paused process cannot know;
//   - fencing tokens strictly grow from one `gained` to the next (whoever gained), and a leader's fencing_token() is
//     the one its last `gained` announced; `lost` names the leadership that ended, and `lost` with
//     lock_errc::relinquished follows only this participant's own relinquish, leave or close;
//   - the fenced resource never goes back to a lower token; a guarded write the server refuses comes from a leader it
//     no longer backs;
//   - every completion handler runs once; an await never times out before its time limit;
// progress: once the faults stop, every participant joins and one of them must lead (backed by the server) within
// `leader_bound` of virtual time; then all leave, and at the end nothing is left in the directory and no client has a
// pending request or a watch.

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "oracle_ledger.hpp"
#include "world.hpp"
#include "zkwire/recipes/election.hpp"

namespace zkwire::sim {

// Election schedules that once found a bug, replayed by election_simulation.PinnedSeeds (docs/simulation.md).
inline constexpr std::array<std::uint64_t, 0> election_pinned_seeds{};

struct election_workload_options {
  std::string directory = "/election";
  std::string fenced = "/election-fenced";  // data: the token of the leader that wrote it
  std::size_t participants_per_process = 2;
  // After the faults stop and everyone has joined, a leader backed by the server within this much virtual time
  // (docs/simulation.md#leader-election: 5.3 s at most in 10,000 schedules; a pause that outlasts the faults by up
  // to 4 s, then the session timeout, is the longest wait the schedules can make).
  sim_time leader_bound{10000};
};

// What a run did (for the summary line and the progress floors).
struct election_counts {
  std::size_t leaderships = 0;           // `gained` events
  std::size_t rejoined_leaderships = 0;  // `gained` after a loss, without the workload joining again
  std::size_t relinquishes = 0;          // async_relinquish completed without error
  std::size_t leaves = 0;                // async_leave completed without error
  std::size_t losses = 0;                // `lost` for any reason but relinquished
  std::size_t fenced_writes = 0;
  std::size_t fenced_refusals = 0;
  std::size_t forced_deletes = 0;
  std::size_t dropped_out = 0;  // participants that left the election by themselves (could not join again)
  sim_time time_to_leader{0};   // from the end of the faults to a leader backed by the server
};

class election_workload {
 public:
  election_workload(world& w, std::uint64_t seed, election_workload_options options = {});
  election_workload(const election_workload&) = delete;
  election_workload& operator=(const election_workload&) = delete;
  election_workload(election_workload&&) = delete;
  election_workload& operator=(election_workload&&) = delete;
  ~election_workload();

  void start();
  // The faults have stopped: every participant joins, one must lead within leader_bound, then all leave.
  void stop();
  void check();
  [[nodiscard]] bool quiescent() const;
  [[nodiscard]] bool clean() const;
  void check_end();

  // A long pause (`length`) of the process of a participant that leads, with time left in its leadership (looked for
  // every 100 ms until one does).
  void pause_leader(sim_time length);
  // An operator deletes the leader's node (another process's client does it) while the leader's path is slow by
  // `extra`, and the leader writes the fenced resource right after, before it can hear of the deletion.
  void delete_leader_node(sim_time extra);

  [[nodiscard]] const std::optional<std::string>& violation() const noexcept { return ledger_.violation(); }
  [[nodiscard]] const election_counts& counts() const noexcept { return counts_; }
  // "latch", "lock", "kazoo" or "mixed".
  [[nodiscard]] const std::string& naming_mode() const noexcept { return naming_mode_; }
  [[nodiscard]] std::string status() const;

 private:
  struct participant;
  void make(participant& p);
  void schedule(participant& p, sim_time delay, void (election_workload::*action)(participant&));
  void join(participant& p);
  void joined(participant& p, std::error_code ec, std::chrono::milliseconds timeout, sim_time started);
  void event(participant& p, const recipes::leadership_event& e);
  void step_down(participant& p);
  void maybe_leave(participant& p);
  void leave(participant& p);
  void fenced_write(participant& p);
  void create_fenced();
  void final_join(participant& p);
  void leave_all();
  void renew_session(std::size_t process);
  [[nodiscard]] bool backed(const participant& p) const;

  world& world_;
  oracle_ledger ledger_;
  std::mt19937_64 random_;
  election_workload_options options_;
  std::string naming_mode_;
  std::vector<recipes::guid_source> guids_;
  std::vector<std::unique_ptr<participant>> participants_;
  bool stopped_ = false;
  sim_time stopped_at_{0};
  bool leader_after_stop_ = false;
  std::int64_t last_token_ = 0;   // the newest `gained` token
  std::int64_t fenced_max_ = 0;   // the highest token the fenced resource has shown
  std::set<std::string> forced_;  // nodes an operator deleted under their leader
  std::unique_ptr<wakeup> pauser_;
  std::unique_ptr<wakeup> deleter_;
  election_counts counts_;
  std::shared_ptr<int> alive_ = std::make_shared<int>(0);
};

}  // namespace zkwire::sim
