#include "register_model.hpp"

#include <algorithm>
#include <optional>
#include <unordered_map>

namespace zkwire::history {
namespace {

struct register_state {
  bool present = false;
  std::uint32_t value = 0;  // interned
  std::int32_t version = 0;
  std::int64_t zxid = 0;  // the newest zxid among the writes taken so far (with order_by_zxid)
};

// An operation as the model reads it: the recorded one, its value's number, and what the rest of the history tells
// of it (a write without an answer whose value someone read did happen, before that read completed, at the read's
// mzxid).
struct modeled {
  const operation* op = nullptr;
  std::uint32_t written = 0;  // create, set: the value written
  std::uint32_t read = 0;     // get (ok): the value read
  bool must = true;           // it happened: the search must place it
  logical_time completed = never;
  std::int64_t zxid = 0;  // the zxid it was applied at, when known
};

class register_model {
 public:
  using state = register_state;

  [[nodiscard]] static std::uint64_t hash(const state& s, std::uint64_t salt) noexcept {
    const std::uint64_t packed = (s.present ? 1ULL : 0ULL) | (std::uint64_t{s.value} << 1U) |
                                 (static_cast<std::uint64_t>(static_cast<std::uint32_t>(s.version)) << 33U);
    return detail::mix(packed ^ detail::mix(salt ^ detail::mix(static_cast<std::uint64_t>(s.zxid))));
  }
  [[nodiscard]] static bool must_linearize(const modeled& m) noexcept { return m.must; }
  [[nodiscard]] static logical_time invoked(const modeled& m) noexcept { return m.op->invoked; }
  [[nodiscard]] static logical_time completed(const modeled& m) noexcept { return m.completed; }

  [[nodiscard]] static std::optional<state> step(const state& s, const modeled& m) {
    // The leader's log orders the writes: one of a known zxid comes after every write of a lower one.
    if (m.zxid != 0 && m.zxid <= s.zxid) return std::nullopt;
    auto next = step_value(s, m);
    if (next && m.zxid != 0) next->zxid = m.zxid;
    return next;
  }

 private:
  [[nodiscard]] static std::optional<state> step_value(const state& s, const modeled& m) {
    const operation& op = *m.op;
    const bool matches = s.present && (op.expected_version == -1 || s.version == op.expected_version);
    const bool ok_or_maybe = op.out.result != outcome::failed;
    switch (op.kind) {
      case op_kind::create:
        if (ok_or_maybe) return s.present ? std::nullopt : std::optional<state>(state{true, m.written, 0, s.zxid});
        return op.out.why == failure::node_exists && s.present ? std::optional<state>(s) : std::nullopt;
      case op_kind::remove:
        if (ok_or_maybe) return matches ? std::optional<state>(state{false, 0, 0, s.zxid}) : std::nullopt;
        return refusal(s, op);
      case op_kind::set:
        if (ok_or_maybe) {
          if (!matches) return std::nullopt;
          const std::int32_t next = s.version + 1;
          if (op.out.result == outcome::ok && op.out.version >= 0 && op.out.version != next) return std::nullopt;
          return state{true, m.written, next, s.zxid};
        }
        return refusal(s, op);
      case op_kind::get:
        if (op.out.result == outcome::ok) {
          return s.present && s.value == m.read && s.version == op.out.version ? std::optional<state>(s) : std::nullopt;
        }
        return op.out.why == failure::no_node && !s.present ? std::optional<state>(s) : std::nullopt;
    }
    return std::nullopt;
  }

