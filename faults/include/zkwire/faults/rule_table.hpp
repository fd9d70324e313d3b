#pragma once
// The proxy's rules in the order they were added, with their counters and the seeded random source behind p=.
//
// For each frame, rules are tried in insertion order: every rule that selects the frame counts a match; the
// first one whose nth/count/p/for let it fire is the one whose action is applied, and later rules do not see
// the frame. One seed makes a run's choices repeatable as long as the frames arrive in the same order.
//
// This is also the run-time API behind `zkwire proxy --control`: rules are added, listed and removed by id while
// frames flow. Several proxies may share one table (proxy_options::rules, an ensemble behind one set of rules):
// ids, counters, nth= and count= are then common to all of them.
//
// Thread safety: every member function may be called from any thread. One mutex guards the table; decide() holds
// it while it looks at a frame, so a rule added or removed by another thread is seen by every frame decided after
// add()/remove()/clear() returned, on every connection of every proxy sharing the table, open ones included.
// Frames decided before keep their fate (a delayed frame stays delayed, a held or blackholed connection stays so).
// Memory: the table remembers each rule it handed an id to, removed ones included (history()).

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "zkwire/faults/frame_info.hpp"
#include "zkwire/faults/rule.hpp"

namespace zkwire::faults {

using rule_id = std::uint64_t;  // never 0; ids are handed out in order and never reused

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

// One rule of the table as rules() and history() report it: a copy taken under the table's lock.
struct rule_entry {
  rule_id id = 0;
  faults::rule rule;
  rule_counters counters;
  bool removed = false;
};

// A non-zero seed from std::random_device, for runs that were not given one.
std::uint64_t random_seed();

class rule_table {
 public:
  explicit rule_table(std::uint64_t seed) : seed_(seed), random_(seed) {}

  rule_id add(rule r);
  // Parses `text` (rule.hpp) and adds it; nullopt with `error` set when it is not a rule (the table is unchanged).
  std::optional<rule_id> add(std::string_view text, std::string* error = nullptr);
  // False if there is no such rule (never added, or already removed).
  bool remove(rule_id id);
  // Removes every rule; returns how many there were.
  std::size_t clear();

  // The rules in force, in the order they are tried.
  [[nodiscard]] std::vector<rule_entry> rules() const;
  // Every rule ever added, by id, removed ones flagged (their counters stay as they were when removed).
  [[nodiscard]] std::vector<rule_entry> history() const;
  // Counters of a rule, also after it was removed; nullopt for an id never handed out.
  [[nodiscard]] std::optional<rule_counters> counters(rule_id id) const;
  [[nodiscard]] std::uint64_t seed() const noexcept { return seed_; }

  // Counts the frame against every rule that selects it and returns the one that fires, if any.
  std::optional<fired_rule> decide(const frame_info& frame, std::chrono::steady_clock::time_point now);

 private:
  struct entry {
    faults::rule rule;
    std::chrono::steady_clock::time_point added;
    rule_counters counters;
    bool removed = false;
  };
  [[nodiscard]] rule_entry report(rule_id id) const;  // with mutex_ held

  const std::uint64_t seed_;
  mutable std::mutex mutex_;
  std::mt19937_64 random_;
  std::vector<entry> entries_;  // every rule ever added; index id - 1
  std::vector<rule_id> order_;  // the rules in force, in the order they are tried
};

}  // namespace zkwire::faults
