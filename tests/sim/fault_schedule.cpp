#include "fault_schedule.hpp"

namespace zkwire::sim {

world_options schedule_world(std::uint64_t seed, bool trace_frames, std::mt19937_64& random) {
  const bool ensemble_mode = ensemble_seed(seed);
  return {.seed = seed,
          .processes = 3,
          .session_timeout = std::chrono::milliseconds(3000),
          .trace_frames = trace_frames,
          .members = ensemble_mode ? std::size_t{3} : std::size_t{1},
          .max_lag = ensemble_mode ? sim_time{static_cast<sim_time::rep>(random() % 201)} : sim_time{0}};
}

void fault_schedule::at(sim_time t, std::function<void()> fn) {
  auto e = world_.clock().make_wakeup(world_.server_executor(), std::move(fn));
  e->expires_at(world_.clock().now() + t);
  events_.push_back(std::move(e));
}

void fault_schedule::plan(std::mt19937_64& random) {
  const auto uniform = [&](double lo, double hi) { return std::uniform_real_distribution<double>(lo, hi)(random); };
  const auto ms = [&](std::int64_t lo, std::int64_t hi) {
    return sim_time{lo + static_cast<std::int64_t>(random() % static_cast<std::uint64_t>(hi - lo + 1))};
  };
  const bool ensemble_mode = world_.zk().members() > 1;
  fault_rates rates;
  rates.drop_request = uniform(0, 0.03);
  rates.drop_reply_then_reset = uniform(0, 0.05);
  rates.reset = uniform(0, 0.01);
  rates.max_latency = ms(1, 20);
  world_.net().set_faults(rates);

  // Discrete faults at seeded times.
  const std::size_t faults = random() % 4;
  for (std::size_t i = 0; i < faults; ++i) {
    const sim_time t = ms(100, 7000);
    const std::size_t p = random() % world_.processes();
    // Kinds 4 and 5 need an ensemble; a standalone schedule draws 6 in their place.
    const auto kind = random() % (ensemble_mode ? 7 : 5);
    switch (!ensemble_mode && kind == 4 ? 6 : kind) {
      case 0: {
        const sim_time length = ms(100, 5000);
        at(t, [this, p] { world_.net().partition(p, true); });
        at(t + length, [this, p] { world_.net().partition(p, false); });
        break;
      }
      case 1: {
        const sim_time length = ms(100, 5000);
        at(t, [this, p, length] { world_.pause(p, world_.now() + length); });
        break;
      }
      case 2: {
        const sim_time length = ms(100, 4000);
        at(t, [this, length] { world_.net().crash_server(world_.now() + length); });
        break;
      }
      case 4: {  // one member crashes (the leader's crash is an election: the whole ensemble is down meanwhile)
        const std::size_t member = random() % world_.zk().members();
        const sim_time length = ms(100, 4000);
        at(t, [this, member, length] { world_.net().crash_member(member, world_.now() + length); });
        break;
      }
      case 5: {  // the process loses its path to one member only
        const std::size_t member = random() % world_.zk().members();
        const sim_time length = ms(100, 5000);
        at(t, [this, p, member] { world_.net().partition(p, member, true); });
        at(t + length, [this, p, member] { world_.net().partition(p, member, false); });
        break;
      }
      case 3: {
        // The session expires the way ZooKeeper expires sessions: the server hears nothing from the process for
        // longer than the session timeout. (An expiry forced while the client is being answered would let the
        // server grant the lock before the holder could know: the case fencing tokens exist for, not the safety
        // margin's.)
        const sim_time length = sim_time{3000} + ms(500, 3000);
        at(t, [this, p] { world_.net().partition(p, true); });
        at(t + length, [this, p] { world_.net().partition(p, false); });
        break;
      }
      case 6: {
        // The authentication provider the clients use ("ext") is down and process p's connection breaks meanwhile:
        // the reconnect's credential replay fails, the client ends the session (auth_failed) and the application
        // starts a new one, while the server keeps the old session, and its lock nodes, until it expires.
        const sim_time length = ms(100, 3000);
        at(t, [this, p, length] {
          world_.zk().auth_outage(world_.now() + length);
          world_.net().reset(p);
        });
        break;
      }
      default:
        break;
    }
  }
}

}  // namespace zkwire::sim
