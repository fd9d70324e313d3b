// The run-time rule API of zkwire::faults (what `zkwire proxy --control` drives): ids, listing, removal, history,
// counters, member= selection, and rule changes while frames flow through a proxy, from other threads.
// The proxy here fronts a fake upstream that answers every request frame with a reply header for its xid.

#include <gtest/gtest.h>

#include <array>
#include <asio/co_spawn.hpp>
#include <asio/detached.hpp>
#include <asio/executor_work_guard.hpp>
#include <asio/io_context.hpp>
#include <asio/ip/tcp.hpp>
#include <asio/read.hpp>
#include <asio/use_awaitable.hpp>
#include <asio/use_future.hpp>
#include <asio/write.hpp>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <future>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "zkwire/faults/proxy.hpp"
#include "zkwire/faults/rule_table.hpp"

namespace zkwire::faults {
namespace {

using namespace std::chrono_literals;
using tcp = asio::ip::tcp;

frame_info request_frame(std::uint32_t member = 0) {
  frame_info f;
  f.direction = rule_direction::request;
  f.op = "exists";
  f.path = "/a";
  f.xid = 1;
  f.member = member;
  return f;
}

// Adds a rule that must parse and returns its id.
rule_id add_ok(rule_table& table, std::string_view text) {
  std::string error;
  const auto id = table.add(text, &error);
  EXPECT_TRUE(id.has_value()) << text << ": " << error;
  return id.value_or(0);
}

std::vector<rule_id> ids_of(const std::vector<rule_entry>& entries) {
  std::vector<rule_id> ids;
  ids.reserve(entries.size());
  for (const auto& e : entries) ids.push_back(e.id);
  return ids;
}

TEST(rule_api, IdsAreHandedOutInOrderAndNeverReused) {
  rule_table table(1);
  EXPECT_EQ(add_ok(table, "request action=drop"), 1U);
  EXPECT_EQ(add_ok(table, "reply action=pass"), 2U);
  EXPECT_TRUE(table.remove(2));
  EXPECT_EQ(add_ok(table, "any action=pass"), 3U);
  EXPECT_EQ(table.clear(), 2U);
  EXPECT_EQ(add_ok(table, "any action=pass"), 4U);
  EXPECT_EQ(ids_of(table.rules()), (std::vector<rule_id>{4}));
}

TEST(rule_api, ListsTheRulesInForceInTheOrderTheyAreTried) {
  rule_table table(1);
  add_ok(table, "request op=exists action=drop");
  add_ok(table, "member=2 reply action=delay ms=5");
  add_ok(table, "accept action=rst");
  ASSERT_TRUE(table.remove(2));
  const auto rules = table.rules();
  ASSERT_EQ(ids_of(rules), (std::vector<rule_id>{1, 3}));
  EXPECT_EQ(to_string(rules[0].rule), "request op=exists action=drop");
  EXPECT_EQ(to_string(rules[1].rule), "accept action=rst");
  EXPECT_FALSE(rules[0].removed);
}

TEST(rule_api, RemovalAndClearFailForUnknownIds) {
  rule_table table(1);
  EXPECT_FALSE(table.remove(0));
  EXPECT_FALSE(table.remove(1));
  const auto id = add_ok(table, "any action=pass");
  EXPECT_TRUE(table.remove(id));
  EXPECT_FALSE(table.remove(id));
  EXPECT_EQ(table.clear(), 0U);
}

TEST(rule_api, ABadRuleLeavesTheTableUnchanged) {
  rule_table table(1);
  add_ok(table, "request action=drop");
  std::string error;
  EXPECT_FALSE(table.add("request op=nosuchop action=drop", &error).has_value());
  EXPECT_NE(error.find("op="), std::string::npos) << error;
  EXPECT_FALSE(table.add("", &error).has_value());
  EXPECT_FALSE(table.add("member=0 action=drop", &error).has_value());
  EXPECT_NE(error.find("member"), std::string::npos) << error;
  EXPECT_EQ(ids_of(table.rules()), (std::vector<rule_id>{1}));
  EXPECT_EQ(table.history().size(), 1U);
  EXPECT_EQ(add_ok(table, "reply action=pass"), 2U) << "a rejected rule must not use up an id";
}

TEST(rule_api, CountersKeepCountingPerRuleAndStayAfterRemoval) {
  rule_table table(1);
  const auto first = add_ok(table, "request op=exists count=2 action=drop");
  const auto second = add_ok(table, "request action=pass");
  const auto now = std::chrono::steady_clock::now();
  std::vector<rule_id> fired;
  fired.reserve(4);
  for (int i = 0; i < 4; ++i) fired.push_back(table.decide(request_frame(), now).value_or(fired_rule{}).id);
  EXPECT_EQ(fired, (std::vector<rule_id>{first, first, second, second}));
  EXPECT_EQ(table.counters(first)->matched, 4U);
  EXPECT_EQ(table.counters(first)->fired, 2U);
  EXPECT_EQ(table.counters(second)->fired, 2U);
  ASSERT_TRUE(table.remove(first));
  EXPECT_EQ(table.decide(request_frame(), now)->id, second);
  const auto history = table.history();
  ASSERT_EQ(history.size(), 2U);
  EXPECT_TRUE(history[0].removed);
  EXPECT_EQ(history[0].counters.matched, 4U) << "a removed rule stops counting";
  EXPECT_EQ(history[1].counters.fired, 3U);
  EXPECT_FALSE(table.counters(3).has_value());
}

TEST(rule_api, MemberSelectsTheEnsembleMember) {
  rule_table table(1);
  const auto id = add_ok(table, "member=2,3 request action=drop");
  const auto now = std::chrono::steady_clock::now();
  EXPECT_FALSE(table.decide(request_frame(1), now).has_value());
  EXPECT_EQ(table.decide(request_frame(2), now).value_or(fired_rule{}).id, id);
  EXPECT_EQ(table.decide(request_frame(3), now).value_or(fired_rule{}).id, id);
  EXPECT_FALSE(table.decide(request_frame(0), now).has_value());
  const auto one = add_ok(table, "member=1 accept action=rst");
  frame_info accept;
  accept.direction = rule_direction::accept;
  EXPECT_EQ(table.decide(accept, now).value_or(fired_rule{}).id, one) << "a lone proxy (member 0) is member 1";
  accept.member = 2;
  EXPECT_FALSE(table.decide(accept, now).has_value());
  EXPECT_EQ(to_string(*parse_rule("request member=3,1 action=drop").rule), "request member=3,1 action=drop");
}

TEST(rule_api, ConcurrentAddRemoveWhileFramesAreDecided) {
  rule_table table(7);
  constexpr int deciders = 2;
  constexpr int frames_each = 20000;
  constexpr int min_rounds = 200;  // the deciders keep going until the changer has done this many
  std::atomic<bool> done{false};
  std::atomic<int> rounds{0};
  std::atomic<std::uint64_t> fired{0};
  std::vector<std::thread> threads;
  threads.reserve(deciders);
  for (int t = 0; t < deciders; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < frames_each || rounds < min_rounds; ++i) {
        if (table.decide(request_frame(), std::chrono::steady_clock::now())) ++fired;
      }
    });
  }
  std::thread changer([&] {
    while (!done) {
      const auto a = add_ok(table, "request action=pass");
      add_ok(table, "request p=0.5 action=drop");
      table.remove(a);
      if (table.rules().size() > 8) table.clear();
      ++rounds;
    }
  });
  for (auto& t : threads) t.join();
  done = true;
  changer.join();
  std::uint64_t counted = 0;
  for (const auto& e : table.history()) {
    counted += e.counters.fired;
    EXPECT_LE(e.counters.fired, e.counters.matched);
  }
  EXPECT_EQ(counted, fired.load()) << "every fire is counted against exactly one rule";
  EXPECT_GE(table.history().size(), 2U * min_rounds);
}

