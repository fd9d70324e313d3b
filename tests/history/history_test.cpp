// The guarantee checker on histories written by hand: textbook linearizable and non-linearizable ones, operations
// without an answer, the search's budget, a long generated history (the cost on a realistic size), and each
// per-client check with a history that keeps it and one that breaks it.

#include <gtest/gtest.h>

#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "checker.hpp"
#include "client_checks.hpp"
#include "register_model.hpp"

namespace zkwire::history {
namespace {

using verdict = linearizability_result::verdict;

// Replies: applied (or answered), a read's data and stat, refused, without an answer.
reply ok(std::int32_t version, std::int64_t zxid = 0) {
  reply out;
  out.result = outcome::ok;
  out.version = version;
  out.zxid = zxid;
  out.mzxid = zxid;
  return out;
}
reply read(std::string value, std::int32_t version, std::int64_t mzxid = 0, std::int64_t zxid = 0) {
  reply out = ok(version, zxid);
  out.value = std::move(value);
  out.mzxid = mzxid;
  return out;
}
reply refused(failure why) {
  reply out;
  out.result = outcome::failed;
  out.why = why;
  return out;
}
reply unknown() { return reply{}; }

// Builds a record with explicit logical times.
class builder {
 public:
  // An operation invoked at `from` and completed at `to` (never: no answer) with `out`.
  std::size_t add(std::size_t client, op_kind kind, std::string path, std::string value, std::int32_t expected,
                  logical_time from, logical_time to, reply out, bool watch = false, std::int64_t session = 1) {
    operation op;
    op.id = r.ops.size();
    op.client = client;
    op.session = session;
    op.kind = kind;
    op.path = std::move(path);
    op.value = std::move(value);
    op.expected_version = expected;
    op.watch = watch;
    op.invoked = from;
    op.completed = to;
    op.out = std::move(out);
    r.ops.push_back(std::move(op));
    return r.ops.back().id;
  }
  std::size_t create(std::size_t client, const std::string& value, logical_time from, logical_time to,
                     reply out = ok(0)) {
    return add(client, op_kind::create, "/r", value, -1, from, to, std::move(out));
  }
  std::size_t set(std::size_t client, const std::string& value, std::int32_t expected, logical_time from,
                  logical_time to, reply out) {
    return add(client, op_kind::set, "/r", value, expected, from, to, std::move(out));
  }
  std::size_t remove(std::size_t client, std::int32_t expected, logical_time from, logical_time to, reply out) {
    return add(client, op_kind::remove, "/r", "", expected, from, to, std::move(out));
  }
  std::size_t get(std::size_t client, logical_time from, logical_time to, reply out, bool watch = false) {
    return add(client, op_kind::get, "/r", "", -1, from, to, std::move(out), watch);
  }
  void event(std::size_t registration, event_kind kind, logical_time at) {
    r.events.push_back(
        watch_event{registration, r.ops.at(registration).client, kind, r.ops.at(registration).path, at, 0});
  }

