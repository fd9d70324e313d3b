#pragma once
// Internal to zkwire_bench_core: the open loop (see workload.hpp), requests sent on a fixed schedule, never waiting
// for replies, with the latency taken from each request's due time as well as from its actual send.
//
// A template over the state it drives so that a test can drive it with a clock and sessions of its own. `State`
// has, as runner::state does: `config` (a run_config), `io` (an asio::io_context), `sessions` (its size()),
// `now()`, `may_send(i, op)`, `send(i, op, done)` calling done(std::error_code) from `io`, `run_until(pred)`,
// `record(recorders, mix_size, slot, intended, sent, completed, ec)` and a `ticker_guard(state, active, info)`.

#include <algorithm>
#include <asio/steady_timer.hpp>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <system_error>
#include <vector>

#include "zkwire_bench/mix.hpp"
#include "zkwire_bench/recorder.hpp"
#include "zkwire_bench/workload.hpp"

namespace zkwire::bench {

template <class State>
class open_loop {
 public:
  using clock = latency_recorder::clock;

  open_loop(State& s, const std::vector<mix_entry>& mix, std::vector<latency_recorder>& recorders)
      : s_(s),
        mix_(mix),
        picker_(mix),
        recorders_(recorders),
        period_ns_(1e9 / s.config.rate),
        timer_(s.io),
        start_(s.now()) {
    const auto& cfg = s.config;
    if (cfg.duration.count() > 0) {
      // The requests due before the end: due(k) < deadline. An estimate, then exact on due()'s own rounding.
      deadline_ = start_ + cfg.duration;
      total_ = static_cast<std::uint64_t>(std::ceil(static_cast<double>(cfg.duration.count()) / period_ns_));
      while (total_ > 0 && due(total_ - 1) >= *deadline_) --total_;
      while (due(total_) < *deadline_) ++total_;
    } else {
      total_ = cfg.ops;
    }
  }

  void run() {
    const std::string name = mix_.size() == 1 ? std::string(op_name(mix_.front().op)) : std::string("mix");
    const typename State::ticker_guard ticker(s_, true, [this, name] {
      progress_info info;
      info.op = name;
      info.done = completed_;
      info.target = deadline_ ? 0 : total_;
      info.elapsed_s = std::chrono::duration<double>(s_.now() - start_).count();
      info.open_loop = true;
      info.outstanding = outstanding_;
      info.backlog = backlog(s_.now());
      return info;
    });
    pump();
    s_.run_until([&] { return next_ == total_ && outstanding_ == 0; });
    timer_.cancel();
    s_.io.poll();
  }

  [[nodiscard]] std::uint64_t total() const noexcept { return total_; }
  [[nodiscard]] std::uint64_t skipped() const noexcept { return skipped_; }

 private:
  [[nodiscard]] clock::time_point due(std::uint64_t k) const noexcept {
    return start_ +
           std::chrono::nanoseconds(static_cast<std::int64_t>(std::llround(static_cast<double>(k) * period_ns_)));
  }

  // Requests due by `now` and not sent yet.
  [[nodiscard]] std::uint64_t backlog(clock::time_point now) const noexcept {
    if (next_ >= total_ || now < due(next_)) return 0;
    const double since_ns =
        static_cast<double>(std::chrono::duration_cast<std::chrono::nanoseconds>(now - start_).count());
    const auto due_by_now = std::min(total_, static_cast<std::uint64_t>(since_ns / period_ns_) + 1);
    return due_by_now > next_ ? due_by_now - next_ : 0;
  }

  // Sends everything due (as far as the outstanding limit allows), then waits for the next due time, or, when the
  // limit holds requests back, for a completion.
  void pump() {
    const auto now = s_.now();
    while (next_ < total_ && due(next_) <= now && outstanding_ < s_.config.max_outstanding) send(next_++);
    if (deadline_ && now >= *deadline_ && next_ < total_) {
      // The run is over and the outstanding limit still holds these back (all were due before the end): given up,
      // each with its lateness now in the corrected latency, so that a server falling behind cannot improve the
      // corrected percentiles by leaving requests unsent.
      skipped_ += total_ - next_;
      for (; next_ < total_; ++next_) give_up(due(next_), now);
    }
    held_back_ = next_ < total_ && due(next_) <= now;
    if (held_back_ || next_ == total_ || waiting_) return;
    waiting_ = true;
    timer_.expires_at(due(next_));
    timer_.async_wait([this](std::error_code ec) {
      waiting_ = false;
      if (!ec) pump();
    });
  }

  void give_up(clock::time_point intended, clock::time_point now) {
    const std::size_t slot = picker_.next();
    recorders_[slot].given_up(intended, now);
    if (recorders_.size() > mix_.size()) recorders_.back().given_up(intended, now);
  }

  void send(std::uint64_t k) {
    const auto i = static_cast<std::size_t>(k % s_.sessions.size());
    const std::size_t slot = picker_.next();
    const op_kind op = mix_[slot].op;
    if (!s_.may_send(i, op)) {  // a delete with no node left
      ++skipped_;
      return;
    }
    const auto intended = due(k);
    ++outstanding_;
    // This request's own send time: a burst of due requests takes a while to hand over.
    const auto sent = s_.now();
    s_.send(i, op, [this, slot, intended, sent](std::error_code ec) { complete(slot, intended, sent, ec); });
  }

  void complete(std::size_t slot, clock::time_point intended, clock::time_point sent, std::error_code ec) {
    --outstanding_;
    ++completed_;
    s_.record(&recorders_, mix_.size(), slot, intended, sent, s_.now(), ec);
    if (held_back_) pump();
  }

  State& s_;
  const std::vector<mix_entry>& mix_;
  mix_picker picker_;
  std::vector<latency_recorder>& recorders_;
  double period_ns_;
  asio::steady_timer timer_;
  clock::time_point start_;
  std::optional<clock::time_point> deadline_;
  std::uint64_t total_ = 0;  // requests due during the run
  std::uint64_t next_ = 0;   // the next request to send
  std::uint64_t outstanding_ = 0;
  std::uint64_t completed_ = 0;
  std::uint64_t skipped_ = 0;
  bool held_back_ = false;  // due requests wait for the outstanding limit
  bool waiting_ = false;    // the timer is armed
};

}  // namespace zkwire::bench