// --- through a proxy ---

std::uint32_t big_endian(const unsigned char* p) {
  return (std::uint32_t{p[0]} << 24) | (std::uint32_t{p[1]} << 16) | (std::uint32_t{p[2]} << 8) | std::uint32_t{p[3]};
}

// A ZooKeeper-shaped peer: answers the handshake frame with one frame, then every request (xid, type, ...) with
// a reply header (xid, zxid 0, err 0).
asio::awaitable<void> fake_server(tcp::acceptor& acceptor) {
  auto socket = co_await acceptor.async_accept(asio::use_awaitable);
  for (;;) {
    std::array<unsigned char, 4> length{};
    co_await asio::async_read(socket, asio::buffer(length), asio::use_awaitable);
    std::string payload(big_endian(length.data()), '\0');
    co_await asio::async_read(socket, asio::buffer(payload), asio::use_awaitable);
    std::string reply(16, '\0');
    reply.replace(0, 4, payload.substr(0, 4));
    const std::string frame = std::string{'\0', '\0', '\0', '\x10'} + reply;
    co_await asio::async_write(socket, asio::buffer(frame), asio::use_awaitable);
  }
}

// Polls `condition` until it holds or 10 s pass.
template <class Condition>
bool eventually(Condition condition) {
  const auto deadline = std::chrono::steady_clock::now() + 10s;
  while (!condition()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(1ms);
  }
  return true;
}

std::string frame_of(std::int32_t xid) {
  // xid, type 3 (exists), ustring "/a", watch false
  const auto x = static_cast<std::uint32_t>(xid);
  const std::string body{static_cast<char>(x >> 24),
                         static_cast<char>(x >> 16),
                         static_cast<char>(x >> 8),
                         static_cast<char>(x),
                         0,
                         0,
                         0,
                         3,
                         0,
                         0,
                         0,
                         2,
                         '/',
                         'a',
                         0};
  return std::string{0, 0, 0, static_cast<char>(body.size())} + body;
}

