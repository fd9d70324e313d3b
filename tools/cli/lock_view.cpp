#include "lock_view.hpp"

#include <cmath>
#include <cstdio>

#include "json.hpp"
#include "lock_format.hpp"

namespace zkwire::cli {

lock_view lock_view_tracker::update(const std::vector<recipes::contender>& sorted, std::int64_t now_ms,
                                    clock::time_point now) {
  if (!start_) start_ = now;
  lock_view v;
  std::set<std::string> holding;
  for (const auto& c : sorted) {
    if (c.kind == recipes::contender_kind::foreign) continue;
    ++v.depth;
    if (c.holder) {
      ++v.holders;
      holding.insert(c.node);
      if (!v.holder) {
        v.holder = c;
        v.holder_age_ms = now_ms - c.ctime;
      }
      if (!first_ && !holders_seen_.contains(c.node)) {
        ++grants_;
        grant_times_.push_back(now);
      }
    } else {
      ++v.waiters;
      const std::int64_t age = now_ms - c.ctime;
      if (!v.oldest_waiter_age_ms || age > *v.oldest_waiter_age_ms) v.oldest_waiter_age_ms = age;
    }
  }
  first_ = false;
  // Every node that ever held stays "seen" while it is listed; a node leaves the set when it leaves the directory.
  for (auto it = holders_seen_.begin(); it != holders_seen_.end();) {
    bool listed = false;
    for (const auto& c : sorted) listed = listed || c.node == *it;
    it = listed ? std::next(it) : holders_seen_.erase(it);
  }
  holders_seen_.insert(holding.begin(), holding.end());
  v.grants = grants_;
  v.grants_per_sec = rate(now);
  return v;
}

lock_view lock_view_tracker::update_missing(clock::time_point now) {
  if (!start_) start_ = now;
  first_ = false;
  holders_seen_.clear();
  lock_view v;
  v.exists = false;
  v.grants = grants_;
  v.grants_per_sec = rate(now);
  return v;
}

double lock_view_tracker::rate(clock::time_point now) {
  while (!grant_times_.empty() && now - grant_times_.front() > window_) grant_times_.pop_front();
  const auto span = std::min(window_, now - *start_);
  const double seconds = std::chrono::duration<double>(span).count();
  if (seconds <= 0) return 0;
  // Rounded to 2 decimals: a rate, not a measurement of the listing's timing.
  return std::round(static_cast<double>(grant_times_.size()) / seconds * 100) / 100;
}

std::string lock_view_json(const std::string& path, const lock_view& v) {
  json line = {
      {"path", path}, {"exists", v.exists}, {"depth", v.depth}, {"holders", v.holders}, {"waiters", v.waiters}};
  if (v.holder) {
    line["holder"] = {{"node", v.holder->path},
                      {"session", session_hex(v.holder->session)},
                      {"data", v.holder->data},
                      {"age_ms", *v.holder_age_ms}};
  } else {
    line["holder"] = nullptr;
  }
  if (v.oldest_waiter_age_ms) {
    line["oldest_waiter_age_ms"] = *v.oldest_waiter_age_ms;
  } else {
    line["oldest_waiter_age_ms"] = nullptr;
  }
  line["grants"] = v.grants;
  line["grants_per_sec"] = v.grants_per_sec;
  return json_text(line);
}

namespace {
std::string seconds_text(std::int64_t ms) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.1fs", static_cast<double>(ms) / 1000.0);
  return buffer;
}
}  // namespace

std::string lock_view_text(const std::string& path, const lock_view& v) {
  std::string out = path + (v.exists ? "" : " (does not exist)") + "\n";
  out += "  queue depth    " + std::to_string(v.depth) + " (" + std::to_string(v.holders) + " holding, " +
         std::to_string(v.waiters) + " waiting)\n";
  if (v.holder) {
    out += "  holder         " + v.holder->node + "  " + v.holder->data + "  " + session_hex(v.holder->session) +
           "  held " + seconds_text(*v.holder_age_ms) + "\n";
  } else {
    out += "  holder         -\n";
  }
  out +=
      "  oldest waiter  " + (v.oldest_waiter_age_ms ? seconds_text(*v.oldest_waiter_age_ms) : std::string("-")) + "\n";
  char rate[32];
  std::snprintf(rate, sizeof rate, "%.2f", v.grants_per_sec);
  out += "  grants         " + std::to_string(v.grants) + " (" + rate + "/s)\n";
  return out;
}

}  // namespace zkwire::cli
