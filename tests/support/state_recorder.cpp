#include "support/state_recorder.hpp"

#include <string_view>

#include "support/eventually.hpp"
#include "zkwire/proto/session/session.hpp"

namespace zkwire::test {

void state_recorder::add(const state_event& e) {
  const std::lock_guard lock(mutex_);
  entries_.push_back({e.to, e.reason, clock::now()});
}

std::optional<state_recorder::clock::time_point> state_recorder::entered(session_state s,
                                                                         clock::time_point since) const {
  const std::lock_guard lock(mutex_);
  for (const auto& e : entries_) {
    if (e.to == s && e.at >= since) return e.at;
  }
  return std::nullopt;
}

::testing::AssertionResult state_recorder::reaches(session_state s, std::chrono::milliseconds deadline,
                                                   clock::time_point since) const {
  return eventually([&] { return entered(s, since).has_value(); }, deadline,
                    "session state " + std::string(proto::session_state_name(s)), [this] { return text(); });
}

std::vector<state_recorder::entry> state_recorder::entries() const {
  const std::lock_guard lock(mutex_);
  return entries_;
}

std::vector<session_state> state_recorder::states() const {
  const std::lock_guard lock(mutex_);
  std::vector<session_state> out;
  out.reserve(entries_.size());
  for (const auto& e : entries_) out.push_back(e.to);
  return out;
}

std::optional<session_state> state_recorder::last() const {
  const std::lock_guard lock(mutex_);
  if (entries_.empty()) return std::nullopt;
  return entries_.back().to;
}

std::string state_recorder::text() const {
  const std::lock_guard lock(mutex_);
  std::string out;
  for (const auto& e : entries_) {
    out += proto::session_state_name(e.to);
    if (e.reason) {
      out += '(';
      out += e.reason.message();
      out += ')';
    }
    out += ' ';
  }
  return out.empty() ? "(no state change)" : out;
}

}  // namespace zkwire::test
