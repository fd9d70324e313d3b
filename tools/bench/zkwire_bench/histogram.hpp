#pragma once
// A log-linear latency histogram in the spirit of HdrHistogram: values (nanoseconds) below 256 get a bucket each;
// above that every power of two is split into 128 equal buckets, so a reported value is within 1/128 (< 0.8 %) of
// every value counted in its bucket, at any magnitude, in a fixed array of counts (no allocation per record).
//
// Percentiles report the highest value of the bucket holding the requested rank, clamped to the exact recorded
// maximum: never lower than the true percentile, at most 0.8 % higher. Count, minimum, maximum and mean are exact.
// Values above max_trackable() (about 18 minutes) are counted in the last bucket.

#include <cstdint>
#include <vector>

namespace zkwire::bench {

class histogram {
 public:
  static constexpr unsigned sub_bucket_bits = 7;  // 128 buckets per power of two
  static constexpr std::uint64_t max_trackable() noexcept { return (std::uint64_t{1} << 40) - 1; }

  // One bucket: the values [low, high] (inclusive) and how many were counted.
  struct bucket {
    std::uint64_t low = 0;
    std::uint64_t high = 0;
    std::uint64_t count = 0;
  };

  histogram();

  void record(std::uint64_t value) noexcept { record(value, 1); }
  void record(std::uint64_t value, std::uint64_t times) noexcept;
  // Adds every count of `other`.
  void merge(const histogram& other) noexcept;
  void clear() noexcept;

  [[nodiscard]] std::uint64_t count() const noexcept { return count_; }
  [[nodiscard]] std::uint64_t min() const noexcept { return count_ == 0 ? 0 : min_; }
  [[nodiscard]] std::uint64_t max() const noexcept { return max_; }
  [[nodiscard]] double mean() const noexcept;
  // The value at `percentile` (0..100): the smallest bucket bound that at least that share of the values is at or
  // below (see above); the exact minimum for 0. 0 when empty.
  [[nodiscard]] std::uint64_t value_at_percentile(double percentile) const noexcept;

  // The non-empty buckets in increasing order.
  [[nodiscard]] std::vector<bucket> buckets() const;

  // The index of the bucket holding `value`, and the bounds of bucket `index` (exposed for tests).
  [[nodiscard]] static std::size_t index_of(std::uint64_t value) noexcept;
  [[nodiscard]] static std::uint64_t lowest_of(std::size_t index) noexcept;
  [[nodiscard]] static std::uint64_t highest_of(std::size_t index) noexcept;

 private:
  std::vector<std::uint64_t> counts_;
  std::uint64_t count_ = 0;
  std::uint64_t min_ = 0;
  std::uint64_t max_ = 0;
  long double sum_ = 0;  // exact enough for the mean of 2^40-bounded values
};

}  // namespace zkwire::bench
