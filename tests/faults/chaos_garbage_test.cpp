// The chaos suite, scenario 8 of docs/design.md#chaos-scenarios: garbage from the server, made by the proxy out of a
// real reply — truncated frames, impossible length prefixes (-1, 0, 0x7fffffff, over the maximum), bad string and
// vector lengths, an unknown xid, replies out of order, a duplicated reply, a notification during the handshake. Each
// time the client must drop the connection (a protocol error where the bytes are wrong), fail what was in flight
// exactly once, reconnect on the same session, and neither crash, hang nor allocate the bogus length (the ASan+UBSan
// build of this suite checks the last part).

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <thread>

#include "chaos_support.hpp"
#include "zkwire/proto/message.hpp"

namespace zkwire::test {
namespace {

using namespace std::chrono_literals;

template <class T>
class garbage : public chaos_test<T> {
 protected:
  struct outcome {
    int completions = 0;
    std::error_code first_error;
    std::string states;
    bool protocol_reason = false;  // the connection was dropped for a protocol violation
  };

  // Makes a client with a node `root()/g` holding a child, arms `rule` (with PATH replaced by root()/g) on the
  // proxy the client uses, runs `reads` pipelined reads of the node (`children`: getChildren instead of getData)
  // and checks that they complete exactly once and that the same session carries on afterwards.
  outcome run(const std::string& rule, int reads = 1, bool children = false) {
    outcome out;
    client& c = this->make_client(4000ms);
    auto ops = this->ops(c);
    const std::string node = this->root() + "/g";
    EXPECT_FALSE(ops.create(this->root()).first);
    EXPECT_FALSE(ops.create(node, "data").first);
    EXPECT_FALSE(ops.create(node + "/child").first);
    const auto session = ops.session();
    auto states = std::make_shared<state_recorder>();
    this->loop_.on_loop([&] { c.set_state_listener(states->listener()); });
    std::string text = rule;
    if (const auto at = text.find("PATH"); at != std::string::npos) text.replace(at, 4, node);
    const auto placed = this->add_rule_here(c, text);

    auto completions = std::make_shared<std::atomic<int>>(0);
    auto first_error = std::make_shared<std::error_code>();
    this->loop_.on_loop([&] {
      for (int i = 0; i < reads; ++i) {
        auto done = [completions, first_error](std::error_code ec) {
          if (completions->fetch_add(1) == 0 || !*first_error) *first_error = ec;
        };
        if (children) {
          c.async_get_children(node, [done](std::error_code ec, const children_result&) { done(ec); });
        } else {
          c.async_get(node, [done](std::error_code ec, const get_result&) { done(ec); });
        }
      }
    });
    EXPECT_TRUE(eventually([&] { return completions->load() >= reads; }, 20s, "every read completed",
                           [&] { return std::to_string(completions->load()) + " completions"; }));
    EXPECT_GE(this->fired(placed), 1U) << "the rule never fired";
    // The session continues; the fault fired only once (nth=1), so the next connection is clean.
    EXPECT_FALSE(ops.connect());
    EXPECT_EQ(ops.session(), session);
    const auto [get_ec, data] = ops.get(node);
    EXPECT_FALSE(get_ec) << get_ec.message();
    EXPECT_EQ(data.data, "data");
    // That read completed after every earlier one (completions come in submission order): a read completing
    // twice would have shown up by now.
    out.completions = completions->load();
    EXPECT_EQ(out.completions, reads) << "a read completed twice or never";
    out.first_error = *first_error;
    out.states = states->text();
    for (const auto& e : states->entries()) {
      if (e.to == session_state::suspended && proto::is_protocol_violation(e.reason)) out.protocol_reason = true;
    }
    return out;
  }

