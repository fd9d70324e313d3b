#include "client_checks.hpp"

#include <algorithm>
#include <map>
#include <unordered_map>
#include <utility>

namespace zkwire::history {
namespace {

// Keeps the first `limit` violations of one property described, and counts the rest in a last entry.
class collector {
 public:
  explicit collector(const char* property, std::size_t limit = 20) : property_(property), limit_(limit) {}
  void add(std::string what) {
    ++count_;
    if (count_ <= limit_) found_.push_back(violation{property_, std::move(what)});
  }
  std::vector<violation> take() && {
    if (count_ > limit_) {
      found_.push_back(violation{property_, "... and " + std::to_string(count_ - limit_) + " more of these"});
    }
    return std::move(found_);
  }

 private:
  const char* property_;
  std::size_t limit_;
  std::size_t count_ = 0;
  std::vector<violation> found_;
};

// Each client's operations in the order it invoked them (the record's order).
std::map<std::size_t, std::vector<const operation*>> by_client(const record& history) {
  std::map<std::size_t, std::vector<const operation*>> out;
  for (const auto& op : history.ops) out[op.client].push_back(&op);
  return out;
}

bool completed(const operation& op) { return op.completed != never; }
bool writes_value(const operation& op) { return op.kind == op_kind::create || op.kind == op_kind::set; }

// The zxids of the writes known to be applied to each path (sets' mzxid, creates' czxid), sorted.
std::unordered_map<std::string, std::vector<std::pair<std::int64_t, const operation*>>> applied_zxids(
    const record& history) {
  std::unordered_map<std::string, std::vector<std::pair<std::int64_t, const operation*>>> out;
  for (const auto& op : history.ops) {
    if (writes_value(op) && op.ok() && op.out.zxid != 0) out[op.path].emplace_back(op.out.zxid, &op);
  }
  for (auto& [path, list] : out) std::sort(list.begin(), list.end());
  return out;
}

// The first known applied write to a path with a zxid above `zxid`, if any.
const operation* first_write_after(const std::vector<std::pair<std::int64_t, const operation*>>* writes,
                                   std::int64_t zxid) {
  if (writes == nullptr) return nullptr;
  const auto it =
      std::upper_bound(writes->begin(), writes->end(), std::make_pair(zxid, static_cast<const operation*>(nullptr)),
                       [](const auto& a, const auto& b) { return a.first < b.first; });
  return it == writes->end() ? nullptr : it->second;
}

}  // namespace

std::vector<violation> check_completion_order(const record& history) {
  collector found("completion order");
  for (const auto& [client, ops] : by_client(history)) {
    const operation* last = nullptr;
    for (const operation* op : ops) {
      if (!completed(*op) || op->out.client_side) continue;
      if (last != nullptr && op->completed < last->completed) {
        found.add("sent after, completed before:\n  " + describe(*last) + "\n  " + describe(*op));
      }
      if (last == nullptr || op->completed > last->completed) last = op;
    }
  }
  return std::move(found).take();
}

std::vector<violation> check_monotonic_reads(const record& history) {
  collector found("monotonic reads");
  for (auto [client, ops] : by_client(history)) {
    std::erase_if(ops, [](const operation* op) { return !completed(*op) || op->out.zxid == 0; });
    std::sort(ops.begin(), ops.end(),
              [](const operation* a, const operation* b) { return a->completed < b->completed; });
    const operation* newest = nullptr;
    for (const operation* op : ops) {
      if (newest != nullptr && op->out.zxid < newest->out.zxid) {
        found.add("a reply older than one the client had already seen:\n  seen:  " + describe(*newest) +
                  "\n  later: " + describe(*op));
      }
      if (newest == nullptr || op->out.zxid > newest->out.zxid) newest = op;
    }
  }
  return std::move(found).take();
}

std::vector<violation> check_read_your_writes(const record& history) {
  collector found("read your writes");
  // Deletes and creates of each path that were not refused: what can explain a read of an absent or recreated node.
  std::unordered_map<std::string, std::vector<const operation*>> removes;
  std::unordered_map<std::string, std::vector<const operation*>> creates;
  for (const auto& op : history.ops) {
    if (op.out.result == outcome::failed) continue;
    if (op.kind == op_kind::remove) removes[op.path].push_back(&op);
    if (op.kind == op_kind::create) creates[op.path].push_back(&op);
  }
  // Some operation of `list` may fall after `after` was invoked and before `read` completed.
  const auto may_fall_between = [](const std::vector<const operation*>& list, const operation& after,
                                   const operation& read) {
    return std::any_of(list.begin(), list.end(), [&](const operation* op) {
      return op->invoked < read.completed && op->completed > after.invoked;
    });
  };
  for (const auto& [client, ops] : by_client(history)) {
    std::int64_t seen = 0;  // the newest zxid among the client's completions so far (in invocation order: a floor)
    std::map<std::string, std::pair<const operation*, std::int64_t>> last_write;  // path -> (write, floor then)
    std::vector<const operation*> by_completion;
    for (const operation* op : ops) {
      if (op->kind != op_kind::get) {
        if (op->ok()) last_write[op->path] = {op, seen};
        continue;
      }
      if (!completed(*op) || op->out.result == outcome::unknown) continue;
      const auto it = last_write.find(op->path);
      if (it != last_write.end()) {
        const operation& w = *it->second.first;
        const bool ordered = w.completed < op->invoked || (w.session == op->session && w.session != 0);
        if (ordered) {
          std::string problem;
          if (writes_value(w)) {
            if (op->ok() && w.out.zxid != 0 && op->out.mzxid < w.out.zxid) {
              problem = "shows an older state than the client's own write";
            } else if (!op->ok() && !may_fall_between(removes[op->path], w, *op)) {
              problem = "finds no node after the client's own write, and no delete can fall between";
            }
          } else if (op->ok() && (op->out.czxid <= it->second.second || !may_fall_between(creates[op->path], w, *op))) {
            problem = "still shows a node the client's own delete removed";
          }
          if (!problem.empty()) found.add("a read " + problem + ":\n  " + describe(w) + "\n  " + describe(*op));
        }
      }
      seen = std::max(seen, op->out.zxid);
    }
  }
  return std::move(found).take();
}

std::vector<violation> check_reads_match_writes(const record& history) {
  collector found("reads match writes");
  std::unordered_map<std::string, const operation*> writer;  // value -> the write of it
  for (const auto& op : history.ops) {
    if (writes_value(op)) writer.emplace(op.value, &op);
  }
  const auto applied = applied_zxids(history);
  for (const auto& op : history.ops) {
    if (op.kind != op_kind::get || !op.ok()) continue;
    const auto it = writer.find(op.out.value);
    std::string problem;
    const operation* w = it == writer.end() ? nullptr : it->second;
    if (w == nullptr || w->path != op.path) {
      problem = "read a value never written to " + op.path;
    } else if (w->out.result == outcome::failed) {
      problem = "read the value of a write the server refused";
    } else if (op.completed < w->invoked) {
      problem = "read a value before its write was sent";
    } else if (w->ok() && w->out.zxid != 0 && op.out.mzxid != w->out.zxid) {
      problem = "read a value whose mzxid is not its write's zxid";
    } else if (w->ok() && w->out.version >= 0 && op.out.version != w->out.version) {
      problem = "read a value with another version than its write made";
    } else if (op.out.zxid != 0 && op.out.mzxid > op.out.zxid) {
      problem = "read a state newer than the reply's zxid";
    } else if (op.out.zxid != 0) {
      const auto a = applied.find(op.path);
      const operation* next = first_write_after(a == applied.end() ? nullptr : &a->second, op.out.mzxid);
      if (next != nullptr && next->out.zxid <= op.out.zxid) {
        problem =
            "read a state that a write of a zxid not after the reply's had already replaced (" + describe(*next) + ")";
      }
    }
    if (!problem.empty()) {
      found.add(problem + ":\n  " + describe(op) + (w != nullptr ? "\n  the write: " + describe(*w) : std::string()));
    }
  }
  return std::move(found).take();
}

std::vector<violation> check_watch_before_data(const record& history) {
  collector found("watch before data");
  // Per registration: its first event and its final delivery.
  struct delivered {
    const watch_event* first = nullptr;  // the first event that is not a final delivery
    const watch_event* ended = nullptr;
    std::size_t events = 0;
  };
  std::unordered_map<std::size_t, delivered> of;
  for (const auto& e : history.events) {
    auto& d = of[e.registration];
    if (e.kind == event_kind::ended) {
      if (d.ended == nullptr) d.ended = &e;
      continue;
    }
    ++d.events;
    if (d.first == nullptr) d.first = &e;
  }
  const auto applied = applied_zxids(history);
  // Each client's completed operations in completion order, and the writes of each path.
  auto clients = by_client(history);
  for (auto& [client, ops] : clients) {
    std::erase_if(ops, [](const operation* op) { return !completed(*op); });
    std::sort(ops.begin(), ops.end(),
              [](const operation* a, const operation* b) { return a->completed < b->completed; });
  }
  std::unordered_map<std::string, std::vector<const operation*>> writes;
  for (const auto& op : history.ops) {
    if (op.is_write() && op.out.result != outcome::failed) writes[op.path].push_back(&op);
  }
  for (const auto& reg : history.ops) {
    if (reg.kind != op_kind::get || !reg.watch || !reg.ok()) continue;
    const delivered d = of.count(reg.id) != 0 ? of[reg.id] : delivered{};
    if (d.events > 1) found.add("a one-shot watch fired " + std::to_string(d.events) + " times:\n  " + describe(reg));
    if (d.first != nullptr) {
      const watch_event& e = *d.first;
      if (e.path != reg.path || e.kind == event_kind::other || e.kind == event_kind::created) {
        found.add("an event a data watch on " + reg.path + " cannot get:\n  " + describe(reg) + "\n  " + describe(e));
      }
      // Some write of the path not refused, sent before the event, and not known to precede the watch.
      const auto& candidates = writes[reg.path];
      const bool changed = std::any_of(candidates.begin(), candidates.end(), [&](const operation* w) {
        return w->invoked < e.at && (w->out.zxid == 0 || w->out.zxid > reg.out.zxid);
      });
      if (!changed) found.add("an event without a change of the path:\n  " + describe(reg) + "\n  " + describe(e));
    }
    logical_time until = never;
    if (d.first != nullptr) until = d.first->at;
    if (d.ended != nullptr) until = std::min(until, d.ended->at);
    const auto a = applied.find(reg.path);
    const operation* change = first_write_after(a == applied.end() ? nullptr : &a->second, reg.out.zxid);
    const auto& mine = clients.at(reg.client);
    auto from = std::upper_bound(mine.begin(), mine.end(), reg.completed,
                                 [](logical_time t, const operation* op) { return t < op->completed; });
    for (auto it = from; it != mine.end() && (*it)->completed < until; ++it) {
      const operation* op = *it;
      std::string problem;
      if (op->path == reg.path && op->kind == op_kind::get && op->ok() && op->out.mzxid != reg.out.mzxid) {
        problem = "read another state of the path";
      } else if (op->path == reg.path && op->kind == op_kind::get && op->out.result == outcome::failed &&
                 op->out.why == failure::no_node) {
        problem = "found the path deleted";
      } else if (op->path == reg.path && op->is_write() && op->ok()) {
        problem = "changed the path itself";
      } else if (change != nullptr && op->out.zxid != 0 && op->out.zxid >= change->out.zxid) {
        problem = "got a reply at or past the path's next change (" + describe(*change) + ")";
      }
      if (!problem.empty()) {
        found.add("before its watch's event (" + (d.first ? describe(*d.first) : std::string("none yet")) +
                  ") the client " + problem + ":\n  watch: " + describe(reg) + "\n  then:  " + describe(*op));
        break;  // one per watch
      }
    }
  }
  return std::move(found).take();
}

}  // namespace zkwire::history
