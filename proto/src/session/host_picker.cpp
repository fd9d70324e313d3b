#include "host_picker.hpp"

#include <algorithm>
#include <numeric>
#include <random>

namespace zkwire::proto::session_detail {

namespace {
std::uint64_t effective_seed(std::uint64_t seed) {
  if (seed != 0) return seed;
  std::random_device device;
  return (std::uint64_t{device()} << 32U) ^ device();
}
}  // namespace

host_picker::host_picker(std::size_t host_count, bool shuffle, std::uint64_t seed)
    : seed_(effective_seed(seed)), rng_(seed_), order_(std::max<std::size_t>(host_count, 1)) {
  std::iota(order_.begin(), order_.end(), std::size_t{0});
  if (shuffle) std::shuffle(order_.begin(), order_.end(), rng_);
}

void host_picker::reset(std::size_t host_count, bool shuffle) {
  order_.resize(std::max<std::size_t>(host_count, 1));
  std::iota(order_.begin(), order_.end(), std::size_t{0});
  if (shuffle) std::shuffle(order_.begin(), order_.end(), rng_);
  position_ = 0;
}

std::size_t host_picker::next() noexcept {
  const std::size_t host = order_[position_];
  position_ = (position_ + 1) % order_.size();
  return host;
}

std::chrono::milliseconds host_picker::jitter() {
  std::uniform_int_distribution<std::int64_t> pause(0, 1000);
  return std::chrono::milliseconds{pause(rng_)};
}

}  // namespace zkwire::proto::session_detail
