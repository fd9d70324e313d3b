#pragma once
// Is a concurrent history linearizable with respect to a sequential model? The Wing & Gong search, with Lowe's
// refinements (Testing for linearizability, 2017): the operations' invocations and completions in one list in time
// order; the search walks it, linearizes an operation whose invocation it meets when the model accepts it in the
// current state (the operation and its completion leave the list), and backtracks when it meets a completion whose
// operation was not linearized yet. Configurations already explored, a set of linearized operations and a model
// state, are remembered and never explored again, which makes histories with little concurrency linear in practice
// (P-compositionality, checking each object on its own, is the caller's: register_model.hpp checks each path alone).
//
// Operations whose outcome is unknown (no answer) may take effect at any time after their invocation and before
// their bound (M::completed: `never` when nothing bounds it), or never: the search may place them, and drops one whose
// bound it passes unplaced; it succeeds once every operation with an answer is linearized.
//
// The cost is bounded: `budget` counts the search's steps (an invocation tried or a backtrack); past it the answer
// is gave_up, neither a pass nor a violation. The search is depth-first and exact otherwise: not_linearizable means
// no order exists. Remembered configurations are kept as 128-bit hashes (two independent Zobrist hashes of the set
// and two of the state), so a collision, which would prune a branch wrongly, has a chance of about n^2 / 2^128.
//
// Model requirements (M is the model, Op the operation type):
//   typename M::state             copyable, with std::uint64_t M::hash(const state&, std::uint64_t salt) const
//   std::optional<state> M::step(const state&, const Op&) const   the state after Op, when Op with its recorded
//                                                                  outcome may take effect in `state`
//   bool M::must_linearize(const Op&) const    false when Op's outcome is unknown (it may never have happened)
//   logical_time M::invoked(const Op&) const, M::completed(const Op&) const   (for an operation whose outcome is
//                                              unknown: the latest it can have taken effect, or `never`)

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <unordered_set>
#include <utility>
#include <vector>

#include "history.hpp"

namespace zkwire::history {

struct linearizability_result {
  enum class verdict : std::uint8_t { linearizable, not_linearizable, gave_up };
  verdict is = verdict::linearizable;
  std::uint64_t steps = 0;
  std::size_t operations = 0;
  // For a history that is not linearizable: the longest sequence of operations (indices into the list checked) the
  // search could linearize, in order, and the operation whose completion it could not pass from there. The
  // explanation a reader starts from.
  std::vector<std::size_t> longest;
  std::size_t stuck = static_cast<std::size_t>(-1);
};

namespace detail {

// splitmix64: the Zobrist keys and the hash mixing.
inline std::uint64_t mix(std::uint64_t x) noexcept {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30U)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27U)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31U);
}

struct pair_hash {
  std::size_t operator()(const std::pair<std::uint64_t, std::uint64_t>& p) const noexcept {
    return static_cast<std::size_t>(p.first ^ mix(p.second));
  }
};

}  // namespace detail

