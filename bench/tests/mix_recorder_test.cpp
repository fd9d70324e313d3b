// Unit tests of `zkwire bench --mix` parsing and picking (tools/bench/zkwire_bench/mix.hpp) and of the recorder
// behind the latency histograms and the per-second time series (recorder.hpp).

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <vector>

#include "zkwire_bench/mix.hpp"
#include "zkwire_bench/recorder.hpp"

namespace {

using namespace zkwire::bench;  // NOLINT(google-build-using-namespace): test of this namespace
using std::chrono::milliseconds;

TEST(mix, parses_operations_and_weights) {
  std::string error;
  const auto mix = parse_mix("get:80,set:15,children:5", error);
  ASSERT_TRUE(mix) << error;
  ASSERT_EQ(mix->size(), 3U);
  EXPECT_EQ((*mix)[0].op, op_kind::get);
  EXPECT_EQ((*mix)[0].weight, 80U);
  EXPECT_EQ((*mix)[1].op, op_kind::set);
  EXPECT_EQ((*mix)[2].op, op_kind::children);
  EXPECT_EQ((*mix)[2].weight, 5U);
}

TEST(mix, rejects_bad_input_saying_why) {
  for (const char* text : {"", "get", "get:", "get:0", "get:-1", "get:1.5", "get:x", "get:1000001", "frob:1", "get:1,",
                           ",get:1", "get:1,get:2", "delete:1", "lock:1", "get:1:2", "get :1"}) {
    std::string error;
    EXPECT_FALSE(parse_mix(text, error)) << text;
    EXPECT_FALSE(error.empty()) << text;
  }
}

TEST(mix, picks_by_weight) {
  const std::vector<mix_entry> mix = {{op_kind::get, 3}, {op_kind::set, 1}};
  mix_picker picker(mix);
  std::size_t counts[2] = {0, 0};
  constexpr int draws = 40000;
  for (int i = 0; i < draws; ++i) ++counts[picker.next()];
  // 40000 draws with p = 3/4: one standard deviation is 87 draws; 1000 is more than 11 of them.
  EXPECT_NEAR(static_cast<double>(counts[0]), draws * 0.75, 1000);
  EXPECT_EQ(counts[0] + counts[1], static_cast<std::size_t>(draws));

  mix_picker single({{op_kind::exists, 7}});
  for (int i = 0; i < 100; ++i) EXPECT_EQ(single.next(), 0U);
}

TEST(recorder, series_counts_every_completion_in_its_second) {
  using clock = latency_recorder::clock;
  op_report report;
  const auto t0 = clock::now();
  latency_recorder r(report, t0, true);
  // Second 0: two successes, the second one sent 4 ms after it was due.
  r.success(t0, t0, t0 + milliseconds(2));
  r.success(t0 + milliseconds(10), t0 + milliseconds(14), t0 + milliseconds(15));
  // Second 1: nothing. Second 2: a failure and a success.
  r.failure(t0 + milliseconds(2100));
  r.success(t0 + milliseconds(2200), t0 + milliseconds(2200), t0 + milliseconds(2201));
  r.close(t0 + milliseconds(2500));

  ASSERT_EQ(report.series.size(), 3U);
  EXPECT_EQ(report.series[0].second, 0U);
  EXPECT_EQ(report.series[0].count, 2U);
  EXPECT_EQ(report.series[0].errors, 0U);
  EXPECT_EQ(report.series[1].count, 0U) << "an empty second still has its row";
  EXPECT_EQ(report.series[2].count, 1U);
  EXPECT_EQ(report.series[2].errors, 1U);
  EXPECT_NEAR(report.series[2].length_s, 0.5, 1e-9);
  // Service time from the send, corrected latency from the due time.
  EXPECT_EQ(report.series[0].service_max, 2'000'000U);
  EXPECT_EQ(report.series[0].corrected_max, 5'000'000U);
  EXPECT_EQ(report.latency.count(), 3U);
  EXPECT_EQ(report.corrected.count(), 3U);
  EXPECT_EQ(report.errors, 1U);
  EXPECT_EQ(report.corrected.max(), 5'000'000U);
  EXPECT_EQ(report.latency.max(), 2'000'000U);
}

TEST(recorder, closed_loop_has_no_corrected_latency_and_series_can_be_off) {
  using clock = latency_recorder::clock;
  op_report report;
  const auto t0 = clock::now();
  latency_recorder r(report, t0, false, false);
  r.success(t0, t0, t0 + milliseconds(1));
  r.failure(t0 + milliseconds(1500));
  r.close(t0 + milliseconds(1600));
  EXPECT_EQ(report.latency.count(), 1U);
  EXPECT_EQ(report.corrected.count(), 0U);
  EXPECT_EQ(report.errors, 1U);
  EXPECT_TRUE(report.series.empty());
}

TEST(recorder, a_request_given_up_counts_its_lateness_in_the_corrected_latency_only) {
  using clock = latency_recorder::clock;
  op_report report;
  const auto t0 = clock::now();
  latency_recorder r(report, t0, true);
  r.success(t0, t0 + milliseconds(1), t0 + milliseconds(2));
  // Due at 100 ms, still held back when the run ended at 900 ms: 800 ms late and never sent.
  r.given_up(t0 + milliseconds(100), t0 + milliseconds(900));
  r.close(t0 + milliseconds(900));
  EXPECT_EQ(report.given_up, 1U);
  EXPECT_EQ(report.latency.count(), 1U) << "a request never sent has no service time";
  EXPECT_EQ(report.sent(), 1U);
  ASSERT_EQ(report.corrected.count(), 2U);
  // Within the histogram's resolution (0.8 %).
  EXPECT_NEAR(static_cast<double>(report.corrected.max()), 800e6, 800e6 * 0.01);
  ASSERT_EQ(report.series.size(), 1U);
  EXPECT_NEAR(static_cast<double>(report.series[0].corrected_max), 800e6, 800e6 * 0.01);
  EXPECT_EQ(report.series[0].count, 1U) << "the series counts completions";

  // The closed loop has no corrected latency: nothing is recorded but the count.
  op_report closed;
  latency_recorder c(closed, t0, false);
  c.given_up(t0, t0 + milliseconds(5));
  EXPECT_EQ(closed.corrected.count(), 0U);
}

}  // namespace
