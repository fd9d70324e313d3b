#pragma once
// The seeded faults of one schedule (docs/simulation.md "Network faults"), shared by every workload: per-frame
// fault rates and up to three discrete faults at seeded times (a partition, a pause, a server crash, a session
// expiry, a member crash or a path to one member cut, an outage of the "ext" authentication provider). The
// discrete faults run on the server's executor, which is never paused.

#include <cstdint>
#include <cstdlib>
#include <functional>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "text.hpp"
#include "world.hpp"

namespace zkwire::sim {

// A number from the environment, or `fallback`.
[[nodiscard]] inline std::uint64_t env_number(const char* name, std::uint64_t fallback) {
  const char* value = std::getenv(name);
  return value ? std::strtoull(value, nullptr, 10) : fallback;
}

// Odd seeds run against a three-member ensemble whose followers lag, even seeds against a standalone server.
[[nodiscard]] inline bool ensemble_seed(std::uint64_t seed) { return seed % 2 == 1; }
// The schedule's generator, from its seed.
[[nodiscard]] inline std::mt19937_64 schedule_random(std::uint64_t seed) {
  return std::mt19937_64(seed * 0x9e3779b97f4a7c15ULL + 7);
}
// The world of one schedule: three processes, a 3 s session timeout, the mode of the seed (an ensemble's follower
// lag drawn from `random`).
[[nodiscard]] world_options schedule_world(std::uint64_t seed, bool trace_frames, std::mt19937_64& random);

class fault_schedule {
 public:
  explicit fault_schedule(world& w) : world_(w) {}

  // Draws the rates and the discrete faults from `random` (the schedule's generator; the draws' order is part of
  // what a seed means) and arms them. Ensemble faults only when the world has more than one member.
  void plan(std::mt19937_64& random);
  // Runs `fn` at `t` after now, on the server's executor.
  void at(sim_time t, std::function<void()> fn);

 private:
  world& world_;
  std::vector<std::unique_ptr<wakeup>> events_;
};

// Drives a workload (start, stop, check, quiescent, clean, check_end, violation, status) through one schedule:
// 8 virtual seconds of contention under the faults, then the faults stop, no new acquires start, and every
// operation must complete within 60 virtual seconds (else a hang); background cleanups get 30 more to leave
// nothing behind. The oracle runs after every round of handlers. Returns the first violation.
template <class Workload>
std::optional<std::string> drive(world& w, Workload& load) {
  const auto oracle = [&] { load.check(); };
  load.start();
  w.run_until(
      sim_time{8000}, [&] { return load.violation().has_value(); }, oracle);
  w.net().set_faults(fault_rates{});
  for (std::size_t p = 0; p < w.processes(); ++p) w.net().partition(p, false);
  load.stop();
  const bool settled = w.run_until(
      w.now() + sim_time{60000}, [&] { return load.quiescent() || load.violation().has_value(); }, oracle);
  if (load.violation()) return load.violation();
  if (!settled) return cat("hang: not every operation completed within 60 s after the faults stopped\n", load.status());
  w.run_until(
      w.now() + sim_time{30000}, [&] { return load.clean(); }, oracle);
  load.check_end();
  return load.violation();
}

}  // namespace zkwire::sim
