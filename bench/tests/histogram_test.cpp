// Unit tests of the log-linear histogram behind `zkwire bench` (tools/bench/zkwire_bench/histogram.hpp).

#include <gtest/gtest.h>

#include <cstdint>
#include <random>

#include "zkwire_bench/histogram.hpp"

namespace {

using zkwire::bench::histogram;

TEST(histogram, small_values_are_exact) {
  for (std::uint64_t v = 0; v < 256; ++v) {
    EXPECT_EQ(histogram::index_of(v), v);
    EXPECT_EQ(histogram::lowest_of(v), v);
    EXPECT_EQ(histogram::highest_of(v), v);
  }
}

TEST(histogram, buckets_tile_the_range_without_gaps) {
  const std::size_t last = histogram::index_of(histogram::max_trackable());
  for (std::size_t i = 1; i <= last; ++i) {
    ASSERT_EQ(histogram::lowest_of(i), histogram::highest_of(i - 1) + 1) << i;
  }
  EXPECT_EQ(histogram::highest_of(last), histogram::max_trackable());
}

TEST(histogram, every_value_lands_in_a_bucket_within_one_128th) {
  std::mt19937_64 random(42);  // NOLINT(cert-msc32-c,cert-msc51-cpp): the same values every run, on purpose
  for (int n = 0; n < 100000; ++n) {
    const std::uint64_t v = random() >> (random() % 64);
    if (v > histogram::max_trackable()) continue;
    const auto i = histogram::index_of(v);
    ASSERT_LE(histogram::lowest_of(i), v);
    ASSERT_GE(histogram::highest_of(i), v);
    ASSERT_LE(static_cast<double>(histogram::highest_of(i) - histogram::lowest_of(i)),
              static_cast<double>(histogram::lowest_of(i)) / 128.0 + 1.0)
        << v;
  }
}

TEST(histogram, empty_reports_zero) {
  const histogram h;
  EXPECT_EQ(h.count(), 0U);
  EXPECT_EQ(h.min(), 0U);
  EXPECT_EQ(h.max(), 0U);
  EXPECT_EQ(h.mean(), 0.0);
  EXPECT_EQ(h.value_at_percentile(50), 0U);
  EXPECT_TRUE(h.buckets().empty());
}

TEST(histogram, percentiles_of_a_uniform_range_are_within_the_precision) {
  histogram h;
  for (std::uint64_t v = 1; v <= 1'000'000; ++v) h.record(v * 1000);  // 1 us .. 1 s in ns
  EXPECT_EQ(h.count(), 1'000'000U);
  EXPECT_EQ(h.min(), 1000U);
  EXPECT_EQ(h.max(), 1'000'000'000U);
  EXPECT_NEAR(h.mean(), 500'000'500.0, 1.0);
  for (const double p : {50.0, 90.0, 99.0, 99.9}) {
    const double exact = p / 100.0 * 1e9;
    const auto reported = static_cast<double>(h.value_at_percentile(p));
    EXPECT_GE(reported, exact) << p;  // never below the true percentile
    EXPECT_LE(reported, exact * (1.0 + 1.0 / 128.0)) << p;
  }
  EXPECT_EQ(h.value_at_percentile(100), h.max());
  EXPECT_EQ(h.value_at_percentile(0), h.min());
}

TEST(histogram, percentile_is_clamped_to_the_recorded_extremes) {
  histogram h;
  h.record(1'000'001);
  EXPECT_EQ(h.value_at_percentile(50), 1'000'001U);
  EXPECT_EQ(h.value_at_percentile(99.9), 1'000'001U);
}

TEST(histogram, a_few_outliers_show_only_in_the_tail) {
  histogram h;
  h.record(100'000, 990);    // 100 us
  h.record(50'000'000, 10);  // 50 ms
  EXPECT_LE(h.value_at_percentile(99), 100'000U * 129 / 128);
  EXPECT_GE(h.value_at_percentile(99.9), 50'000'000U);
}

TEST(histogram, merge_equals_recording_everything_in_one) {
  histogram a;
  histogram b;
  histogram all;
  for (std::uint64_t v = 0; v < 5000; ++v) {
    (v % 3 == 0 ? a : b).record(v * 37);
    all.record(v * 37);
  }
  a.merge(b);
  EXPECT_EQ(a.count(), all.count());
  EXPECT_EQ(a.min(), all.min());
  EXPECT_EQ(a.max(), all.max());
  EXPECT_DOUBLE_EQ(a.mean(), all.mean());
  for (const double p : {1.0, 50.0, 99.0, 99.99}) EXPECT_EQ(a.value_at_percentile(p), all.value_at_percentile(p));
  EXPECT_EQ(a.buckets().size(), all.buckets().size());
}

TEST(histogram, huge_values_go_to_the_last_bucket_and_keep_the_exact_max) {
  histogram h;
  h.record(histogram::max_trackable() * 4);
  EXPECT_EQ(h.buckets().size(), 1U);
  EXPECT_EQ(h.buckets().front().high, histogram::max_trackable());
  EXPECT_EQ(h.max(), histogram::max_trackable() * 4);
}

TEST(histogram, clear_forgets_everything) {
  histogram h;
  h.record(5, 3);
  h.clear();
  EXPECT_EQ(h.count(), 0U);
  EXPECT_TRUE(h.buckets().empty());
}

}  // namespace