  void expect_protocol_error(const std::string& rule, int reads = 1, bool children = false) {
    const outcome o = run(rule, reads, children);
    EXPECT_TRUE(is_connection_loss(o.first_error) || proto::is_protocol_violation(o.first_error))
        << o.first_error.message();
    EXPECT_TRUE(o.protocol_reason) << "states: " << o.states;
  }
};
TYPED_TEST_SUITE(garbage, cluster_kinds, cluster_kind_names);

std::string reply_hex(std::int32_t xid) {
  std::string frame;
  EXPECT_FALSE(proto::encode_reply_frame(frame, proto::reply_header{xid, 1, 0}, proto::no_body{}));
  return faults::to_hex(frame);
}

TYPED_TEST(garbage, TruncatedFrameThenFin) {
  const auto o = this->run("reply op=getData path=PATH nth=1 action=truncate-then-fin");
  EXPECT_TRUE(is_connection_loss(o.first_error)) << o.first_error.message();
}

TYPED_TEST(garbage, TruncatedFrameThenMore) {
  // The stream goes on after half a frame: the next frame's bytes are read as the rest of this one.
  this->expect_protocol_error("reply op=getData path=PATH nth=1 action=truncate", 2);
}

TYPED_TEST(garbage, LengthMinusOne) {
  this->expect_protocol_error("reply op=getData path=PATH nth=1 hex=ffffffff action=inject-then-drop");
}

TYPED_TEST(garbage, LengthZero) {
  this->expect_protocol_error("reply op=getData path=PATH nth=1 hex=00000000 action=inject-then-drop");
}

TYPED_TEST(garbage, LengthMaxInt) {
  this->expect_protocol_error("reply op=getData path=PATH nth=1 hex=7fffffff action=inject-then-drop");
}

TYPED_TEST(garbage, LengthOverTheMaximum) {
  // Over the server's jute.maxbuffer + 64 KiB, under the client's 64 MiB limit: the stream never completes the
  // frame, so the read timeout ends the connection as a protocol violation.
  this->expect_protocol_error("reply op=getData path=PATH nth=1 hex=00110000 action=inject-then-drop");
}

TYPED_TEST(garbage, DataLengthPastTheEnd) {
  this->expect_protocol_error("reply op=getData path=PATH nth=1 hex=7ffffff0 action=rewrite");
}

TYPED_TEST(garbage, HugeChildCount) {
  this->expect_protocol_error("reply op=getChildren2 path=PATH nth=1 hex=40000000 action=rewrite", 1, true);
}

TYPED_TEST(garbage, NegativeChildNameLength) {
  this->expect_protocol_error("reply op=getChildren2 path=PATH nth=1 hex=00000001fffffff0 action=rewrite", 1, true);
}

TYPED_TEST(garbage, UnknownXid) {
  this->expect_protocol_error("reply op=getData path=PATH nth=1 hex=" + reply_hex(0x7fff0000) +
                              " action=inject-then-drop");
}

TYPED_TEST(garbage, RepliesOutOfOrder) {
  this->expect_protocol_error("reply op=getData path=PATH nth=1 action=reorder", 2);
}

TYPED_TEST(garbage, DuplicatedReply) {
  // The first copy completes the read; the second answers nothing that is pending.
  const auto o = this->run("reply op=getData path=PATH nth=1 action=duplicate");
  EXPECT_FALSE(o.first_error) << o.first_error.message();
  EXPECT_TRUE(o.protocol_reason) << "states: " << o.states;
}

// A notification whose path has no '/' used to send the client's watch routing into an endless walk up the
// path (found by fuzz_session_engine). Now it is delivered to nobody and the read right behind it succeeds.
TYPED_TEST(garbage, NotificationWithARelativePath) {
  proto::watcher_event event;
  event.type = proto::event_type::node_data_changed;
  event.path = "zz";
  std::string frame;
  ASSERT_FALSE(proto::encode_reply_frame(frame, proto::reply_header{-1, -1, 0}, event));
  const auto o = this->run("reply op=getData path=PATH nth=1 hex=" + faults::to_hex(frame) + " action=inject");
  EXPECT_FALSE(o.first_error) << o.first_error.message();
}

TYPED_TEST(garbage, NotificationDuringTheHandshake) {
  client& c = this->make_client(4000ms);
  auto ops = this->ops(c);
  ASSERT_FALSE(ops.create(this->root()).first);
  const auto session = ops.session();
  proto::watcher_event event;
  event.type = proto::event_type::node_deleted;
  event.path = this->root();
  std::string frame;
  ASSERT_FALSE(proto::encode_reply_frame(frame, proto::reply_header{-1, -1, 0}, event));
  auto states = std::make_shared<state_recorder>();
  this->loop_.on_loop([&] { c.set_state_listener(states->listener()); });
  // Each proxy puts the notification in front of the first ConnectResponse it forwards from now on.
  const auto rule = this->proxies_->add_rule("reply op=connect nth=1 hex=" + faults::to_hex(frame) + " action=inject");
  const auto start = std::chrono::steady_clock::now();
  this->proxies_->cut_connections(faults::cut_kind::rst);
  ASSERT_TRUE(states->reaches(session_state::suspended, 10s, start));
  ASSERT_FALSE(ops.connect()) << states->text();
  EXPECT_EQ(ops.session(), session);
  EXPECT_FALSE(ops.get(this->root()).first);
  // The first frame of a handshake is the ConnectResponse: a notification there is a protocol violation, so the
  // client gave up every connection that got one (the proxy logs the client closing it) and is on a clean one.
  // (Counting connections instead would also count those a member closes on its own while the session moves.)
  const auto fired = this->proxies_->fired(rule);
  EXPECT_GE(fired, 1U);
  std::set<std::string> injected;
  std::set<std::string> closed_by_client;
  const auto read_log = [&] {
    static const std::regex line(R"(^(p[0-9]+) \{.*"conn":([0-9]+),(.*)$)");
    std::istringstream in(this->proxies_->log_tail(100000));
    for (std::string text; std::getline(in, text);) {
      std::smatch m;
      if (!std::regex_match(text, m, line)) continue;
      const std::string connection = m[1].str() + " conn " + m[2].str();
      if (m[3].str().find(R"("action":"inject")") != std::string::npos) injected.insert(connection);
      if (m[3].str().find(R"("event":"close","detail":"client closed)") != std::string::npos) {
        closed_by_client.insert(connection);
      }
    }
    return std::includes(closed_by_client.begin(), closed_by_client.end(), injected.begin(), injected.end());
  };
  EXPECT_TRUE(eventually(read_log, 10s, "the client closing every connection with a notification in its handshake",
                         [&] { return this->proxies_->log_tail(40); }));
  EXPECT_EQ(injected.size(), fired);
}

}  // namespace
}  // namespace zkwire::test