template <class Op, class Model>
linearizability_result check_linearizable(const std::vector<const Op*>& ops, const Model& model,
                                          typename Model::state initial, std::uint64_t budget) {
  using state = typename Model::state;
  linearizability_result result;
  result.operations = ops.size();
  const std::size_t n = ops.size();

  // The list: entry 0 is the head, then 2n entries (an invocation and a completion per operation) in time order.
  struct entry {
    std::size_t op = 0;
    bool call = false;
    std::size_t match = 0;  // a call's completion entry, a completion's call
    std::size_t prev = 0;
    std::size_t next = 0;
  };
  std::vector<entry> list(2 * n + 1);
  {
    std::vector<std::pair<logical_time, std::size_t>> order;  // (time, entry index)
    order.reserve(2 * n);
    for (std::size_t i = 0; i < n; ++i) {
      const std::size_t call = 1 + 2 * i;
      const std::size_t ret = call + 1;
      list[call] = entry{i, true, ret, 0, 0};
      list[ret] = entry{i, false, call, 0, 0};
      order.emplace_back(model.invoked(*ops[i]), call);
      order.emplace_back(model.completed(*ops[i]), ret);
    }
    std::stable_sort(order.begin(), order.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    std::size_t prev = 0;
    for (const auto& [time, index] : order) {
      list[prev].next = index;
      list[index].prev = prev;
      prev = index;
    }
    list[prev].next = 0;  // circular through the head
    list[0].prev = prev;
  }
  const auto lift = [&](std::size_t call) {
    const std::size_t ret = list[call].match;
    list[list[call].prev].next = list[call].next;
    list[list[call].next].prev = list[call].prev;
    list[list[ret].prev].next = list[ret].next;
    list[list[ret].next].prev = list[ret].prev;
  };
  const auto unlift = [&](std::size_t call) {  // the exact reverse of lift
    const std::size_t ret = list[call].match;
    list[list[ret].prev].next = ret;
    list[list[ret].next].prev = ret;
    list[list[call].prev].next = call;
    list[list[call].next].prev = call;
  };

  // Zobrist keys of the operations, two independent 64-bit families.
  std::vector<std::pair<std::uint64_t, std::uint64_t>> keys(n);
  for (std::size_t i = 0; i < n; ++i) keys[i] = {detail::mix(2 * i + 1), detail::mix(~(2 * i + 1))};
  std::unordered_set<std::pair<std::uint64_t, std::uint64_t>, detail::pair_hash> seen;

  std::size_t definite_left = 0;
  for (const Op* op : ops) definite_left += model.must_linearize(*op) ? std::size_t{1} : std::size_t{0};

  struct frame {
    std::size_t call;
    state before;
    bool dropped;  // an operation without an answer passed its bound unplaced: it never took effect
  };
  std::vector<frame> stack;
  state current = std::move(initial);
  std::pair<std::uint64_t, std::uint64_t> decided{0, 0};  // the Zobrist hash of the operations placed or dropped
  // Places (or drops) the operation of `call`, unless that configuration was explored already.
  const auto take = [&](std::size_t call, std::optional<state>& next, bool dropped) {
    const std::size_t op = list[call].op;
    const std::pair<std::uint64_t, std::uint64_t> with{decided.first ^ keys[op].first,
                                                       decided.second ^ keys[op].second};
    const state& after = dropped ? current : *next;
    if (!seen.insert({with.first ^ model.hash(after, 1), with.second ^ model.hash(after, 2)}).second) return false;
    stack.push_back(frame{call, current, dropped});
    if (!dropped) current = std::move(*next);
    decided = with;
    if (model.must_linearize(*ops[op])) --definite_left;
    lift(call);
    return true;
  };
  std::size_t at = list[0].next;
  while (definite_left > 0) {
    if (++result.steps > budget) {
      result.is = linearizability_result::verdict::gave_up;
      return result;
    }
    if (at == 0) break;  // cannot happen: a definite operation's completion comes before the end
    const entry& e = list[at];
    if (e.call) {
      std::optional<state> next = model.step(current, *ops[e.op]);
      if (next && take(at, next, false)) {
        at = list[0].next;
      } else {
        at = e.next;
      }
      continue;
    }
    if (!model.must_linearize(*ops[e.op])) {  // its bound passed: it never happened (a forced step, no choice)
      std::optional<state> none;
      if (take(e.match, none, true)) {
        at = list[0].next;
        continue;
      }
    } else if (stack.size() >= result.longest.size()) {
      result.longest.clear();
      for (const auto& f : stack) {
        if (!f.dropped) result.longest.push_back(list[f.call].op);
      }
      result.stuck = e.op;
    }
    // A completion whose operation is not linearized: undo the last choice (and the forced drops after it).
    for (;;) {
      if (stack.empty()) {
        result.is = linearizability_result::verdict::not_linearizable;
        return result;
      }
      frame f = std::move(stack.back());
      stack.pop_back();
      const std::size_t op = list[f.call].op;
      decided = {decided.first ^ keys[op].first, decided.second ^ keys[op].second};
      if (model.must_linearize(*ops[op])) ++definite_left;
      current = std::move(f.before);
      unlift(f.call);
      if (f.dropped) continue;
      at = list[f.call].next;
      break;
    }
  }
  if (definite_left > 0) {  // the list ran out before a completion: cannot happen, but never a pass
    result.is = linearizability_result::verdict::not_linearizable;
    return result;
  }
  result.longest.clear();
  result.stuck = static_cast<std::size_t>(-1);
  return result;
}

}  // namespace zkwire::history
