// The open loop of `zkwire bench --rate` (tools/bench/open_loop.hpp) on a state of the test's own: a manual clock
// that only moves when a request is handed over, and sessions that complete each request on the next turn of the
// loop. What it records for each request is then exact, so the stamps can be checked to the nanosecond.

#include "open_loop.hpp"

#include <gtest/gtest.h>

#include <asio/io_context.hpp>
#include <asio/post.hpp>
#include <chrono>
#include <cstddef>
#include <system_error>
#include <vector>

namespace zkwire::bench {
namespace {

using namespace std::chrono_literals;
using clock = latency_recorder::clock;

struct recorded {
  clock::time_point intended;
  clock::time_point sent;
  clock::time_point completed;
};

// What open_loop needs of runner::state, with time under the test's control.
struct fake_state {
  struct ticker_guard {
    template <class Info>
    ticker_guard(fake_state& /*state*/, bool /*active*/, Info /*info*/) {}
  };

  run_config config;
  asio::io_context io;
  std::vector<int> sessions = std::vector<int>(2);
  // Each hand-over of a request takes this long on the manual clock.
  clock::duration hand_over = 1ms;
  clock::time_point time = clock::now();
  std::vector<recorded> records;

  [[nodiscard]] clock::time_point now() const noexcept { return time; }
  static bool may_send(std::size_t /*session*/, op_kind /*op*/) noexcept { return true; }

  template <class Done>
  void send(std::size_t /*session*/, op_kind /*op*/, Done done) {
    time += hand_over;
    asio::post(io, [done] { done(std::error_code{}); });
  }

  template <class Done>
  void run_until(Done done) {
    io.restart();
    while (!done()) io.run_one();
  }

  void record(std::vector<latency_recorder>* /*recorders*/, std::size_t /*mix_size*/, std::size_t /*slot*/,
              clock::time_point intended, clock::time_point sent, clock::time_point completed, std::error_code ec) {
    EXPECT_FALSE(ec);
    records.push_back({intended, sent, completed});
  }
};

// A burst: every request is due before the first is handed over, and the hand-overs take 1 ms each. Each request's
// uncorrected latency starts at its own hand-over, not at the burst's start: a stamp taken once per burst would
// charge the later requests with the earlier ones' hand-overs.
TEST(open_loop, EachRequestIsStampedAtItsOwnSend) {
  fake_state s;
  s.config.rate = 1e9;  // one request per nanosecond
  s.config.ops = 10;
  const std::vector<mix_entry> mix{mix_entry{}};
  op_report report;
  std::vector<latency_recorder> recorders;
  recorders.emplace_back(report, s.time, true, false);
  const auto started = s.time;

  open_loop<fake_state> loop(s, mix, recorders);
  s.time += 10ns;  // all ten are due when the loop starts
  const auto burst = s.time;
  loop.run();

  ASSERT_EQ(s.records.size(), 10U);
  EXPECT_EQ(loop.total(), 10U);
  EXPECT_EQ(loop.skipped(), 0U);
  for (std::size_t k = 0; k < s.records.size(); ++k) {
    const auto& r = s.records[k];
    // Due at its place in the schedule, whenever it was sent.
    EXPECT_EQ(r.intended, started + std::chrono::nanoseconds(k)) << "request " << k;
    // Sent once the k requests before it were handed over (the clock moves during its own hand-over, after).
    EXPECT_EQ(r.sent, burst + k * s.hand_over) << "request " << k;
    // Completed after the whole burst was handed over.
    EXPECT_EQ(r.completed, burst + 10 * s.hand_over) << "request " << k;
  }
}

}  // namespace
}  // namespace zkwire::bench
