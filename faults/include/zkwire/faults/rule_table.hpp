#pragma once
// The proxy's rules in the order they were added, with their counters and the seeded random source behind p=.
//
// For each frame, rules are tried in insertion order: every rule that selects the frame counts a match; the
// first one whose nth/count/p/for let it fire is the one whose action is applied, and later rules do not see
// the frame. One seed makes a run's choices repeatable as long as the frames arrive in the same order.
//
// Thread safety: every member function may be called from any thread (one mutex).

#include <chrono>
#include <cstdint>
#include <mutex>
#include <optional>
#include <random>
#include <vector>

#include "zkwire/faults/frame_info.hpp"
#include "zkwire/faults/rule.hpp"

namespace zkwire::faults {

using rule_id = std::uint64_t;  // never 0

struct rule_counters {
  std::uint64_t matched = 0;  // frames the rule selected (including ones that did not fire it)
  std::uint64_t fired = 0;    // frames whose action came from this rule
};

// The rule that fired for a frame: what to do, and its id for logs.
struct fired_rule {
  rule_id id = 0;
  faults::rule rule;
  std::uint64_t random = 0;  // a seeded draw for the action itself (which byte to corrupt)
};

class rule_table {
 public:
  explicit rule_table(std::uint64_t seed) : random_(seed) {}

  rule_id add(rule r);
  // False if there is no such rule (already removed).
  bool remove(rule_id id);
  void clear();
  // Counters of a rule, also after it was removed; nullopt for an id never handed out.
  [[nodiscard]] std::optional<rule_counters> counters(rule_id id) const;

  // Counts the frame against every rule that selects it and returns the one that fires, if any.
  std::optional<fired_rule> decide(const frame_info& frame, std::chrono::steady_clock::time_point now);

 private:
  struct entry {
    rule_id id = 0;
    faults::rule rule;
    std::chrono::steady_clock::time_point added;
  };

  mutable std::mutex mutex_;
  std::mt19937_64 random_;
  std::vector<entry> rules_;
  std::vector<rule_counters> counters_;  // index id - 1; kept after removal
};

}  // namespace zkwire::faults