class rule_api_proxy : public ::testing::Test {
 protected:
  void SetUp() override {
    acceptor_.open(tcp::v4());
    acceptor_.bind({asio::ip::make_address("127.0.0.1"), 0});
    acceptor_.listen();
    asio::co_spawn(io_, fake_server(acceptor_), asio::detached);
    proxy_options options;
    options.upstream_port = acceptor_.local_endpoint().port();
    options.seed = 3;
    proxy_ = std::make_unique<proxy>(io_.get_executor(), std::move(options));
    ASSERT_FALSE(proxy_->listen());
    client_.connect(proxy_->local_endpoint());
    send(std::string{0, 0, 0, 4, 'h', 'e', 'l', 'o'});  // the handshake
    ASSERT_NE(next_reply_xid(), -100);                  // its answer
  }
  void TearDown() override {
    std::error_code ignored;
    client_.close(ignored);
    proxy_->stop();
    acceptor_.close(ignored);
    work_.reset();
    thread_.join();
  }

  void send(const std::string& bytes) {
    auto done = asio::async_write(client_, asio::buffer(bytes), asio::use_future);
    ASSERT_EQ(done.wait_for(10s), std::future_status::ready);
    done.get();
  }
  // The xid of the next reply frame the client gets (-100 if none comes within 10 s).
  std::int32_t next_reply_xid() {
    auto header = std::make_shared<std::array<unsigned char, 20>>();
    auto done = asio::async_read(client_, asio::buffer(*header), asio::use_future);
    if (done.wait_for(10s) != std::future_status::ready) return -100;
    done.get();
    const auto& h = *header;
    return static_cast<std::int32_t>(big_endian(h.data() + 4));
  }

  asio::io_context io_;
  tcp::acceptor acceptor_{io_};
  std::unique_ptr<proxy> proxy_;
  tcp::socket client_{io_};

 private:
  asio::executor_work_guard<asio::io_context::executor_type> work_{io_.get_executor()};
  std::thread thread_{[this] { io_.run(); }};
};

TEST_F(rule_api_proxy, ARuleAddedOrRemovedAppliesToTheNextFrameOfAnOpenConnection) {
  send(frame_of(1));
  EXPECT_EQ(next_reply_xid(), 1);
  const auto drop = proxy_->add_rule("request op=exists action=drop");
  ASSERT_TRUE(drop);
  send(frame_of(2));
  // Writing returns before the proxy has read the frame: remove the rule only once it has decided on it.
  ASSERT_TRUE(eventually([&] { return proxy_->stats().requests.frames == 3; })) << "frame 2 never reached the proxy";
  ASSERT_TRUE(proxy_->remove_rule(*drop));
  send(frame_of(3));
  // The reply after 1 is 3's: 2 was dropped while the rule was in force, 3 went through after it was removed.
  EXPECT_EQ(next_reply_xid(), 3);
  EXPECT_EQ(proxy_->counters(*drop)->fired, 1U);
  const auto stats = proxy_->stats();
  EXPECT_EQ(stats.accepted, 1U);
  EXPECT_EQ(stats.open, 1U);
  EXPECT_EQ(stats.requests.frames, 4U);  // handshake, 1, 2, 3
  EXPECT_EQ(stats.requests.bytes, 8U + 3 * 19U);
  EXPECT_EQ(stats.replies.frames, 3U);  // handshake, 1, 3
  EXPECT_EQ(stats.replies.bytes, 3 * 20U);
}

TEST_F(rule_api_proxy, FramesFlowWhileOtherThreadsChangeTheRules) {
  constexpr int frames = 2000;
  constexpr int min_rounds = 50;  // frames keep flowing until the changer has done this many
  std::atomic<bool> done{false};
  std::atomic<int> rounds{0};
  std::thread changer([&] {
    while (!done) {
      const auto a = proxy_->add_rule("request op=exists action=pass");
      proxy_->add_rule("reply op=exists p=0.5 action=pass");
      proxy_->remove_rule(*a);
      (void)proxy_->rules().rules();
      (void)proxy_->stats();
      if (proxy_->rules().rules().size() > 8) proxy_->clear_rules();
      ++rounds;
    }
  });
  int sent = 0;
  int in_order = 0;
  for (int xid = 1; xid <= frames || rounds < min_rounds; ++xid) {
    send(frame_of(xid));
    ++sent;
    if (next_reply_xid() == xid) ++in_order;
  }
  done = true;
  changer.join();
  EXPECT_EQ(in_order, sent) << "pass rules coming and going must not lose or reorder frames";
  std::uint64_t fired = 0;
  for (const auto& e : proxy_->rules().history()) fired += e.counters.fired;
  const auto stats = proxy_->stats();
  EXPECT_EQ(stats.requests.frames, static_cast<std::uint64_t>(sent) + 1);
  EXPECT_EQ(stats.replies.frames, static_cast<std::uint64_t>(sent) + 1);
  EXPECT_LE(fired, 2U * static_cast<unsigned>(sent));
  EXPECT_GE(proxy_->rules().history().size(), 2U * min_rounds);
}

}  // namespace
}  // namespace zkwire::faults
