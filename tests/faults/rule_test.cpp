// Rule syntax (faults/README.md), selection and the firing counters of the rule table.

#include <gtest/gtest.h>

#include <chrono>
#include <string>

#include "zkwire/faults/rule.hpp"
#include "zkwire/faults/rule_table.hpp"

namespace zkwire::faults {
namespace {

using namespace std::chrono_literals;

rule parse_ok(std::string_view text) {
  auto parsed = parse_rule(text);
  EXPECT_TRUE(parsed.rule.has_value()) << text << ": " << parsed.error;
  return parsed.rule.value_or(rule{});
}

std::string parse_error(std::string_view text) {
  auto parsed = parse_rule(text);
  EXPECT_FALSE(parsed.rule.has_value()) << text;
  return parsed.error;
}

frame_info reply_of(std::string op, std::string path = {}, std::int32_t xid = 1) {
  frame_info f;
  f.direction = rule_direction::reply;
  f.op = std::move(op);
  f.path = std::move(path);
  f.xid = xid;
  return f;
}

frame_info request_of(std::string op, std::string path = {}, std::int32_t xid = 1) {
  frame_info f = reply_of(std::move(op), std::move(path), xid);
  f.direction = rule_direction::request;
  return f;
}

TEST(rule_parse, TheIssueExample) {
  const rule r = parse_ok("reply op=create2 path=/locks/* nth=1 action=drop-then-rst");
  EXPECT_EQ(r.direction, rule_direction::reply);
  EXPECT_EQ(r.ops, std::vector<std::string>{"create2"});
  EXPECT_EQ(r.path, "/locks/*");
  EXPECT_EQ(r.nth, 1U);
  EXPECT_EQ(r.steps, (std::vector<action_step>{action_step::drop, action_step::rst}));
}

TEST(rule_parse, EveryKey) {
  const rule r = parse_ok("request op=getData,exists xid=-2 path=/a count=3 p=0.25 for=500 ms=40 action=delay");
  EXPECT_EQ(r.ops, (std::vector<std::string>{"getData", "exists"}));
  EXPECT_EQ(r.xid, -2);
  EXPECT_EQ(r.count, 3U);
  EXPECT_EQ(r.p, 0.25);
  EXPECT_EQ(r.active_for, 500ms);
  EXPECT_EQ(r.ms, 40ms);
  const rule inject = parse_ok("reply op=connect hex=0xFFffFFff action=inject-then-drop");
  EXPECT_EQ(inject.inject_bytes, std::string(4, '\xff'));
  EXPECT_EQ(parse_ok("dir=accept for=100 action=rst").direction, rule_direction::accept);
}

TEST(rule_parse, DefaultsToAnyDirection) { EXPECT_EQ(parse_ok("action=pass").direction, rule_direction::any); }

TEST(rule_parse, RoundTripsThroughToString) {
  for (const char* text : {"reply op=create2 path=/locks/* nth=1 action=drop-then-rst",
                           "request op=getData,exists xid=7 count=2 p=0.5 for=10 ms=3 action=delay-then-duplicate",
                           "any hex=00ff action=inject", "accept for=2000 action=rst", "reply action=hold ms=100"}) {
    const rule r = parse_ok(text);
    EXPECT_EQ(parse_ok(to_string(r)), r) << text << " -> " << to_string(r);
  }
}

TEST(rule_parse, RejectsWithAReason) {
  EXPECT_NE(parse_error("reply op=create2").find("missing action"), std::string::npos);
  EXPECT_NE(parse_error("reply op=creat action=drop").find("op="), std::string::npos);
  EXPECT_NE(parse_error("sideways action=drop").find("sideways"), std::string::npos);
  EXPECT_NE(parse_error("reply colour=red action=drop").find("colour"), std::string::npos);
  EXPECT_NE(parse_error("reply action=explode").find("action="), std::string::npos);
  EXPECT_NE(parse_error("reply action=drop-then-").find("action="), std::string::npos);
  EXPECT_NE(parse_error("reply p=1.5 action=drop").find("p="), std::string::npos);
  EXPECT_NE(parse_error("reply nth=0 action=drop").find("nth="), std::string::npos);
  EXPECT_NE(parse_error("reply xid=99999999999 action=drop").find("xid="), std::string::npos);
  EXPECT_NE(parse_error("reply action=delay").find("ms="), std::string::npos);
  EXPECT_NE(parse_error("reply action=inject").find("hex="), std::string::npos);
  EXPECT_NE(parse_error("reply hex=abc action=inject").find("hex="), std::string::npos);
  EXPECT_NE(parse_error("reply action=rst-then-drop").find("last"), std::string::npos);
  EXPECT_NE(parse_error("accept action=corrupt").find("accept"), std::string::npos);
  EXPECT_NE(parse_error("accept op=ping action=rst").find("accept"), std::string::npos);
  EXPECT_NE(parse_error("reply path=locks action=drop").find("path="), std::string::npos);
}

TEST(rule_select, DirectionOpXidAndPath) {
  const rule r = parse_ok("reply op=create2 path=/locks/* action=drop");
  EXPECT_TRUE(selects(r, reply_of("create2", "/locks/x-lock-")));
  EXPECT_FALSE(selects(r, request_of("create2", "/locks/x-lock-")));
  EXPECT_FALSE(selects(r, reply_of("create", "/locks/x-lock-")));
  EXPECT_FALSE(selects(r, reply_of("create2", "/other/x")));
  EXPECT_FALSE(selects(r, reply_of("create2")));
  const rule by_xid = parse_ok("any xid=-2 action=drop");
  EXPECT_TRUE(selects(by_xid, request_of("ping", {}, -2)));
  EXPECT_TRUE(selects(by_xid, reply_of("ping", {}, -2)));
  EXPECT_FALSE(selects(by_xid, reply_of("getData", "/a", 3)));
  frame_info accept;
  accept.direction = rule_direction::accept;
  EXPECT_FALSE(selects(by_xid, accept));
  EXPECT_TRUE(selects(parse_ok("accept action=rst"), accept));
  EXPECT_FALSE(selects(parse_ok("accept action=rst"), request_of("ping")));
}

TEST(rule_select, PathPrefixAndGlob) {
  EXPECT_TRUE(path_matches("/a", "/a/b"));
  EXPECT_TRUE(path_matches("/a", "/ab"));
  EXPECT_FALSE(path_matches("/a/b", "/a"));
  EXPECT_TRUE(path_matches("/locks/*", "/locks/x/y"));
  EXPECT_FALSE(path_matches("/locks/*", "/lock"));
  EXPECT_TRUE(path_matches("/l?cks/*-lock-*", "/locks/_c_1-lock-0000000001"));
  EXPECT_FALSE(path_matches("/l?cks/*-lock-*", "/locks/_c_1-read-0000000001"));
  EXPECT_TRUE(path_matches("*", "/"));
  EXPECT_TRUE(path_matches("/a*b*c", "/aXbYbZc"));
  EXPECT_FALSE(path_matches("/a*b*c", "/aXbYbZ"));
}

TEST(rule_table_test, NthFiresOnlyOnce) {
  rule_table t(1);
  const auto id = t.add(parse_ok("reply op=getData nth=3 action=drop"));
  int fired = 0;
  for (int i = 0; i < 10; ++i) {
    if (auto f = t.decide(reply_of("getData", "/a"), std::chrono::steady_clock::now())) {
      ++fired;
      EXPECT_EQ(f->id, id);
      EXPECT_EQ(t.counters(id)->matched, 3U);
    }
  }
  EXPECT_EQ(fired, 1);
  EXPECT_EQ(t.counters(id)->matched, 10U);
  EXPECT_EQ(t.counters(id)->fired, 1U);
}

TEST(rule_table_test, CountLimitsAndFirstFiringRuleWins) {
  rule_table t(1);
  const auto first = t.add(parse_ok("reply count=2 action=drop"));
  const auto second = t.add(parse_ok("reply action=delay ms=5"));
  for (int i = 0; i < 5; ++i) ASSERT_TRUE(t.decide(reply_of("ping"), std::chrono::steady_clock::now()));
  EXPECT_EQ(t.counters(first)->fired, 2U);
  EXPECT_EQ(t.counters(second)->fired, 3U);
  EXPECT_EQ(t.counters(second)->matched, 3U);  // the two frames the first rule took never reached it
  EXPECT_TRUE(t.remove(first));
  EXPECT_FALSE(t.remove(first));
  EXPECT_EQ(t.counters(first)->fired, 2U);  // counters outlive the rule
  EXPECT_FALSE(t.counters(99));
  t.clear();
  EXPECT_FALSE(t.decide(reply_of("ping"), std::chrono::steady_clock::now()));
}

TEST(rule_table_test, ProbabilityIsSeeded) {
  const auto run = [](std::uint64_t seed) {
    rule_table t(seed);
    t.add(parse_ok("request p=0.1 action=drop"));
    std::string pattern;
    for (int i = 0; i < 2000; ++i) pattern += t.decide(request_of("getData"), {}) ? '1' : '0';
    return pattern;
  };
  const std::string a = run(7);
  EXPECT_EQ(a, run(7));
  EXPECT_NE(a, run(8));
  const auto ones = std::count(a.begin(), a.end(), '1');
  EXPECT_GT(ones, 120);
  EXPECT_LT(ones, 280);
}

TEST(rule_table_test, ForExpires) {
  rule_table t(1);
  t.add(parse_ok("accept for=50 action=rst"));
  frame_info accept;
  accept.direction = rule_direction::accept;
  const auto now = std::chrono::steady_clock::now();
  EXPECT_TRUE(t.decide(accept, now));
  EXPECT_FALSE(t.decide(accept, now + 1s));
}

}  // namespace
}  // namespace zkwire::faults
