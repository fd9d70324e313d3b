#pragma once
// Which host to try next: the host indices shuffled once with a seeded generator (or kept in order), then
// round-robin. Also draws the reconnect jitter from the same generator, so a seed makes a whole run repeatable.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <random>
#include <vector>

namespace zkwire::proto::session_detail {

class host_picker {
 public:
  // seed 0: a random seed.
  host_picker(std::size_t host_count, bool shuffle, std::uint64_t seed);

  // The next host in the round-robin order (the first call returns the first host of the order).
  std::size_t next() noexcept;
  [[nodiscard]] std::size_t host_count() const noexcept { return order_.size(); }
  // The pause before a new round of attempts: uniformly 0..1000 ms.
  std::chrono::milliseconds jitter();
  // A new host list: a new order of 0..host_count-1 (shuffled with the same generator), from its start.
  void reset(std::size_t host_count, bool shuffle);

 private:
  std::mt19937_64 rng_;
  std::vector<std::size_t> order_;
  std::size_t position_ = 0;
};

}  // namespace zkwire::proto::session_detail
