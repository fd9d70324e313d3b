#pragma once
// Which host to try next: the host indices shuffled once with a seeded generator (or kept in order), then
// round-robin. Also draws the reconnect jitter from the same generator, so a seed makes a whole run repeatable.
//
// The generator is SplitMix64: 8 bytes of state, plenty for a shuffle and a jitter, where std::mt19937_64 would add
// 2.5 KB to every session (most of an idle client's engine).

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace zkwire::proto::session_detail {

// SplitMix64 as a UniformRandomBitGenerator.
class split_mix_64 {
 public:
  using result_type = std::uint64_t;
  explicit split_mix_64(std::uint64_t seed) noexcept : state_(seed) {}
  static constexpr result_type min() noexcept { return 0; }
  static constexpr result_type max() noexcept { return ~result_type{0}; }
  result_type operator()() noexcept {
    std::uint64_t z = state_ += 0x9e3779b97f4a7c15ULL;
    z = (z ^ (z >> 30U)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27U)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31U);
  }

 private:
  std::uint64_t state_;
};

class host_picker {
 public:
  // seed 0: a random seed.
  host_picker(std::size_t host_count, bool shuffle, std::uint64_t seed);

  // The seed in use: the one given, or the random one drawn for 0.
  [[nodiscard]] std::uint64_t seed() const noexcept { return seed_; }

  // The next host in the round-robin order (the first call returns the first host of the order).
  std::size_t next() noexcept;
  [[nodiscard]] std::size_t host_count() const noexcept { return order_.size(); }
  // The pause before a new round of attempts: uniformly 0..1000 ms.
  std::chrono::milliseconds jitter();
  // A new host list: a new order of 0..host_count-1 (shuffled with the same generator), from its start.
  void reset(std::size_t host_count, bool shuffle);

 private:
  std::uint64_t seed_;
  split_mix_64 rng_;
  std::vector<std::size_t> order_;
  std::size_t position_ = 0;
};

}  // namespace zkwire::proto::session_detail
