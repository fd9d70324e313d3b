// The other recipes (semaphore, multi-lock, lock keeper, and plain locks sharing the multi-locks' directories)
// under the same seeded faults as the lock (fault_schedule.hpp); the oracle is recipe_workload.hpp's. Fewer
// schedules than the lock's: these recipes share the lock's acquire and hold code, which the lock's schedules
// already drive through every fault, so what these add is each recipe's own promise.
//
//   ZKWIRE_SIM_RECIPE_SEED=N         replay one seed and print its trace
//   ZKWIRE_SIM_RECIPE_SCHEDULES=N    how many (default: a tenth of ZKWIRE_SIM_ENTRY_SCHEDULES, at least 10)
//   ZKWIRE_SIM_FIRST_SEED=N          the first seed (as the lock's schedules)

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>

#include "fault_schedule.hpp"
#include "recipe_workload.hpp"

namespace zkwire::sim {
namespace {

struct recipe_result {
  std::optional<std::string> violation;
  recipe_counts counts;
  std::string trace;
};

recipe_result run_recipe_schedule(std::uint64_t seed, bool trace_frames = false) {
  recipe_result result;
  try {
    auto random = schedule_random(seed);
    world w(schedule_world(seed, trace_frames, random));
    recipe_workload load(w, seed);
    if (ensemble_seed(seed)) w.log().add(w.now(), "ensemble of 3 members");
    fault_schedule faults(w);
    faults.plan(random);
    // Half the schedules also pause a process while its keeper holds (from a generator of their own, so the faults
    // above stay what the seed means), long enough to lose the lock (2.5 to 4 s; the session may expire too).
    std::mt19937_64 keeper_fault(seed ^ 0x9fb21c651e98df25ULL);
    if (keeper_fault() % 2 == 0) {
      const sim_time t{300 + static_cast<sim_time::rep>(keeper_fault() % 6000)};
      const sim_time length{2500 + static_cast<sim_time::rep>(keeper_fault() % 1500)};
      faults.at(t, [&load, length] { load.pause_keeper_holder(length); });
    }
    result.violation = drive(w, load);
    result.counts = load.counts();
    if (result.violation || trace_frames) result.trace = w.log().text();
  } catch (const std::exception& e) {  // the driver's livelock guard, or the code under test threw
    result.violation = cat("exception: ", e.what());
    result.trace = "(replay the seed for the trace)";
  }
  return result;
}

// Floors per 1,000 schedules, about half of what was measured (docs/simulation.md "Progress"): a recipe whose
// acquires mostly fail, or a keeper that never gets its lock back after a loss, fails here even if it breaks no
// safety rule.
struct recipe_floor {
  const char* what;
  std::size_t recipe_counts::*count;
  std::size_t floor;
};
constexpr recipe_floor recipe_floors[] = {
    {"semaphore grants", &recipe_counts::semaphore_grants, 3400},
    {"multi-lock grants", &recipe_counts::multi_grants, 2000},
    {"plain lock grants", &recipe_counts::plain_grants, 3800},
    {"keeper grants", &recipe_counts::keeper_grants, 1600},
    {"keeper grants again after a loss", &recipe_counts::keeper_regrants, 30},
};

TEST(recipe_simulation, SeededFaultSchedules) {
  if (const char* replay = std::getenv("ZKWIRE_SIM_RECIPE_SEED")) {
    const auto seed = std::strtoull(replay, nullptr, 10);
    const auto result = run_recipe_schedule(seed, true);
    std::printf("seed %llu\n%s", static_cast<unsigned long long>(seed), result.trace.c_str());
    EXPECT_FALSE(result.violation) << *result.violation;
    return;
  }
  const std::uint64_t first = env_number("ZKWIRE_SIM_FIRST_SEED", 1);
  const std::uint64_t count = env_number(
      "ZKWIRE_SIM_RECIPE_SCHEDULES", std::max<std::uint64_t>(10, env_number("ZKWIRE_SIM_ENTRY_SCHEDULES", 5000) / 10));
  recipe_counts total;
  for (std::uint64_t seed = first; seed < first + count; ++seed) {
    const auto r = run_recipe_schedule(seed);
    for (const auto& f : recipe_floors) total.*f.count += r.counts.*f.count;
    if (r.violation) {
      ADD_FAILURE() << "seed " << seed << ": " << *r.violation << "\nreplay: ZKWIRE_SIM_RECIPE_SEED=" << seed << ' '
                    << ::testing::internal::GetArgvs().front()
                    << " --gtest_filter=recipe_simulation.SeededFaultSchedules\nlast lines of the trace:\n"
                    << r.trace.substr(r.trace.size() > 6000 ? r.trace.size() - 6000 : 0);
      return;
    }
  }
  std::printf(
      "%llu recipe schedules: %zu semaphore, %zu multi-lock, %zu plain lock and %zu keeper grants, %zu keeper "
      "grants after a loss, no violation\n",
      static_cast<unsigned long long>(count), total.semaphore_grants, total.multi_grants, total.plain_grants,
      total.keeper_grants, total.keeper_regrants);
  if (count < 100) return;  // too few for a rate
  for (const auto& f : recipe_floors) {
    const double per_1000 = 1000.0 * static_cast<double>(total.*f.count) / static_cast<double>(count);
    EXPECT_GE(per_1000, static_cast<double>(f.floor)) << f.what << ": " << per_1000 << " per 1,000 schedules";
  }
}

TEST(recipe_simulation, PinnedSeeds) {
  for (const std::uint64_t seed : recipe_pinned_seeds) {
    const auto result = run_recipe_schedule(seed);
    EXPECT_FALSE(result.violation) << "seed " << seed << ": " << *result.violation << "\n" << result.trace;
  }
}

}  // namespace
}  // namespace zkwire::sim
