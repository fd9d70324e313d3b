#include "zkwire_bench/histogram.hpp"

#include <algorithm>
#include <bit>
#include <cmath>

namespace zkwire::bench {
namespace {

constexpr std::uint64_t sub_bucket_count = std::uint64_t{1} << histogram::sub_bucket_bits;

// Bucket index = shift * 128 + (value >> shift), where shift is how far the value must move right so that it
// fits in 8 bits with its top bit set (0 for values below 256, which index themselves).
constexpr unsigned shift_of(std::uint64_t value) noexcept {
  const auto width = static_cast<unsigned>(std::bit_width(value));
  return width <= histogram::sub_bucket_bits + 1 ? 0 : width - (histogram::sub_bucket_bits + 1);
}

constexpr unsigned shift_of_index(std::size_t index) noexcept {
  return index < 2 * sub_bucket_count ? 0 : static_cast<unsigned>(index >> histogram::sub_bucket_bits) - 1;
}

}  // namespace

std::size_t histogram::index_of(std::uint64_t value) noexcept {
  value = std::min(value, max_trackable());
  const unsigned shift = shift_of(value);
  return (std::size_t{shift} << sub_bucket_bits) + static_cast<std::size_t>(value >> shift);
}

std::uint64_t histogram::lowest_of(std::size_t index) noexcept {
  const unsigned shift = shift_of_index(index);
  return (static_cast<std::uint64_t>(index) - (std::uint64_t{shift} << sub_bucket_bits)) << shift;
}

std::uint64_t histogram::highest_of(std::size_t index) noexcept {
  return lowest_of(index) + (std::uint64_t{1} << shift_of_index(index)) - 1;
}

histogram::histogram() : counts_(index_of(max_trackable()) + 1, 0) {}

void histogram::record(std::uint64_t value, std::uint64_t times) noexcept {
  if (times == 0) return;
  counts_[index_of(value)] += times;
  min_ = count_ == 0 ? value : std::min(min_, value);
  max_ = std::max(max_, value);
  count_ += times;
  sum_ += static_cast<long double>(value) * static_cast<long double>(times);
}

void histogram::merge(const histogram& other) noexcept {
  if (other.count_ == 0) return;
  for (std::size_t i = 0; i < counts_.size(); ++i) counts_[i] += other.counts_[i];
  min_ = count_ == 0 ? other.min_ : std::min(min_, other.min_);
  max_ = std::max(max_, other.max_);
  count_ += other.count_;
  sum_ += other.sum_;
}

void histogram::clear() noexcept {
  std::fill(counts_.begin(), counts_.end(), 0);
  count_ = 0;
  min_ = 0;
  max_ = 0;
  sum_ = 0;
}

double histogram::mean() const noexcept {
  return count_ == 0 ? 0.0 : static_cast<double>(sum_ / static_cast<long double>(count_));
}

std::uint64_t histogram::value_at_percentile(double percentile) const noexcept {
  if (count_ == 0) return 0;
  percentile = std::clamp(percentile, 0.0, 100.0);
  if (percentile == 0.0) return min();  // the exact minimum, not its bucket's upper bound
  // The rank (1-based) of the requested value; at least the first value.
  const auto wanted = std::max<std::uint64_t>(
      1, static_cast<std::uint64_t>(std::ceil(percentile / 100.0 * static_cast<double>(count_))));
  std::uint64_t seen = 0;
  for (std::size_t i = 0; i < counts_.size(); ++i) {
    seen += counts_[i];
    if (seen >= wanted) return std::clamp(highest_of(i), min(), max_);
  }
  return max_;
}

std::vector<histogram::bucket> histogram::buckets() const {
  std::vector<bucket> out;
  for (std::size_t i = 0; i < counts_.size(); ++i) {
    if (counts_[i] != 0) out.push_back(bucket{lowest_of(i), highest_of(i), counts_[i]});
  }
  return out;
}

}  // namespace zkwire::bench
