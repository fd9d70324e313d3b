#include "nemesis_faults.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <thread>
#include <utility>

#include "zkwire/recipes/member_views.hpp"

namespace zkwire::test {

using namespace std::chrono_literals;
using std::chrono::milliseconds;

nemesis_faults::nemesis_faults(zk_cluster& cluster, std::vector<proxied_cluster*> targets, std::uint64_t seed,
                               milliseconds session_timeout, std::chrono::steady_clock::time_point origin)
    : cluster_(cluster),
      targets_(std::move(targets)),
      session_timeout_(session_timeout),
      origin_(origin),
      random_(seed) {}

double nemesis_faults::seconds_since_origin() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - origin_).count();
}

void nemesis_faults::run(std::chrono::steady_clock::duration duration, const tick_function& tick,
                         const candidates_function& candidates, bool blackholes_only) {
  const auto began = std::chrono::steady_clock::now();
  const auto stop = began + duration;
  auto next_fault = began + 2s;
  while (std::chrono::steady_clock::now() < stop) {
    if (tick) tick();
    if (std::chrono::steady_clock::now() >= next_fault) {
      // The gap counts from the fault's heal: back to back, two leader pauses with a few ms between them act as one
      // pause longer than the schedule draws.
      const auto gap = inject(tick, candidates, blackholes_only);
      next_fault = std::chrono::steady_clock::now() + gap;
    }
    std::this_thread::sleep_for(20ms);
  }
}

void nemesis_faults::wait(milliseconds length, const tick_function& tick) {
  const auto until = std::chrono::steady_clock::now() + length;
  while (std::chrono::steady_clock::now() < until) {
    if (tick) tick();
    std::this_thread::sleep_for(20ms);
  }
}

milliseconds nemesis_faults::inject(const tick_function& tick, const candidates_function& candidates,
                                    bool blackholes_only) {
  const auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(random_); };
  const int kind = blackholes_only ? 0 : pick(0, 3);
  const auto t = seconds_since_origin();
  if (kind == 0) {  // blackhole one client's proxies beyond its session timeout
    // Any target, a function of the seed alone; with candidates, one of those.
    auto k = static_cast<std::size_t>(pick(0, static_cast<int>(targets_.size()) - 1));
    if (candidates) {
      const auto now = candidates();
      if (now.empty()) return 50ms;  // wait for a candidate
      k = now[k % now.size()];
    }
    const milliseconds length{session_timeout_.count() + pick(800, 1800)};
    log_ << t << " s: blackhole client " << k << " for " << length.count() << " ms\n";
    targets_[k]->add_rule("any action=blackhole");
    targets_[k]->add_rule("accept action=blackhole");
    wait(length, tick);
    targets_[k]->clear_rules();
  } else if (kind == 1 || kind == 2) {  // kill -9 a member (the leader when kind == 1) and start it again
    const auto leader = cluster_.leader_index();
    const std::size_t m = kind == 1 && leader ? *leader : static_cast<std::size_t>(pick(0, 2));
    const milliseconds down{pick(1000, 3000)};
    log_ << t << " s: kill -9 member " << m << (leader && *leader == m ? " (leader)" : "") << " for " << down.count()
         << " ms\n";
    cluster_.kill9(m);
    wait(down, tick);
    cluster_.start(m);
    if (wait_for_restarts_) {
      const auto limit = std::chrono::steady_clock::now() + 30s;
      while (!cluster_.wait_ready(m, 250ms) && std::chrono::steady_clock::now() < limit) {
        if (tick) tick();
      }
      log_ << seconds_since_origin() << " s: member " << m << " serves again\n";
    }
  } else {  // pause the leader
    const auto leader = cluster_.leader_index();
    if (!leader) return 500ms;
    // At most 1.5 s. A follower answers its clients' pings itself and tells the leader of their sessions only when
    // the leader pings it, so a paused leader last heard of a session before the pause (up to T/3 = 1 s before it,
    // when idle). On waking it expires the session at once if that and the pause add up to the session timeout,
    // though the client heard its follower answer all along: 1.95 s of a 3 s session did it
    // (docs/design.md#lock-states). Past syncLimit (2 s) the followers leave the leader; kill -9 of the leader stands
    // for that.
    const milliseconds paused{pick(500, 1500)};
    log_ << t << " s: pause leader " << *leader << " for " << paused.count() << " ms\n";
    cluster_.pause(*leader);
    wait(paused, tick);
    cluster_.resume(*leader);
  }
  ++injected_;
  return milliseconds{pick(500, 2000)};
}

std::size_t nemesis_faults::rebuild_diverged(loop_thread& loop, const std::vector<std::string>& directories) {
  // Per member, one line per directory: what it lists after a sync (or why it could not).
  const auto views = [&] {
    std::vector<std::string> out(cluster_.member_count());
    for (const auto& directory : directories) {
      auto [ec, listed] = wait_result<std::vector<recipes::member_view>>(loop, [&](auto handler) {
        recipes::async_member_views(loop.io().get_executor(), client_options_for(cluster_.connect_string()), directory,
                                    10s, std::move(handler));
      });
      for (std::size_t m = 0; m < out.size() && m < listed.size(); ++m) {
        out[m] += directory + ":";
        if (listed[m].error) out[m] += " (" + listed[m].error.message() + ")";
        for (const auto& child : listed[m].children) out[m] += " " + child;
        out[m] += "\n";
      }
    }
    return out;
  };
  const auto first = views();
  std::this_thread::sleep_for(2s);
  const auto second = views();
  for (std::size_t m = 0; m < second.size(); ++m) log_ << "member " << m << " shows, after a sync:\n" << second[m];
  if (first != second) return 0;  // still changing: not stuck on a diverged member
  const auto agreeing = [&](const std::string& view) { return std::count(second.begin(), second.end(), view); };
  if (std::none_of(second.begin(), second.end(), [&](const auto& view) { return agreeing(view) > 1; })) return 0;
  std::size_t rebuilt = 0;
  for (std::size_t m = 0; m < second.size(); ++m) {
    if (agreeing(second[m]) > 1) continue;
    log_ << "member " << m << " diverged from the other two: rebuilt from the leader\n";
    ++rebuilt;
    cluster_.kill9(m);
    std::filesystem::remove_all(cluster_.directory() / ("member" + std::to_string(m + 1)) / "data" / "version-2");
    cluster_.start(m);
    EXPECT_TRUE(cluster_.wait_ready(m, 60s)) << "member " << m << " did not come back after its rebuild";
  }
  return rebuilt;
}

void nemesis_faults::heal() {
  for (auto* p : targets_) p->clear_rules();
  for (std::size_t m = 0; m < cluster_.member_count(); ++m) {
    if (cluster_.paused(m)) cluster_.resume(m);
    if (!cluster_.running(m)) cluster_.start(m);
  }
  EXPECT_TRUE(cluster_.wait_ready(60s)) << "the ensemble did not come back";
}

}  // namespace zkwire::test
