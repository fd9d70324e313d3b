// Thousands of seeded fault schedules: the real zkwire client and lock recipes against the simulated server,
// network and clock. Each seed decides the workload's choices and the faults (lost requests, lost replies with a
// reset after the server applied the request, resets, partitions, process pauses, a server crash, session expiry,
// an authentication outage that ends a client's session while the server keeps it);
// the oracle (lock_workload.hpp) checks every step. A failing seed prints the command that replays it; replaying
// prints the trace (faults, connections, acquires and releases with their virtual times).
//
//   ZKWIRE_SIM_SEED=N         replay one seed and print its trace
//   ZKWIRE_SIM_SCHEDULES=N    how many schedules (more for a soak); without it ZKWIRE_SIM_ENTRY_SCHEDULES, which
//                             ctest sets from the CMake variable of that name (default 5000 per entry), else 5000
//   ZKWIRE_SIM_FIRST_SEED=N   the first seed of the range (ctest runs two ranges side by side)
//   ZKWIRE_SIM_ONLY=standalone|ensemble   run only the seeds of one mode (odd seeds run against an ensemble)

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>

#include "lock_workload.hpp"
#include "world.hpp"

namespace zkwire::sim {
namespace {

std::uint64_t env_number(const char* name, std::uint64_t fallback) {
  const char* value = std::getenv(name);
  return value ? std::strtoull(value, nullptr, 10) : fallback;
}

struct schedule_result {
  std::optional<std::string> violation;
  std::size_t grants = 0;
  std::size_t revocations = 0;
  std::size_t fenced_writes = 0;
  std::size_t fenced_refusals = 0;
  std::string trace;
};

// One schedule: 8 virtual seconds of contention under faults, then the faults stop and everything must settle.
// Odd seeds run against a three-member ensemble whose followers lag, even seeds against a standalone server.
bool ensemble_seed(std::uint64_t seed) { return seed % 2 == 1; }

schedule_result run_schedule_once(std::uint64_t seed, bool trace_frames) {
  std::mt19937_64 random(seed * 0x9e3779b97f4a7c15ULL + 7);
  const auto uniform = [&](double lo, double hi) { return std::uniform_real_distribution<double>(lo, hi)(random); };
  const auto ms = [&](std::int64_t lo, std::int64_t hi) {
    return sim_time{lo + static_cast<std::int64_t>(random() % static_cast<std::uint64_t>(hi - lo + 1))};
  };
  const bool ensemble_mode = ensemble_seed(seed);
  world w({.seed = seed,
           .processes = 3,
           .session_timeout = std::chrono::milliseconds(3000),
           .trace_frames = trace_frames,
           .members = ensemble_mode ? std::size_t{3} : std::size_t{1},
           .max_lag = ensemble_mode ? ms(0, 200) : sim_time{0}});
  lock_workload load(w, seed);
  if (ensemble_mode) w.log().add(w.now(), "ensemble of 3 members");

  fault_rates rates;
  rates.drop_request = uniform(0, 0.03);
  rates.drop_reply_then_reset = uniform(0, 0.05);
  rates.reset = uniform(0, 0.01);
  rates.max_latency = ms(1, 20);
  w.net().set_faults(rates);

  // Discrete faults at seeded times, on the server's executor (never paused).
  std::vector<std::unique_ptr<wakeup>> events;
  const auto at = [&](sim_time t, std::function<void()> fn) {
    auto e = w.clock().make_wakeup(w.server_executor(), std::move(fn));
    e->expires_at(w.clock().now() + t);
    events.push_back(std::move(e));
  };
  const std::size_t faults = random() % 4;
  for (std::size_t i = 0; i < faults; ++i) {
    const sim_time t = ms(100, 7000);
    const std::size_t p = random() % w.processes();
    // Kinds 4 and 5 need an ensemble; a standalone schedule draws 6 in their place.
    const auto kind = random() % (ensemble_mode ? 7 : 5);
    switch (!ensemble_mode && kind == 4 ? 6 : kind) {
      case 0: {
        const sim_time length = ms(100, 5000);
        at(t, [&w, p] { w.net().partition(p, true); });
        at(t + length, [&w, p] { w.net().partition(p, false); });
        break;
      }
      case 1: {
        const sim_time length = ms(100, 5000);
        at(t, [&w, p, length] { w.pause(p, w.now() + length); });
        break;
      }
      case 2: {
        const sim_time length = ms(100, 4000);
        at(t, [&w, length] { w.net().crash_server(w.now() + length); });
        break;
      }
      case 4: {  // one member crashes (the leader's crash is an election: the whole ensemble is down meanwhile)
        const std::size_t member = random() % w.zk().members();
        const sim_time length = ms(100, 4000);
        at(t, [&w, member, length] { w.net().crash_member(member, w.now() + length); });
        break;
      }
      case 5: {  // the process loses its path to one member only
        const std::size_t member = random() % w.zk().members();
        const sim_time length = ms(100, 5000);
        at(t, [&w, p, member] { w.net().partition(p, member, true); });
        at(t + length, [&w, p, member] { w.net().partition(p, member, false); });
        break;
      }
      case 3: {
        // The session expires the way ZooKeeper expires sessions: the server hears nothing from the process for
        // longer than the session timeout. (An expiry forced while the client is being answered would let the
        // server grant the lock before the holder could know: the case fencing tokens exist for, not the safety
        // margin's.)
        const sim_time length = sim_time{3000} + ms(500, 3000);
        at(t, [&w, p] { w.net().partition(p, true); });
        at(t + length, [&w, p] { w.net().partition(p, false); });
        break;
      }
      case 6: {
        // The authentication provider the clients use ("ext") is down and process p's connection breaks meanwhile:
        // the reconnect's credential replay fails, the client ends the session (auth_failed) and the application
        // starts a new one, while the server keeps the old session, and its lock nodes, until it expires.
        const sim_time length = ms(100, 3000);
        at(t, [&w, p, length] {
          w.zk().auth_outage(w.now() + length);
          w.net().reset(p);
        });
        break;
      }
      default:
        break;
    }
  }

  const auto oracle = [&] { load.check(); };
  load.start();
  w.run_until(
      sim_time{8000}, [&] { return load.violation().has_value(); }, oracle);
  // Faults stop; no new acquires. Every acquire must complete and every holder release within the bound.
  w.net().set_faults(fault_rates{});
  for (std::size_t p = 0; p < w.processes(); ++p) w.net().partition(p, false);
  load.stop();
  const bool settled = w.run_until(
      w.now() + sim_time{60000}, [&] { return load.quiescent() || load.violation().has_value(); }, oracle);
  schedule_result result;
  if (!settled && !load.violation()) {
    result.violation = cat("hang: not every operation completed within 60 s after the faults stopped\n", load.status());
  }
  if (!result.violation && !load.violation()) {
    // Background cleanups (deletes of abandoned nodes, removals of abandoned watches) finish once the clients have
    // reconnected: give them 30 virtual seconds to leave nothing behind, then check.
    const auto clean = [&] { return load.clean(); };
    w.run_until(w.now() + sim_time{30000}, clean, oracle);
    load.check_end();
  }
  if (!result.violation) result.violation = load.violation();
  result.grants = load.grants();
  result.revocations = load.revocations();
  result.fenced_writes = load.fenced_writes();
  result.fenced_refusals = load.fenced_refusals();
  if (result.violation || trace_frames) result.trace = w.log().text();
  return result;
}

schedule_result run_schedule(std::uint64_t seed, bool trace_frames = false) {
  try {
    return run_schedule_once(seed, trace_frames);
  } catch (const std::exception& e) {  // the driver's livelock guard, or the code under test threw
    schedule_result failed;
    failed.violation = cat("exception: ", e.what());
    failed.trace = "(replay the seed for the trace)";
    return failed;
  }
}

TEST(lock_simulation, SeededFaultSchedules) {
  if (const char* replay = std::getenv("ZKWIRE_SIM_SEED")) {
    const auto seed = std::strtoull(replay, nullptr, 10);
    const auto result = run_schedule(seed, true);
    std::printf("seed %llu: %zu grants\n%s", static_cast<unsigned long long>(seed), result.grants,
                result.trace.c_str());
    EXPECT_FALSE(result.violation) << *result.violation;
    return;
  }
  const std::uint64_t first = env_number("ZKWIRE_SIM_FIRST_SEED", 1);
  const std::uint64_t count = env_number("ZKWIRE_SIM_SCHEDULES", env_number("ZKWIRE_SIM_ENTRY_SCHEDULES", 5000));
  std::size_t grants = 0;
  std::size_t revocations = 0;
  std::size_t fenced_writes = 0;
  std::size_t fenced_refusals = 0;
  std::size_t ensembles = 0;
  std::size_t ran = 0;
  const std::string only = std::getenv("ZKWIRE_SIM_ONLY") ? std::getenv("ZKWIRE_SIM_ONLY") : "";
  for (std::uint64_t seed = first; seed < first + count; ++seed) {
    if ((only == "standalone" && ensemble_seed(seed)) || (only == "ensemble" && !ensemble_seed(seed))) continue;
    const auto result = run_schedule(seed);
    ++ran;
    grants += result.grants;
    revocations += result.revocations;
    fenced_writes += result.fenced_writes;
    fenced_refusals += result.fenced_refusals;
    ensembles += ensemble_seed(seed) ? std::size_t{1} : std::size_t{0};
    if (result.violation) {
      const auto& info = *::testing::UnitTest::GetInstance()->current_test_info();
      ADD_FAILURE() << "seed " << seed << ": " << *result.violation << "\nreplay: ZKWIRE_SIM_SEED=" << seed << ' '
                    << ::testing::internal::GetArgvs().front() << " --gtest_filter=" << info.test_suite_name() << '.'
                    << info.name() << "\nlast lines of the trace:\n"
                    << result.trace.substr(result.trace.size() > 6000 ? result.trace.size() - 6000 : 0);
      return;
    }
  }
  std::printf(
      "%llu schedules (%zu against an ensemble), %zu grants, %zu revocations honoured, %zu guarded writes applied and "
      "%zu refused, no violation (seeds %llu..%llu)\n",
      static_cast<unsigned long long>(ran), ensembles, grants, revocations, fenced_writes, fenced_refusals,
      static_cast<unsigned long long>(first), static_cast<unsigned long long>(first + count - 1));
}

// Seeds that once found a bug, replayed on every run (the schedule of a seed changes when the workload or the fault
// schedule does; the bug's description says what to look for then).
//   12  an outage of the authentication provider ends process 0's session on the client side (auth_failed) while
//       the server keeps it; the application starts a new session. A reader waiting on a watch was woken by that
//       watch's final delivery, listed the directory on the NEW session, found its node (still alive: the old
//       session had not expired yet) and was granted on it: held on a session the client had given up, which the
//       server expired 3 s later (the safety-margin oracle saw it held with 578 ms left). Fixed in acquire.cpp:
//       a waiter's acquire ends with the session's end that its watch reports.
//   1036 a reader's create (its last release had left the directory quiet: the reply alone proves it holds) was
//       answered, its listing lost with the connection; the process then paused past its session timeout, the
//       server expired the session, and two writers held in turn. After the pause the listing failed and the
//       create's reply, read 5 s earlier, still granted the reader: a hold already lost, token 49 after 58. Fixed
//       in acquire.cpp: a grant needs a connected client and answers within the safety margin, else it lists again
//       (hold_monitor::may_grant_now).
TEST(lock_simulation, PinnedSeeds) {
  for (const std::uint64_t seed : {std::uint64_t{12}, std::uint64_t{1036}}) {
    const auto result = run_schedule(seed);
    EXPECT_FALSE(result.violation) << "seed " << seed << ": " << *result.violation << "\n" << result.trace;
  }
}

// No herd: with every acquire unbounded and no faults, a waiter watches only its predecessor, so a release wakes
// one waiter at most and the wakeups cannot outnumber the grants (each grant's release deletes one node, the only
// change a watched node sees). A waiter watching anything else (the lowest node, the directory) wakes on releases
// that are not its predecessor's.
TEST(lock_simulation, OneWakeupPerRelease) {
  std::size_t grants = 0;
  std::uint64_t wakeups = 0;
  for (std::uint64_t seed = 1; seed <= 40; ++seed) {
    const bool ensemble_mode = ensemble_seed(seed);
    world w({.seed = seed,
             .processes = 4,
             .session_timeout = std::chrono::milliseconds(3000),
             .members = ensemble_mode ? std::size_t{3} : std::size_t{1},
             .max_lag = ensemble_mode ? sim_time{100} : sim_time{0}});
    lock_workload load(w, seed, {.contenders_per_process = 2, .calm = true});
    load.start();
    const auto oracle = [&] { load.check(); };
    w.run_until(
        sim_time{4000}, [&] { return load.violation().has_value(); }, oracle);
    load.stop();
    const bool settled = w.run_until(
        w.now() + sim_time{60000}, [&] { return load.quiescent() || load.violation().has_value(); }, oracle);
    ASSERT_TRUE(settled) << "seed " << seed << ": not every operation completed\n" << load.status();
    ASSERT_FALSE(load.violation()) << "seed " << seed << ": " << *load.violation() << "\n" << w.log().text();
    ASSERT_GT(load.grants(), 8U) << "seed " << seed;
    EXPECT_LE(load.wakeups(), load.grants())
        << "seed " << seed << ": " << load.wakeups() << " wakeups for " << load.grants() << " releases (a herd)\n"
        << w.log().text();
    if (::testing::Test::HasFailure()) return;
    grants += load.grants();
    wakeups += load.wakeups();
  }
  std::printf("40 calm schedules: %zu grants, %llu wakeups\n", grants, static_cast<unsigned long long>(wakeups));
}

}  // namespace
}  // namespace zkwire::sim
