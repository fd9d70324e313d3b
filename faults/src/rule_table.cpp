#include "zkwire/faults/rule_table.hpp"

#include <algorithm>
#include <utility>

namespace zkwire::faults {

std::uint64_t random_seed() {
  std::random_device rd;
  const std::uint64_t seed = (std::uint64_t{rd()} << 32) | rd();
  return seed == 0 ? 1 : seed;
}

rule_id rule_table::add(rule r) {
  const auto now = std::chrono::steady_clock::now();
  const std::lock_guard lock(mutex_);
  entries_.push_back({std::move(r), now, {}, false});
  const rule_id id = entries_.size();
  order_.push_back(id);
  return id;
}

std::optional<rule_id> rule_table::add(std::string_view text, std::string* error) {
  auto parsed = parse_rule(text);
  if (!parsed.rule) {
    if (error != nullptr) *error = std::move(parsed.error);
    return std::nullopt;
  }
  return add(std::move(*parsed.rule));
}

bool rule_table::remove(rule_id id) {
  const std::lock_guard lock(mutex_);
  const auto it = std::find(order_.begin(), order_.end(), id);
  if (it == order_.end()) return false;
  order_.erase(it);
  entries_[id - 1].removed = true;
  return true;
}

std::size_t rule_table::clear() {
  const std::lock_guard lock(mutex_);
  for (const rule_id id : order_) entries_[id - 1].removed = true;
  const std::size_t removed = order_.size();
  order_.clear();
  return removed;
}

rule_entry rule_table::report(rule_id id) const {
  const entry& e = entries_[id - 1];
  return {id, e.rule, e.counters, e.removed};
}

std::vector<rule_entry> rule_table::rules() const {
  const std::lock_guard lock(mutex_);
  std::vector<rule_entry> out;
  out.reserve(order_.size());
  for (const rule_id id : order_) out.push_back(report(id));
  return out;
}

std::vector<rule_entry> rule_table::history() const {
  const std::lock_guard lock(mutex_);
  std::vector<rule_entry> out;
  out.reserve(entries_.size());
  for (rule_id id = 1; id <= entries_.size(); ++id) out.push_back(report(id));
  return out;
}

std::optional<rule_counters> rule_table::counters(rule_id id) const {
  const std::lock_guard lock(mutex_);
  if (id == 0 || id > entries_.size()) return std::nullopt;
  return entries_[id - 1].counters;
}

std::optional<fired_rule> rule_table::decide(const frame_info& frame, std::chrono::steady_clock::time_point now) {
  const std::lock_guard lock(mutex_);
  for (const rule_id id : order_) {
    entry& e = entries_[id - 1];
    const rule& r = e.rule;
    if (r.active_for.count() != 0 && now - e.added > r.active_for) continue;
    if (!selects(r, frame)) continue;
    rule_counters& c = e.counters;
    ++c.matched;
    if (r.nth != 0 && c.matched != r.nth) continue;
    if (r.count != 0 && c.fired >= r.count) continue;
    // Draw only for rules with p= so adding a rule without one does not shift the others' choices.
    if (r.p && std::uniform_real_distribution<double>(0.0, 1.0)(random_) >= *r.p) continue;
    ++c.fired;
    return fired_rule{id, r, random_()};
  }
  return std::nullopt;
}

}  // namespace zkwire::faults
