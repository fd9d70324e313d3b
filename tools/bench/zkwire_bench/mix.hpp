#pragma once
// Mixed workloads (`zkwire bench --mix get:80,set:20`): which operations, in which proportions, and the picker that
// chooses each request's operation. Pure functions.

#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "zkwire_bench/workload.hpp"

namespace zkwire::bench {

// The operations a mix may hold: get, exists, set, create, children, multi (delete needs the nodes of an earlier
// create, lock has a loop of its own).
bool mixable(op_kind op) noexcept;

// Parses "op:weight,op:weight,...": known, mixable, distinct operations with integer weights in [1, 1000000].
// On bad input returns nullopt and says why in `error` (without naming the option).
std::optional<std::vector<mix_entry>> parse_mix(std::string_view text, std::string& error);

// Chooses the slot (index into the mix) of each request at random by weight. The seed is fixed, so that a run
// repeats the same sequence. One entry: always slot 0, without drawing.
class mix_picker {
 public:
  explicit mix_picker(const std::vector<mix_entry>& mix);
  std::size_t next() noexcept;

 private:
  std::vector<std::uint64_t> cumulative_;  // running sums of the weights
  // NOLINTNEXTLINE(cert-msc32-c,cert-msc51-cpp): a fixed seed on purpose, so that runs repeat
  std::mt19937_64 random_{0x7a6b776972650001ULL};
};

}  // namespace zkwire::bench
