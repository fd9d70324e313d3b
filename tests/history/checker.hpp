#pragma once
// Every guarantee check over one recorded history (docs/testing.md#guarantees): the registers' writes linearizable
// (register_model.hpp), the per-client properties and watch-before-data (client_checks.hpp), and the holds of locks
// and semaphores: at any time at most `capacity` leases held, and a lock's fencing tokens growing with each grant.
// The report carries the figures a run prints (history size, search steps, the checker's own time) and every
// violation; a linearizability search that ran out of budget is a violation too, since it proves nothing.

#include <cstdint>
#include <string>
#include <vector>

#include "client_checks.hpp"
#include "history.hpp"
#include "register_model.hpp"

namespace zkwire::history {

// Holds of one resource that overlap beyond its capacity, and lock grants whose tokens do not grow.
std::vector<violation> check_holds(const record& history);

struct check_options {
  linearizability_options linearizability;
};

struct report {
  std::vector<violation> violations;
  std::size_t operations = 0;
  std::size_t writes_searched = 0;  // operations the linearizability search placed (reads excluded)
  std::size_t unknown = 0;          // operations without an answer
  std::size_t events = 0;
  std::size_t holds = 0;
  std::uint64_t search_steps = 0;
  double seconds = 0;  // the checker's own time (CPU of this thread, wall clock)

  [[nodiscard]] bool passed() const noexcept { return violations.empty(); }
  // One line of figures: "N operations (W writes searched, U without an answer), E watch events, H holds; search S
  // steps; checked in T s".
  [[nodiscard]] std::string summary() const;
  // The violations, each with its property and operations, or "no violation".
  [[nodiscard]] std::string details(std::size_t limit = 12) const;
};

report check(const record& history, const check_options& options = {});

}  // namespace zkwire::history
