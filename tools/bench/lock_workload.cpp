// The lock workload of zkwire_bench_core (see workload.hpp): zkwire::recipes::lock, uncontended and handed around.
// Built with or without the recipes library; without it the workload reports itself unavailable.

#include <chrono>
#include <cstdio>
#include <functional>
#include <memory>
#include <vector>

#include "workload_state.hpp"
#include "zkwire_bench/cpu_time.hpp"

#if ZKWIRE_BENCH_HAVE_RECIPES
#include "zkwire/recipes/lock.hpp"
#endif

namespace zkwire::bench {

#if !ZKWIRE_BENCH_HAVE_RECIPES

bool lock_workload_available() noexcept { return false; }

std::vector<op_report> lock_workload::run(runner& /*r*/) {
  throw std::system_error(make_error_code(std::errc::function_not_supported),
                          "the lock workload needs the lock recipes, which this build does not have");
}

#else

bool lock_workload_available() noexcept { return true; }

namespace {

std::uint64_t since(clock::time_point start) {
  return static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(clock::now() - start).count());
}

// One lock per session and a loop over it: `cycle` asks for the lock and, once held, releases it at once.
// `uncontended`: the latency is the whole acquire+release; otherwise it is the wait until held. Handlers keep the
// loop alive (shared_from_this), so a run that stalls (no cycle completing for stall_limit, e.g. a lock that never
// wakes a waiter) can give up: the lock objects are destroyed, their pending acquires complete later with
// "cancelled" into a loop that has stopped, and the stalled cycles count as errors.
class lock_loop : public std::enable_shared_from_this<lock_loop> {
 public:
  static constexpr auto stall_limit = std::chrono::seconds(10);

  lock_loop(runner::state& s, const std::vector<std::string>& directories, bool uncontended)
      : s_(s), uncontended_(uncontended) {
    for (std::size_t i = 0; i < s.sessions.size(); ++i) {
      locks_.push_back(std::make_unique<recipes::lock>(*s.sessions[i].client, directories[i]));
    }
  }

  // Runs until `count` cycles completed (or the deadline passed), recording into `latency` when not null.
  // Returns false if it stalled (the loop is then unusable).
  bool run(std::uint64_t count, std::optional<clock::time_point> deadline, histogram* latency) {
    remaining_ = count;
    deadline_ = deadline;
    latency_ = latency;
    errors_ = 0;
    for (std::size_t i = 0; i < locks_.size(); ++i) cycle(i);
    std::uint64_t seen = completed_;
    auto last_progress = clock::now();
    asio::steady_timer watchdog(s_.io);
    bool stalled = false;
    std::function<void()> watch = [&] {
      watchdog.expires_after(std::chrono::milliseconds(500));
      watchdog.async_wait([&](std::error_code ec) {
        if (ec) return;
        if (completed_ != seen) {
          seen = completed_;
          last_progress = clock::now();
        } else if (clock::now() - last_progress >= stall_limit) {
          stalled = true;
          return;
        }
        watch();
      });
    };
    watch();
    s_.run_until([&] { return active_ == 0 || stalled; });
    watchdog.cancel();
    s_.io.poll();
    if (stalled) {
      std::fprintf(stderr, "zkwire: bench: lock: no lock cycle completed for %lld s; giving up on %llu\n",
                   static_cast<long long>(stall_limit.count()), static_cast<unsigned long long>(active_));
      errors_ += active_;
      stopped_ = true;
      locks_.clear();
    }
    return !stalled;
  }

  [[nodiscard]] std::uint64_t errors() const noexcept { return errors_; }

 private:
  void cycle(std::size_t i) {
    if (stopped_ || (deadline_ ? clock::now() >= *deadline_ : remaining_ == 0)) return;
    if (!deadline_) --remaining_;
    ++active_;
    const auto start = clock::now();
    locks_[i]->async_acquire([self = shared_from_this(), i, start](std::error_code ec) {
      if (self->stopped_) return;
      if (ec) {
        self->finish(i, false);
        return;
      }
      if (!self->uncontended_ && self->latency_ != nullptr) self->latency_->record(since(start));
      self->locks_[i]->async_release([self, i, start](std::error_code release_error) {
        if (self->stopped_) return;
        if (!release_error && self->uncontended_ && self->latency_ != nullptr) self->latency_->record(since(start));
        self->finish(i, !release_error);
      });
    });
  }

  void finish(std::size_t i, bool ok) {
    --active_;
    ++completed_;
    if (!ok) {
      ++errors_;
      return;  // this contender stops: retrying a failing lock object at once would only spin
    }
    cycle(i);
  }

  runner::state& s_;
  bool uncontended_;
  bool stopped_ = false;
  std::vector<std::unique_ptr<recipes::lock> > locks_;
  std::uint64_t remaining_ = 0;
  std::optional<clock::time_point> deadline_;
  histogram* latency_ = nullptr;
  std::uint64_t active_ = 0;
  std::uint64_t completed_ = 0;
  std::uint64_t errors_ = 0;
};

op_report measure(runner::state& s, const std::string& name, lock_loop& loop) {
  const auto& cfg = s.config;
  op_report report;
  if (cfg.warmup > 0 && !loop.run(cfg.warmup, std::nullopt, nullptr)) {
    report.op = name;
    report.server = cfg.servers;
    report.errors = loop.errors();
    return report;
  }
  report.op = name;
  report.server = cfg.servers;
  report.clients = cfg.clients;
  report.window = 1;
  cpu_meter meter;
  std::optional<clock::time_point> deadline;
  if (cfg.duration.count() > 0) deadline = clock::now() + cfg.duration;
  loop.run(cfg.ops, deadline, &report.latency);
  meter.stop();
  report.errors = loop.errors();
  report.elapsed_ns = meter.elapsed_ns();
  report.cpu_ns = meter.cpu_ns();
  return report;
}

}  // namespace

std::vector<op_report> lock_workload::run(runner& r) {
  runner::state& s = state_of(r);
  std::vector<op_report> reports;
  std::vector<std::string> own;
  for (std::size_t i = 0; i < s.sessions.size(); ++i) own.push_back(numbered(s.scratch, 'l', i));
  {
    auto loop = std::make_shared<lock_loop>(s, own, true);
    reports.push_back(measure(s, "lock", *loop));
  }
  if (s.sessions.size() >= 2) {
    const std::vector<std::string> shared(s.sessions.size(), s.scratch + "/h");
    auto loop = std::make_shared<lock_loop>(s, shared, false);
    reports.push_back(measure(s, "lock-handoff", *loop));
  }
  // Let the released locks' background work (if any) finish before the next workload.
  s.io.restart();
  s.io.poll();
  return reports;
}

#endif

}  // namespace zkwire::bench
