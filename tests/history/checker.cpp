#include "checker.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>
#include <utility>

namespace zkwire::history {

std::vector<violation> check_holds(const record& history) {
  std::vector<violation> found;
  std::map<std::string, std::vector<const hold*>> by_resource;
  for (const auto& h : history.holds) by_resource[h.resource].push_back(&h);
  for (auto& [resource, holds] : by_resource) {
    std::sort(holds.begin(), holds.end(), [](const hold* a, const hold* b) { return a->granted < b->granted; });
    // Leases held at each grant: the holds granted before it and not ended by then.
    for (std::size_t i = 0; i < holds.size(); ++i) {
      const hold& h = *holds[i];
      std::size_t leases = h.leases;
      std::vector<const hold*> with;
      for (std::size_t j = 0; j < i; ++j) {
        if (holds[j]->ended > h.granted) {
          leases += holds[j]->leases;
          with.push_back(holds[j]);
        }
      }
      if (leases > h.capacity) {
        std::string text = std::to_string(leases) + " leases of " + resource + " held at once (capacity " +
                           std::to_string(h.capacity) + "):\n  " + describe(h);
        for (const hold* other : with) text += "\n  " + describe(*other);
        found.push_back(violation{"holds", std::move(text)});
      }
    }
    // A lock's tokens grow with each grant (a hold verified again after a reconnect keeps its token).
    if (holds.empty() || holds.front()->capacity != 1) continue;
    const hold* last = nullptr;
    for (const hold* h : holds) {
      if (last != nullptr && h->token == last->token && h->holder == last->holder) continue;
      if (last != nullptr && h->token <= last->token) {
        found.push_back(violation{"holds", "a lock granted with a token not above the previous grant's:\n  " +
                                               describe(*last) + "\n  " + describe(*h)});
      }
      last = h;
    }
  }
  return found;
}

report check(const record& history, const check_options& options) {
  const auto began = std::chrono::steady_clock::now();
  report r;
  r.operations = history.ops.size();
  r.events = history.events.size();
  r.holds = history.holds.size();
  r.unknown = static_cast<std::size_t>(std::count_if(
      history.ops.begin(), history.ops.end(), [](const operation& op) { return op.out.result == outcome::unknown; }));
  const auto writes = check_registers_linearizable(history, options.linearizability);
  r.writes_searched = writes.checked;
  r.search_steps = writes.steps;
  for (const auto& path : writes.paths) {
    if (path.search.is != linearizability_result::verdict::linearizable) {
      r.violations.push_back(violation{"linearizable writes", path.explanation});
    }
  }
  for (auto* check_one : {&check_completion_order, &check_monotonic_reads, &check_read_your_writes,
                          &check_reads_match_writes, &check_watch_before_data, &check_holds}) {
    auto found = check_one(history);
    r.violations.insert(r.violations.end(), std::make_move_iterator(found.begin()),
                        std::make_move_iterator(found.end()));
  }
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
  return r;
}

std::string report::summary() const {
  char text[320];
  std::snprintf(text, sizeof text,
                "%zu operations (%zu writes searched, %zu without an answer), %zu watch events, %zu holds; "
                "linearizability search %llu steps; checked in %.3f s; %zu violations",
                operations, writes_searched, unknown, events, holds, static_cast<unsigned long long>(search_steps),
                seconds, violations.size());
  return text;
}

std::string report::details(std::size_t limit) const {
  if (violations.empty()) return "no violation\n";
  std::string text;
  for (std::size_t i = 0; i < violations.size() && i < limit; ++i) {
    text += "[" + violations[i].property + "] " + violations[i].what + "\n";
  }
  if (violations.size() > limit) text += "... " + std::to_string(violations.size() - limit) + " more\n";
  return text;
}

}  // namespace zkwire::history
