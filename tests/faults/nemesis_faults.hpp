#pragma once
// The nemesis's faults on a real 3-member ensemble (docs/simulation.md#nemesis), shared by the lock nemesis
// (nemesis_test.cpp) and the guarantee run (guarantees_test.cpp): one fault at a time, drawn from a seed, each healed
// before a gap of 0.5 to 2 s (counted from the heal) and the next one:
//   - a client's proxies blackholed (every connection, new ones too) for 0.8 to 1.8 s beyond its session timeout,
//     so that its session expires;
//   - a member killed with SIGKILL (the leader, or any member) and started again 1 to 3 s later;
//   - the leader paused (SIGSTOP) for 0.5 to 1.5 s. At most 1.5 s: a paused leader, on waking, expires a session it
//     last heard of before the pause even though the session's follower answered it all along
//     (docs/design.md#lock-states); kill -9 of the leader stands for a leader that goes away for good.
// The draws come from the seed alone, so a replay repeats the faults (not every interleaving: the processes'
// timing is the machine's). Every fault and heal is written to log(), with its time on the run's clock.
//
// Thread safety: none; use it from the test's thread. The proxies it blackholes are thread-safe.

#include <chrono>
#include <cstdint>
#include <functional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "chaos_support.hpp"
#include "support/zk_cluster.hpp"

namespace zkwire::test {

class nemesis_faults {
 public:
  // `targets`: each client's proxies (a proxied_cluster per client; a blackhole silences one client). `origin`: the
  // run's time 0, which the log's times count from.
  nemesis_faults(zk_cluster& cluster, std::vector<proxied_cluster*> targets, std::uint64_t seed,
                 std::chrono::milliseconds session_timeout, std::chrono::steady_clock::time_point origin);

  // Called every 20 ms while faults run and heal (the nemesis starts its next contenders from it).
  using tick_function = std::function<void()>;
  // The targets a blackhole may pick now; empty: none yet (the fault waits 50 ms and is drawn again). Without one,
  // any target, by the seed alone.
  using candidates_function = std::function<std::vector<std::size_t>()>;

  // Injects faults, one at a time, for `duration` (the first after 2 s), then returns with the last one healed.
  // `blackholes_only`: no server faults (MarginZeroIsUnsafe blackholes holders only).
  void run(std::chrono::steady_clock::duration duration, const tick_function& tick,
           const candidates_function& candidates = {}, bool blackholes_only = false);
  // Clears every proxy rule, resumes paused members, starts stopped ones, and waits for the ensemble (a test
  // failure if it does not come back within 60 s).
  void heal();

  // Clients stuck after the heal: is a member's tree different from the others'? Debian's ZooKeeper 3.8.0 can come out
  // of kill -9s and restarts with one member keeping a node the others deleted (docs/design.md#diverged-member); a
  // contender connected to it waits on that node for good, whatever the client does. Lists `directories` through
  // each member after a sync (recipes::async_member_views) twice, 2 s apart (a change in between shows on all alike),
  // writes what each member shows to log(), and rebuilds a member whose view differs from the other two's (its data
  // removed, then started: it syncs from the leader), as an operator would. Returns how many it rebuilt. `loop`:
  // where the listing clients run.
  std::size_t rebuild_diverged(loop_thread& loop, const std::vector<std::string>& directories);

  // After a kill -9, wait until the restarted member serves clients again (it finished its synchronisation with the
  // leader) before the gap to the next fault; `tick` keeps being called. Debian's ZooKeeper 3.8.0 loses acknowledged
  // writes when the leader dies while a restarted follower is still in its synchronisation and that follower later
  // leads (docs/testing.md#guarantees): the guarantee run, which judges every acknowledged write, waits; the lock
  // nemesis does not (its faults stay as they were).
  void wait_for_restarted_members(bool wait) noexcept { wait_for_restarts_ = wait; }

  // What happened, a line per fault with its time in seconds since the origin.
  std::ostringstream& log() noexcept { return log_; }
  [[nodiscard]] double seconds_since_origin() const;
  [[nodiscard]] std::size_t injected() const noexcept { return injected_; }

 private:
  // Injects one fault and heals it; returns the pause before the next one.
  std::chrono::milliseconds inject(const tick_function& tick, const candidates_function& candidates,
                                   bool blackholes_only);
  void wait(std::chrono::milliseconds length, const tick_function& tick);

  zk_cluster& cluster_;
  std::vector<proxied_cluster*> targets_;
  std::chrono::milliseconds session_timeout_;
  std::chrono::steady_clock::time_point origin_;
  std::mt19937_64 random_;  // the schedule of faults: drawn from the seed alone
  std::ostringstream log_;
  std::size_t injected_ = 0;
  bool wait_for_restarts_ = false;
};

}  // namespace zkwire::test