  record r;
};

verdict writes_of(const record& r, bool include_reads = false, std::uint64_t budget = 1'000'000) {
  linearizability_options options;
  options.include_reads = include_reads;
  options.budget = budget;
  const auto v = check_registers_linearizable(r, options);
  if (v.gave_up()) return verdict::gave_up;
  return v.linearizable() ? verdict::linearizable : verdict::not_linearizable;
}

// --- linearizability ---

TEST(Linearizability, ASequentialHistoryOfTheModelIsLinearizable) {
  builder b;
  b.create(0, "a", 1, 2);
  b.set(0, "b", 0, 3, 4, ok(1));
  b.get(1, 5, 6, read("b", 1));
  b.remove(1, 1, 7, 8, ok(-1));
  b.get(0, 9, 10, refused(failure::no_node));
  EXPECT_EQ(writes_of(b.r, true), verdict::linearizable);
}

TEST(Linearizability, ConcurrentCompareAndSetsPickAWinner) {
  builder b;
  b.create(0, "a", 1, 2);
  b.set(1, "x", 0, 3, 8, ok(1));                          // overlaps the next: either may come first
  b.set(2, "y", 0, 4, 6, refused(failure::bad_version));  // so it came second
  EXPECT_EQ(writes_of(b.r), verdict::linearizable);
}

TEST(Linearizability, TwoCompareAndSetsFromOneVersionInSequenceAreNot) {
  builder b;
  b.create(0, "a", 1, 2);
  b.set(1, "x", 0, 3, 4, ok(1));
  b.set(2, "y", 0, 5, 6, ok(1));  // after the first completed: version 0 was gone
  EXPECT_EQ(writes_of(b.r), verdict::not_linearizable);
  const auto v = check_registers_linearizable(b.r);
  ASSERT_EQ(v.paths.size(), 1U);
  EXPECT_NE(v.paths[0].explanation.find("op 2"), std::string::npos) << v.paths[0].explanation;
}

TEST(Linearizability, AReadOfAnOverwrittenValueIsNotLinearizableButIsAllowedWhenReadsAreLeftOut) {
  builder b;
  b.create(0, "a", 1, 2);
  b.set(0, "b", -1, 3, 4, ok(1));
  b.get(1, 5, 6, read("a", 0));  // stale: "b" was written before it began
  EXPECT_EQ(writes_of(b.r, true), verdict::not_linearizable);
  EXPECT_EQ(writes_of(b.r, false), verdict::linearizable);  // a follower may answer it (reads checked per session)
}

TEST(Linearizability, ARefusalMustMatchTheState) {
  builder b;
  b.create(0, "a", 1, 2);
  b.set(1, "x", 0, 3, 4, refused(failure::bad_version));  // version 0 was current all along
  EXPECT_EQ(writes_of(b.r), verdict::not_linearizable);
  builder c;
  c.create(0, "a", 1, 2);
  c.remove(1, -1, 3, 4, refused(failure::no_node));  // it existed
  EXPECT_EQ(writes_of(c.r), verdict::not_linearizable);
  builder d;
  d.create(0, "a", 1, 2);
  d.create(1, "b", 3, 4, refused(failure::node_exists));
  EXPECT_EQ(writes_of(d.r), verdict::linearizable);
}

TEST(Linearizability, AWriteWithoutAnAnswerMayTakeEffectLateOrNever) {
  builder late;  // took effect after a later operation began, as a read then shows
  late.create(0, "a", 1, never, unknown());
  late.get(1, 5, 6, refused(failure::no_node));
  late.get(1, 7, 8, read("a", 0));
  EXPECT_EQ(writes_of(late.r, true), verdict::linearizable);
  builder never_applied;
  never_applied.create(0, "a", 1, never, unknown());
  never_applied.create(1, "b", 3, 4);  // so the first never happened (or failed with NODEEXISTS after it)
  never_applied.set(1, "c", 0, 5, 6, ok(1));
  EXPECT_EQ(writes_of(never_applied.r), verdict::linearizable);
  builder too_early;  // a value read before its write was sent
  too_early.get(1, 1, 2, read("a", 0));
  too_early.create(0, "a", 3, never, unknown());
  EXPECT_EQ(writes_of(too_early.r, true), verdict::not_linearizable);
}

TEST(Linearizability, TheBudgetBoundsTheSearch) {
  // Many writes without an answer, all concurrent, and a read no order of them explains.
  builder b;
  b.create(0, "a", 1, 2);
  for (std::size_t i = 0; i < 16; ++i) b.set(1 + i, "w" + std::to_string(i), -1, 3 + i, never, unknown());
  b.get(0, 40, 41, read("nobody", 7));
  EXPECT_EQ(writes_of(b.r, true, 2000), verdict::gave_up);
}

// A register driven by four clients with overlapping requests: each operation takes effect at an instant inside its
// interval, in that order, and is given the model's answer (and, for an applied set or create, a zxid in that order);
// one answer in twenty is lost, one request in forty too (it has no effect). Linearizable by construction, and no
// longer once one answer is changed.
record generated(std::size_t count, std::uint64_t seed) {
  std::mt19937_64 random(seed);
  record r;
  bool present = false;
  std::int32_t version = 0;
  logical_time clock = 20;  // room before the first effect
  std::vector<logical_time> busy_until(4, 0);
  for (std::size_t i = 0; i < count; ++i) {
    // The effect at the next instant some client is free to have invoked the operation before it.
    logical_time effect = clock += 10;
    std::vector<std::size_t> free;
    while (free.empty()) {
      for (std::size_t c = 0; c < busy_until.size(); ++c) {
        if (busy_until[c] + 1 < effect) free.push_back(c);
      }
      if (free.empty()) effect = clock += 10;
    }
    const std::size_t client = free[random() % free.size()];
    operation op;
    op.id = r.ops.size();
    op.client = client;
    op.path = "/r";
    const auto choice = random() % 10;
    op.kind = choice < 2 ? op_kind::create : choice < 4 ? op_kind::remove : op_kind::set;
    op.value = "v" + std::to_string(i);
    op.expected_version = random() % 4 == 0 ? -1 : version - static_cast<std::int32_t>(random() % 2);
    // The operation's interval straddles its effect by a few steps either side, overlapping its neighbours'.
    op.invoked = std::max(busy_until[client] + 1, effect - 1 - random() % 15);
    op.completed = effect + 1 + random() % 15;
    busy_until[client] = op.completed;
    const bool matches = present && (op.expected_version == -1 || op.expected_version == version);
    const bool was_present = present;
    const std::int32_t was_version = version;
    reply& out = op.out;
    switch (op.kind) {
      case op_kind::create:
        out.result = present ? outcome::failed : outcome::ok;
        out.why = present ? failure::node_exists : failure::none;
        if (!present) present = true, version = 0;
        break;
      case op_kind::remove:
      case op_kind::set:
        out.result = matches ? outcome::ok : outcome::failed;
        out.why = matches ? failure::none : present ? failure::bad_version : failure::no_node;
        if (matches && op.kind == op_kind::remove) present = false;
        if (matches && op.kind == op_kind::set) out.version = ++version;
        break;
      case op_kind::get:
        break;
    }
    // Every write takes a zxid, as in ZooKeeper; the API shows an applied set's and create's.
    if (op.ok() && op.kind != op_kind::remove) out.zxid = static_cast<std::int64_t>(effect);
    if (random() % 20 == 0) {  // the answer was lost
      out = reply{};
      op.completed = never;
    }
    if (random() % 40 == 0) {  // the request was lost on its way: no effect
      present = was_present, version = was_version;
      out = reply{};
      op.completed = never;
    }
    r.ops.push_back(std::move(op));
  }
  // The record is in invocation order, as the recorder keeps it.
  std::sort(r.ops.begin(), r.ops.end(), [](const operation& a, const operation& b) { return a.invoked < b.invoked; });
  for (std::size_t i = 0; i < r.ops.size(); ++i) r.ops[i].id = i;
  return r;
}

TEST(Linearizability, ALongGeneratedHistoryIsCheckedWithinItsBudget) {
  for (std::uint64_t seed = 1; seed <= 3; ++seed) {
    auto r = generated(3000, seed);
    const auto v = check_registers_linearizable(r);
    ASSERT_TRUE(v.linearizable()) << "seed " << seed << ": " << (v.paths.empty() ? "" : v.paths[0].explanation);
    // Far below the default budget: the zxids' order, the bounds of the writes without an answer and the remembered
    // configurations keep the search about linear (measured: about 5,000 steps for 3,000 operations).
    EXPECT_LT(v.steps, 20'000U) << "seed " << seed;
    std::printf("seed %llu: %zu operations, %llu steps\n", static_cast<unsigned long long>(seed), r.ops.size(),
                static_cast<unsigned long long>(v.steps));
    // One answer changed: a successful set now reports a version one too high.
    for (auto& op : r.ops) {
      if (op.kind == op_kind::set && op.ok() && op.id > 1500) {
        op.out.version += 1;
        break;
      }
    }
    EXPECT_EQ(writes_of(r), verdict::not_linearizable) << "seed " << seed;
  }
}

// Without the zxids' order and the bounds the search is the textbook one: still exact, with many more steps
// (measured on 1,000 operations: about 40 times as many).
TEST(Linearizability, TheTextbookSearchAgrees) {
  auto r = generated(1000, 7);
  linearizability_options textbook;
  textbook.order_by_zxid = false;
  textbook.bound_unknown_by_next_answer = false;
  const auto plain = check_registers_linearizable(r, textbook);
  EXPECT_TRUE(plain.linearizable()) << (plain.paths.empty() ? "" : plain.paths[0].explanation);
  const auto pruned = check_registers_linearizable(r);
  EXPECT_TRUE(pruned.linearizable());
  EXPECT_LT(pruned.steps, plain.steps);
  std::printf("1000 operations: %llu steps, %llu without the zxids' order and the bounds\n",
              static_cast<unsigned long long>(pruned.steps), static_cast<unsigned long long>(plain.steps));
}

// --- per-client checks ---

TEST(ClientChecks, CompletionsInSubmissionOrderUnlessTheClientEndedOneItself) {
  builder b;
  b.get(0, 1, 5, read("a", 0));
  const auto second = b.get(0, 2, 3, read("a", 0));
  EXPECT_EQ(check_completion_order(b.r).size(), 1U);
  b.r.ops[second].out = unknown();
  b.r.ops[second].out.client_side = true;  // its own deadline
  EXPECT_TRUE(check_completion_order(b.r).empty());
}

TEST(ClientChecks, ReplyZxidsNeverGoBack) {
  builder b;
  b.get(0, 1, 2, read("a", 0, 5, 10));
  b.get(0, 3, 4, read("a", 0, 5, 12));
  EXPECT_TRUE(check_monotonic_reads(b.r).empty());
  b.get(0, 5, 6, read("a", 0, 5, 9));  // e.g. a reconnect to a member behind what the client saw
  EXPECT_EQ(check_monotonic_reads(b.r).size(), 1U);
  b.get(1, 7, 8, read("a", 0, 5, 9));  // another client: its own order
  EXPECT_EQ(check_monotonic_reads(b.r).size(), 1U);
}

TEST(ClientChecks, AClientReadsItsOwnWrite) {
  builder b;
  b.create(0, "a", 1, 2, ok(0, 10));
  b.set(0, "b", 0, 3, 4, ok(1, 12));
  b.get(0, 5, 6, read("b", 1, 12, 12));
  EXPECT_TRUE(check_read_your_writes(b.r).empty());
  b.get(0, 7, 8, read("a", 0, 10, 13));
  EXPECT_EQ(check_read_your_writes(b.r).size(), 1U);
  builder deleted;
  deleted.create(0, "a", 1, 2, ok(0, 10));
  deleted.remove(0, -1, 3, 4, ok(-1));
  deleted.get(0, 5, 6, refused(failure::no_node));
  EXPECT_TRUE(check_read_your_writes(deleted.r).empty());
  reply still = read("a", 0, 10, 11);
  still.czxid = 10;
  deleted.get(0, 7, 8, still);  // the node it deleted, and nobody created it again
  EXPECT_EQ(check_read_your_writes(deleted.r).size(), 1U);
}

TEST(ClientChecks, AReadShowsAWriteOfItsPathAsItWasApplied) {
  builder b;
  b.create(0, "a", 1, 2, ok(0, 10));
  b.set(0, "b", 0, 3, 4, ok(1, 12));
  b.get(1, 5, 6, read("a", 0, 10, 11));  // stale but consistent at zxid 11
  EXPECT_TRUE(check_reads_match_writes(b.r).empty());
  b.get(1, 7, 8, read("a", 0, 10, 12));     // claims zxid 12, yet "b" was applied at 12
  b.get(1, 9, 10, read("zzz", 0, 10, 12));  // never written (a reply meant for another request)
  b.get(1, 11, 12, read("b", 1, 11, 12));   // "b" was applied at zxid 12, not 11
  EXPECT_EQ(check_reads_match_writes(b.r).size(), 3U);
}

TEST(ClientChecks, NoNewerDataBeforeTheWatchEvent) {
  builder b;
  b.create(0, "a", 1, 2, ok(0, 10));
  const auto watch = b.get(1, 3, 4, read("a", 0, 10, 10), true);
  b.set(0, "b", 0, 5, 6, ok(1, 12));
  b.add(1, op_kind::get, "/other", "", -1, 7, 8, read("o", 0, 3, 11));  // before the change: fine
  b.get(1, 9, 10, read("b", 1, 12, 12));                                // the new data...
  b.event(watch, event_kind::data_changed, 11);                         // ...before its event
  const auto found = check_watch_before_data(b.r);
  ASSERT_EQ(found.size(), 1U);
  EXPECT_NE(found[0].what.find("read another state"), std::string::npos) << found[0].what;
  b.r.events[0].at = 8;  // the event first: fine
  EXPECT_TRUE(check_watch_before_data(b.r).empty());
  // A reply on another path at or past the change's zxid, before the event.
  builder other;
  other.create(0, "a", 1, 2, ok(0, 10));
  const auto w = other.get(1, 3, 4, read("a", 0, 10, 10), true);
  other.set(0, "b", 0, 5, 6, ok(1, 12));
  other.add(1, op_kind::get, "/other", "", -1, 7, 8, read("o", 0, 3, 13));
  other.event(w, event_kind::data_changed, 9);
  EXPECT_EQ(check_watch_before_data(other.r).size(), 1U);
}

TEST(ClientChecks, AWatchFiresOnceAndOnlyOnAChange) {
  builder b;
  b.create(0, "a", 1, 2, ok(0, 10));
  const auto watch = b.get(1, 3, 4, read("a", 0, 10, 10), true);
  b.event(watch, event_kind::data_changed, 5);  // nobody changed it
  EXPECT_EQ(check_watch_before_data(b.r).size(), 1U);
  b.set(0, "b", 0, 4, 6, ok(1, 12));
  EXPECT_TRUE(check_watch_before_data(b.r).empty());
  b.event(watch, event_kind::data_changed, 7);  // a one-shot watch, twice
  EXPECT_EQ(check_watch_before_data(b.r).size(), 1U);
}

TEST(ClientChecks, HoldsStayWithinCapacityAndTokensGrow) {
  record r;
  const auto add = [&](std::size_t holder, std::size_t capacity, std::size_t leases, std::int64_t token,
                       logical_time from, logical_time to) {
    r.holds.push_back(hold{capacity == 1 ? "/lock" : "/sem", capacity, holder, leases, token, from, to, 0, 0});
  };
  add(0, 1, 1, 10, 1, 5);
  add(1, 1, 1, 12, 6, 9);
  add(0, 2, 1, 20, 1, 9);
  add(1, 2, 1, 21, 2, 9);
  EXPECT_TRUE(check_holds(r).empty());
  add(2, 1, 1, 11, 8, 10);  // overlaps holder 1, and an older token
  add(2, 2, 1, 22, 3, 4);   // a third lease of two
  EXPECT_EQ(check_holds(r).size(), 3U);
}

TEST(Checker, ReportsFiguresAndEveryViolation) {
  builder b;
  b.create(0, "a", 1, 2, ok(0, 10));
  b.set(1, "x", 0, 3, 4, ok(1, 11));
  b.set(2, "y", 0, 5, 6, ok(1, 12));
  const auto r = check(b.r);
  EXPECT_EQ(r.operations, 3U);
  EXPECT_EQ(r.writes_searched, 3U);
  ASSERT_FALSE(r.passed());
  EXPECT_EQ(r.violations[0].property, "linearizable writes");
  EXPECT_NE(r.summary().find("3 operations"), std::string::npos) << r.summary();
}

}  // namespace
}  // namespace zkwire::history