  // A refused set or delete leaves the state as it was: NONODE when absent, BADVERSION when present at another version.
  static std::optional<state> refusal(const state& s, const operation& op) {
    if (op.out.why == failure::no_node && !s.present) return s;
    if (op.out.why == failure::bad_version && s.present && op.expected_version != -1 &&
        s.version != op.expected_version) {
      return s;
    }
    return std::nullopt;
  }
};

// Whether the search looks at `op` at all: a write refused for a reason the model does not know (NOAUTH, a missing
// parent) and a client-side refusal changed nothing and say nothing about the register.
bool modeled_at_all(const operation& op, bool include_reads) {
  if (op.kind == op_kind::get && (!include_reads || op.out.result == outcome::unknown)) return false;
  return !(op.out.result == outcome::failed && op.out.why == failure::other);
}

std::string explain(const std::string& path, const std::vector<modeled>& ops, const linearizability_result& r) {
  std::string text;
  if (r.is == linearizability_result::verdict::gave_up) {
    text = "the search for an order of the " + std::to_string(ops.size()) + " operations on " + path +
           " gave up after " + std::to_string(r.steps) + " steps (the budget); neither a pass nor a violation\n";
    return text;
  }
  text = "no order of the " + std::to_string(ops.size()) + " operations on " + path +
         " explains what the clients were told. The longest order found (" + std::to_string(r.longest.size()) +
         " operations) ends with:\n";
  const std::size_t from = r.longest.size() > 6 ? r.longest.size() - 6 : 0;
  for (std::size_t i = from; i < r.longest.size(); ++i) text += "  " + describe(*ops[r.longest[i]].op) + "\n";
  if (r.stuck < ops.size()) {
    const operation& stuck = *ops[r.stuck].op;
    text += "and cannot take next, before its completion:\n  " + describe(stuck) + "\nconcurrent with it:\n";
    std::size_t shown = 0;
    for (const auto& m : ops) {
      if (m.op == &stuck || m.op->invoked > stuck.completed || m.op->completed < stuck.invoked) continue;
      if (++shown > 10) break;
      text += "  " + describe(*m.op) + "\n";
    }
  }
  return text;
}

}  // namespace

bool writes_verdict::linearizable() const {
  return std::all_of(paths.begin(), paths.end(), [](const path_verdict& p) {
    return p.search.is == linearizability_result::verdict::linearizable;
  });
}

bool writes_verdict::gave_up() const {
  return std::any_of(paths.begin(), paths.end(),
                     [](const path_verdict& p) { return p.search.is == linearizability_result::verdict::gave_up; });
}

writes_verdict check_registers_linearizable(const record& history, const linearizability_options& options) {
  std::map<std::string, std::vector<modeled>> by_path;
  std::unordered_map<std::string, std::uint32_t> values;
  const auto intern = [&](const std::string& v) {
    return values.emplace(v, static_cast<std::uint32_t>(values.size() + 1)).first->second;
  };
  // The first read of each value: it shows a write without an answer happened, by then, at its mzxid.
  std::unordered_map<std::string, const operation*> first_read;
  for (const auto& op : history.ops) {
    if (op.kind != op_kind::get || !op.ok()) continue;
    auto& first = first_read[op.out.value];
    if (first == nullptr || op.completed < first->completed) first = &op;
  }
  // The bound of each operation without an answer: the completion of its client's next answered request (the record
  // is in invocation order, a client's completions in that order too).
  std::vector<logical_time> bound(history.ops.size(), never);
  if (options.bound_unknown_by_next_answer) {
    std::unordered_map<std::size_t, logical_time> next_answer;  // per client, scanning backwards
    for (auto it = history.ops.rbegin(); it != history.ops.rend(); ++it) {
      auto& next = next_answer.emplace(it->client, never).first->second;
      bound[it->id] = next;
      if (it->out.result != outcome::unknown && it->completed != never) next = std::min(next, it->completed);
    }
  }
  for (const auto& op : history.ops) {
    if (!modeled_at_all(op, options.include_reads)) continue;
    modeled m{&op, 0, 0, op.out.result != outcome::unknown, op.completed, 0};
    if (op.kind == op_kind::create || op.kind == op_kind::set) m.written = intern(op.value);
    if (op.kind == op_kind::get && op.ok()) m.read = intern(op.out.value);
    if (options.order_by_zxid && op.is_write() && op.ok()) m.zxid = op.out.zxid;
    if (op.out.result == outcome::unknown && (op.kind == op_kind::create || op.kind == op_kind::set)) {
      if (const auto it = first_read.find(op.value); it != first_read.end() && it->second->path == op.path) {
        m.must = true;
        m.completed = std::min(it->second->completed, bound[op.id]);
        if (options.order_by_zxid) m.zxid = it->second->out.mzxid;
      }
    }
    if (!m.must) m.completed = bound[op.id];
    by_path[op.path].push_back(m);
  }
  writes_verdict verdict;
  for (auto& [path, ops] : by_path) {
    register_state initial;
    if (const auto it = options.initial.find(path); it != options.initial.end() && it->second.present) {
      initial = register_state{true, intern(it->second.value), it->second.version};
    }
    std::vector<const modeled*> list;
    list.reserve(ops.size());
    for (const auto& m : ops) list.push_back(&m);
    path_verdict pv;
    pv.path = path;
    pv.search = check_linearizable<modeled>(list, register_model{}, initial, options.budget);
    if (pv.search.is != linearizability_result::verdict::linearizable) pv.explanation = explain(path, ops, pv.search);
    verdict.steps += pv.search.steps;
    verdict.checked += ops.size();
    verdict.paths.push_back(std::move(pv));
  }
  return verdict;
}

}  // namespace zkwire::history
