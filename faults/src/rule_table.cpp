#include "zkwire/faults/rule_table.hpp"

#include <algorithm>
#include <utility>

namespace zkwire::faults {

rule_id rule_table::add(rule r) {
  const std::lock_guard lock(mutex_);
  counters_.emplace_back();
  const rule_id id = counters_.size();
  rules_.push_back({id, std::move(r), std::chrono::steady_clock::now()});
  return id;
}

bool rule_table::remove(rule_id id) {
  const std::lock_guard lock(mutex_);
  const auto it = std::find_if(rules_.begin(), rules_.end(), [&](const entry& e) { return e.id == id; });
  if (it == rules_.end()) return false;
  rules_.erase(it);
  return true;
}

void rule_table::clear() {
  const std::lock_guard lock(mutex_);
  rules_.clear();
}

std::optional<rule_counters> rule_table::counters(rule_id id) const {
  const std::lock_guard lock(mutex_);
  if (id == 0 || id > counters_.size()) return std::nullopt;
  return counters_[id - 1];
}

std::optional<fired_rule> rule_table::decide(const frame_info& frame, std::chrono::steady_clock::time_point now) {
  const std::lock_guard lock(mutex_);
  for (const auto& e : rules_) {
    const rule& r = e.rule;
    if (r.active_for.count() != 0 && now - e.added > r.active_for) continue;
    if (!selects(r, frame)) continue;
    rule_counters& c = counters_[e.id - 1];
    ++c.matched;
    if (r.nth != 0 && c.matched != r.nth) continue;
    if (r.count != 0 && c.fired >= r.count) continue;
    // Draw only for rules with p= so adding a rule without one does not shift the others' choices.
    if (r.p && std::uniform_real_distribution<double>(0.0, 1.0)(random_) >= *r.p) continue;
    ++c.fired;
    return fired_rule{e.id, r, random_()};
  }
  return std::nullopt;
}

}  // namespace zkwire::faults
