// ZooKeeper's client guarantees over thousands of seeded fault schedules (docs/simulation.md#client-guarantees):
// three processes drive their real zkwire clients on three register paths (guarantee_workload.hpp) under the same
// faults as the lock schedules (fault_schedule.hpp), against a standalone server (even seeds) or a 3-member ensemble
// whose followers lag (odd seeds); the history checker judges each schedule's whole history. A failing seed prints the
// violation with the operations involved and the command that replays it; replaying prints the trace too.
//
//   ZKWIRE_SIM_GUARANTEE_SEED=N   replay one seed: its trace, the checker's figures and verdict
//   ZKWIRE_SIM_SCHEDULES=N        how many schedules; without it ZKWIRE_SIM_GUARANTEE_SCHEDULES, which ctest sets
//                                 (CMake variable ZKWIRE_SIM_GUARANTEE_SCHEDULES), else 1000
//   ZKWIRE_SIM_FIRST_SEED=N       the first seed of the range

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>

#include "fault_schedule.hpp"
#include "guarantee_workload.hpp"
#include "world.hpp"

namespace zkwire::sim {
namespace {

struct schedule_result {
  std::optional<std::string> violation;
  history::report report;
  std::size_t watched = 0;  // gets that set a watch and were answered
  std::string trace;
  std::string history;  // every operation described (for the replay check)
};

schedule_result run_schedule_once(std::uint64_t seed, bool trace_frames, bool keep_history) {
  auto random = schedule_random(seed);
  world w(schedule_world(seed, trace_frames, random));
  guarantee_workload load(w, seed);
  if (ensemble_seed(seed)) w.log().add(w.now(), "ensemble of 3 members");
  fault_schedule faults(w);
  faults.plan(random);
  schedule_result result;
  result.violation = drive(w, load);
  if (result.violation && load.report().operations == 0) {
    // drive() gave up before the end (a hang): judge the history so far too, requests without an answer included.
    load.check_end();
    if (!load.report().passed()) {
      *result.violation += cat("\nthe history so far: ", load.report().summary(), "\n", load.report().details());
    }
  }
  result.report = load.report();
  for (const auto& op : load.record().ops) {
    if (op.kind == history::op_kind::get && op.watch && op.ok()) ++result.watched;
    if (keep_history) result.history += history::describe(op) + "\n";
  }
  if (result.violation || trace_frames) result.trace = w.log().text();
  return result;
}

schedule_result run_schedule(std::uint64_t seed, bool trace_frames = false, bool keep_history = false) {
  try {
    return run_schedule_once(seed, trace_frames, keep_history);
  } catch (const std::exception& e) {  // the driver's livelock guard, or the code under test threw
    schedule_result failed;
    failed.violation = cat("exception: ", e.what());
    failed.trace = "(replay the seed for the trace)";
    return failed;
  }
}

TEST(guarantee_simulation, SeededFaultSchedules) {
  if (const char* replay = std::getenv("ZKWIRE_SIM_GUARANTEE_SEED")) {
    const auto seed = std::strtoull(replay, nullptr, 10);
    const auto result = run_schedule(seed, true);
    std::printf("seed %llu: %s\n%s", static_cast<unsigned long long>(seed), result.report.summary().c_str(),
                result.trace.c_str());
    EXPECT_FALSE(result.violation) << *result.violation;
    return;
  }
  const std::uint64_t first = env_number("ZKWIRE_SIM_FIRST_SEED", 1);
  const std::uint64_t count = env_number("ZKWIRE_SIM_SCHEDULES", env_number("ZKWIRE_SIM_GUARANTEE_SCHEDULES", 1000));
  std::size_t ops = 0;
  std::size_t most_ops = 0;
  std::size_t unknown = 0;
  std::size_t events = 0;
  std::size_t watched = 0;
  std::uint64_t steps = 0;
  double checker_seconds = 0;
  double slowest_check = 0;
  for (std::uint64_t seed = first; seed < first + count; ++seed) {
    const auto result = run_schedule(seed);
    if (result.violation) {
      const auto& info = *::testing::UnitTest::GetInstance()->current_test_info();
      ADD_FAILURE() << "seed " << seed << ": " << *result.violation << "\nreplay: ZKWIRE_SIM_GUARANTEE_SEED=" << seed
                    << ' ' << ::testing::internal::GetArgvs().front() << " --gtest_filter=" << info.test_suite_name()
                    << '.' << info.name() << "\nlast lines of the trace:\n"
                    << result.trace.substr(result.trace.size() > 6000 ? result.trace.size() - 6000 : 0);
      return;
    }
    ops += result.report.operations;
    most_ops = std::max(most_ops, result.report.operations);
    unknown += result.report.unknown;
    events += result.report.events;
    watched += result.watched;
    steps += result.report.search_steps;
    checker_seconds += result.report.seconds;
    slowest_check = std::max(slowest_check, result.report.seconds);
  }
  std::printf(
      "%llu schedules (seeds %llu..%llu), no violation: %zu operations (at most %zu in one schedule), %zu without an "
      "answer, %zu watches set, %zu watch events; linearizability search %llu steps; checker %.2f s in all, %.3f s at "
      "most for one schedule\n",
      static_cast<unsigned long long>(count), static_cast<unsigned long long>(first),
      static_cast<unsigned long long>(first + count - 1), ops, most_ops, unknown, watched, events,
      static_cast<unsigned long long>(steps), checker_seconds, slowest_check);
  // Progress: a run that does little passes every check. Each schedule sends hundreds of requests, the faults leave
  // some without an answer, and watches are set and fire.
  if (count >= 10) {
    EXPECT_GE(ops, 300 * count) << "operations";
    EXPECT_GT(unknown, 0U) << "no request without an answer: the faults did not reach the requests";
    EXPECT_GE(watched, 20 * count) << "watches set";
    EXPECT_GE(events, 5 * count) << "watch events";
  }
}

// A seed's history is a pure function of its number: two runs agree operation by operation.
TEST(guarantee_simulation, SeedsReplayExactly) {
  for (std::uint64_t seed = 1; seed <= 4; ++seed) {
    const auto a = run_schedule(seed, false, true);
    const auto b = run_schedule(seed, false, true);
    ASSERT_FALSE(a.history.empty());
    EXPECT_EQ(a.history, b.history) << "seed " << seed << " ran twice gave two histories";
  }
}

}  // namespace
}  // namespace zkwire::sim
