// zkwire::client over the transport and clock seams: an in-memory connection to a server scripted with the proto
// layer's encoders, and virtual time advanced by the test. Nothing here sleeps or opens a socket; every timing
// below is virtual and exact.

#include <gtest/gtest.h>

#include <asio/io_context.hpp>
#include <asio/post.hpp>
#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <system_error>
#include <vector>

#include "harness.hpp"           // tests/proto/session: frame builders made with proto's encoders
#include "memory_transport.hpp"  // tests/sim
#include "virtual_clock.hpp"     // tests/sim
#include "zkwire/client/client.hpp"
#include "zkwire/client/errors.hpp"
#include "zkwire/client/transport.hpp"
#include "zkwire/client/with_timeout.hpp"
#include "zkwire/proto/frame_reader.hpp"

namespace zkwire {
namespace {

using namespace std::chrono_literals;
namespace pt = proto::test;
using sim::virtual_clock;
using test::memory_network;
using test::memory_server;

constexpr std::int32_t negotiated_ms = 6000;

// A ZooKeeper server played from the test: answers the handshake, pings and getData ("/a" holds "hello"), records
// every request's op and the virtual time it arrived, and can be told to stop answering.
struct scripted_server {
  explicit scripted_server(std::shared_ptr<virtual_clock> c) : clock(std::move(c)) {}

  std::shared_ptr<virtual_clock> clock;
  bool answer = true;
  std::vector<std::pair<proto::op_code, proto::time_point>> seen;
  proto::frame_reader reader;
  std::size_t connection = 0;
  bool handshaken = false;
  std::int64_t zxid = 10;

  void operator()(memory_server& s) {
    if (s.connections != connection) {  // a new connection: a new byte stream
      connection = s.connections;
      reader.reset();
      handshaken = false;
    }
    reader.feed(s.take_received());
    while (auto payload = reader.next()) {
      if (!handshaken) {
        proto::connect_request req;
        ASSERT_FALSE(proto::decode_connect_request(*payload, req));
        seen.emplace_back(proto::op_code::create_session, clock->now());
        handshaken = true;
        if (answer) s.send(pt::connect_response_frame(negotiated_ms, pt::session_a));
        continue;
      }
      proto::request req;
      ASSERT_FALSE(proto::decode_request(*payload, req));
      seen.emplace_back(req.header.type, clock->now());
      if (!answer) continue;
      if (req.header.type == proto::op_code::ping) {
        s.send(pt::ping_reply(zxid));
      } else if (const auto* get = std::get_if<proto::get_data_request>(&req.body); get && get->path == "/a") {
        s.send(pt::reply_frame(req.header.xid, ++zxid, 0, proto::get_data_response{std::string("hello"), {}}));
      } else if (req.header.type == proto::op_code::add_watch) {
        s.send(pt::reply_frame(req.header.xid, zxid, 0, proto::error_response{0}));
      } else {
        s.send(pt::error_reply(req.header.xid, zxid, proto::server_error::no_node));
      }
    }
  }

  [[nodiscard]] std::size_t count(proto::op_code op) const {
    return static_cast<std::size_t>(
        std::count_if(seen.begin(), seen.end(), [&](const auto& e) { return e.first == op; }));
  }
};

// The in-memory network, the virtual clock and the client's io_context of one test run.
struct sim_world {
  client_options options(const std::string& servers) {
    client_options o;
    o.connect_string = servers;
    o.session_timeout = std::chrono::milliseconds(negotiated_ms);
    o.seed = 7;
    o.clock = clock;
    o.transport = net.factory();
    return o;
  }
  memory_server& serve(const std::string& address, scripted_server& script) {
    memory_server& s = net.add(address);
    s.on_receive = [&script](memory_server& srv) { script(srv); };
    return s;
  }

  std::shared_ptr<virtual_clock> clock = virtual_clock::make();
  memory_network net;
  asio::io_context io;
};

class sim_client_test : public ::testing::Test, protected sim_world {};

TEST_F(sim_client_test, HandshakeAndRequestCompleteWithoutTimePassing) {
  scripted_server script(clock);
  serve("10.0.0.1:2181", script);
  client c(io.get_executor(), options("10.0.0.1:2181"));
  const auto start = clock->now();

  std::optional<std::error_code> connected;
  std::optional<std::error_code> got_ec;
  get_result got;
  c.async_connect([&](std::error_code ec) { connected = ec; });
  c.async_get("/a", [&](std::error_code ec, get_result r) {
    got_ec = ec;
    got = std::move(r);
  });
  virtual_clock::settle(io);

  ASSERT_TRUE(connected.has_value());
  EXPECT_FALSE(*connected);
  EXPECT_EQ(c.state(), session_state::connected);
  EXPECT_EQ(c.session_id(), pt::session_a);
  EXPECT_EQ(c.session_timeout(), std::chrono::milliseconds(negotiated_ms));
  ASSERT_TRUE(got_ec.has_value());
  EXPECT_FALSE(*got_ec) << got_ec->message();
  EXPECT_EQ(got.data, "hello");
  EXPECT_EQ(script.count(proto::op_code::get_data), 1U);
  EXPECT_EQ(clock->now(), start);  // the virtual clock moved only when the test moved it
}

TEST_F(sim_client_test, IdleSessionPingsAtOneThirdAndSuspendsAtTwoThirdsOfTheTimeout) {
  scripted_server script(clock);
  memory_server& server = serve("10.0.0.1:2181", script);
  client c(io.get_executor(), options("10.0.0.1:2181"));
  std::vector<session_state> states;
  c.set_state_listener([&](const state_event& e) { states.push_back(e.to); });
  std::optional<std::error_code> connected;
  c.async_connect([&](std::error_code ec) { connected = ec; });
  virtual_clock::settle(io);
  ASSERT_EQ(connected, std::error_code{});
  const auto established = clock->now();

  // Nothing is sent before T/3 of silence; the ping goes out at T/3 exactly and its reply keeps the session up.
  clock->advance(io, 1999ms);
  EXPECT_EQ(script.count(proto::op_code::ping), 0U);
  clock->advance(io, 1ms);
  ASSERT_EQ(script.count(proto::op_code::ping), 1U);
  EXPECT_EQ(script.seen.back().second - established, 2000ms);
  clock->advance(io, 10s);
  EXPECT_EQ(c.state(), session_state::connected);
  EXPECT_GE(script.count(proto::op_code::ping), 5U);

  // The server goes silent (it still reads): 2T/3 after the last thing heard the connection is given up.
  script.answer = false;
  server.accepting = false;
  const auto silent_from = clock->now();
  clock->advance(io, 3999ms);
  EXPECT_EQ(c.state(), session_state::connected);
  clock->advance(io, 1ms);
  EXPECT_EQ(c.state(), session_state::suspended);
  EXPECT_LE(clock->now() - silent_from, 4000ms);
  ASSERT_FALSE(states.empty());
  EXPECT_EQ(states.back(), session_state::suspended);
}

// An idle connection reads into one page (so an idle session holds and fills no more); a read that fills its space
// doubles the next one, up to 64 KiB, so a burst of replies still arrives in few large reads.
TEST_F(sim_client_test, ReadsStartAt1KiBAndGrowWithABurstUpTo64KiB) {
  scripted_server script(clock);
  memory_server& server = serve("10.0.0.1:2181", script);
  client c(io.get_executor(), options("10.0.0.1:2181"));
  c.async_connect([](std::error_code) {});
  virtual_clock::settle(io);
  ASSERT_TRUE(server.connected());
  EXPECT_EQ(server.read_space(), 1024U);

  // 2,000 replies of about 100 bytes, answered together: reads of 1, 2, 4, 8, 16, 32 and then 64 KiB.
  int done = 0;
  for (int i = 0; i < 2000; ++i) {
    c.async_get("/a", [&](std::error_code ec, const get_result&) {
      if (!ec) ++done;
    });
  }
  virtual_clock::settle(io);
  EXPECT_EQ(done, 2000);
  EXPECT_EQ(server.read_space(), std::size_t{64} * 1024);
}

// The client keeps a watcher's callback exactly as long as the engine keeps the watcher: exists on a missing node
// registers (and fires once), getData on a missing node does not, a persistent watch fires until the end.
TEST_F(sim_client_test, WatchCallbacksFollowTheEnginesRegistrations) {
  scripted_server script(clock);
  memory_server& server = serve("10.0.0.1:2181", script);
  auto c = std::make_unique<client>(io.get_executor(), options("10.0.0.1:2181"));
  std::vector<watch_event> exist_events;
  std::vector<watch_event> data_events;
  std::vector<watch_event> persistent_events;
  std::vector<std::error_code> results;
  c->async_exists(
      "/x", [&](const watch_event& e) { exist_events.push_back(e); },
      [&](std::error_code ec, const std::optional<zkwire::stat>& st) {
        results.push_back(ec);
        EXPECT_FALSE(st.has_value());
      });
  c->async_get(
      "/y", [&](const watch_event& e) { data_events.push_back(e); },
      [&](std::error_code ec, const get_result& /*r*/) { results.push_back(ec); });
  c->async_add_watch(
      "/p", add_watch_mode::persistent, [&](const watch_event& e) { persistent_events.push_back(e); },
      [&](std::error_code ec) { results.push_back(ec); });
  virtual_clock::settle(io);
  ASSERT_EQ(results.size(), 3U);
  EXPECT_FALSE(results[0]) << "exists reports a missing node as nullopt";
  EXPECT_EQ(results[1], proto::server_error::no_node);
  EXPECT_FALSE(results[2]);

  for (int i = 0; i < 2; ++i) {
    server.send(pt::notification_frame(event_type::node_created, "/x") +
                pt::notification_frame(event_type::node_created, "/y") +
                pt::notification_frame(event_type::node_data_changed, "/p"));
    virtual_clock::settle(io);
  }
  ASSERT_EQ(exist_events.size(), 1U) << "one-shot";
  EXPECT_EQ(exist_events[0].type, event_type::node_created);
  EXPECT_EQ(exist_events[0].path, "/x");
  EXPECT_EQ(persistent_events.size(), 2U);

  // Destroying the client ends every watcher it still holds: only the persistent one is left.
  c.reset();
  virtual_clock::settle(io);
  EXPECT_TRUE(data_events.empty()) << "getData on a missing node registered nothing";
  EXPECT_EQ(exist_events.size(), 1U);
  ASSERT_EQ(persistent_events.size(), 3U);
  EXPECT_EQ(persistent_events[2].type, event_type::none);
  EXPECT_EQ(persistent_events[2].error, proto::client_error::closed);
}

// A keyed watcher whose last registration an event takes while another read of it completes without registering,
// the reply and the event in one read: the completion comes first, and the watcher must live for the event.
TEST_F(sim_client_test, AKeyedWatcherHearsTheEventQueuedBehindTheCompletionOfItsOtherRead) {
  scripted_server script(clock);
  memory_server& server = serve("10.0.0.1:2181", script);
  client c(io.get_executor(), options("10.0.0.1:2181"));
  const watcher_key key{1, 2};
  std::vector<watch_event> events;
  std::vector<std::error_code> results;
  auto record = [&](const watch_event& e) { events.push_back(e); };
  c.async_exists("/x", key, record,
                 [&](std::error_code ec, const std::optional<zkwire::stat>&) { results.push_back(ec); });
  virtual_clock::settle(io);
  ASSERT_EQ(results.size(), 1U);
  EXPECT_TRUE(c.watching("/x", watcher_type::data, key)) << "an exist watch on the missing node";
  script.answer = false;
  c.async_get("/missing", key, record, [&](std::error_code ec, const get_result&) { results.push_back(ec); });
  virtual_clock::settle(io);
  server.send(pt::error_reply(2, 20, proto::server_error::no_node) +
              pt::notification_frame(event_type::node_created, "/x"));
  virtual_clock::settle(io);
  ASSERT_EQ(results.size(), 2U);
  EXPECT_EQ(results[1], proto::server_error::no_node);
  ASSERT_EQ(events.size(), 1U);
  EXPECT_EQ(events[0].type, event_type::node_created);
  EXPECT_EQ(c.watch_count(), 0U) << "then nothing of it is kept";
}

TEST_F(sim_client_test, ConnectTimeoutFiresInVirtualTime) {
  scripted_server script(clock);
  memory_server& server = serve("10.0.0.1:2181", script);
  server.accepting = false;
  auto o = options("10.0.0.1:2181");
  o.connect_timeout = 3s;
  client c(io.get_executor(), o);
  std::optional<std::error_code> connected;
  c.async_connect([&](std::error_code ec) { connected = ec; });
  clock->advance(io, 2999ms);
  EXPECT_FALSE(connected.has_value());
  clock->advance(io, 1ms);
  ASSERT_TRUE(connected.has_value());
  EXPECT_EQ(*connected, client_errc::connect_timeout);
  EXPECT_EQ(script.seen.size(), 0U);
}

TEST_F(sim_client_test, OneClockDrivesManyClients) {
  std::vector<std::unique_ptr<scripted_server>> scripts;
  std::vector<std::unique_ptr<client>> clients;
  std::vector<int> done(3, 0);
  for (int i = 0; i < 3; ++i) {
    scripts.push_back(std::make_unique<scripted_server>(clock));
    const std::string address = "10.0.0." + std::to_string(i + 1) + ":2181";
    serve(address, *scripts.back());
    clients.push_back(std::make_unique<client>(io.get_executor(), options(address)));
    clients.back()->async_get("/a", [&done, i](std::error_code ec, const get_result& r) {
      if (!ec && r.data == "hello") ++done[static_cast<std::size_t>(i)];
    });
  }
  clock->advance(io, 2500ms);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(done[static_cast<std::size_t>(i)], 1);
    EXPECT_EQ(scripts[static_cast<std::size_t>(i)]->count(proto::op_code::ping), 1U);  // each pinged at T/3
  }
}

// The driver with a fault before every step of a script: the server drops the connection, or drops it and refuses
// the next connects for the step. Every call completes exactly once (a request in flight with connection_loss),
// and the client comes back to the same session.
struct fault_sweep_run : sim_world {
  enum class fault { none, connection_loss, connect_failure };

  // Runs the script with `f` before step `at`; returns how often each call completed, with its last error.
  std::vector<std::pair<int, std::error_code>> run(std::size_t at, fault f, std::size_t* steps = nullptr) {
    scripted_server script(clock);
    memory_server& server = serve("10.0.0.1:2181", script);
    client c(io.get_executor(), options("10.0.0.1:2181"));
    std::vector<std::pair<int, std::error_code>> calls;
    const auto call = [&] {
      calls.emplace_back(0, std::error_code{});
      return [&calls, i = calls.size() - 1](std::error_code ec, auto&&...) {
        ++calls[i].first;
        calls[i].second = ec;
      };
    };
    const std::vector<std::function<void()>> script_steps{
        [&] { c.async_connect(call()); },
        [&] { c.async_get("/a", call()); },
        [&] { c.async_get("/b", call()); },   // NONODE
        [&] { clock->advance(io, 2500ms); },  // a ping goes out
        [&] {
          c.async_get("/a", call());
          c.async_exists("/c", call());
        },
        [&] { clock->advance(io, 1000ms); },
        [&] { c.async_get("/a", call()); },
    };
    if (steps != nullptr) *steps = script_steps.size();
    for (std::size_t i = 0; i < script_steps.size(); ++i) {
      const bool inject = i == at && f != fault::none;
      if (inject) {
        server.accepting = f != fault::connect_failure;
        server.drop();
      }
      script_steps[i]();
      virtual_clock::settle(io);
      server.accepting = true;
    }
    // Settle: the client reconnects (after its pause once every host failed) and everything is answered.
    for (int round = 0; round < 20 && c.state() != session_state::connected; ++round) clock->advance(io, 500ms);
    virtual_clock::settle(io);
    EXPECT_EQ(c.state(), session_state::connected);
    EXPECT_EQ(c.session_id(), pt::session_a);
    connections = server.connections;
    return calls;
  }

  std::size_t connections = 0;  // the server accepted, by the end of run()
};

TEST(sim_client_fault_sweep, EveryCallCompletesExactlyOnceWhateverStepTheFaultHits) {
  using fault = fault_sweep_run::fault;
  std::size_t steps = 0;
  const auto clean = fault_sweep_run{}.run(0, fault::none, &steps);
  for (const auto& [n, ec] : clean) EXPECT_EQ(n, 1);
  for (std::size_t at = 0; at < steps; ++at) {
    for (const auto f : {fault::connection_loss, fault::connect_failure}) {
      SCOPED_TRACE(testing::Message() << (f == fault::connection_loss ? "connection loss" : "connect failure")
                                      << " before step " << at);
      fault_sweep_run world;  // a new network, clock and io_context per run
      const auto calls = world.run(at, f);
      ASSERT_EQ(calls.size(), clean.size());
      if (at > 0) {
        EXPECT_GE(world.connections, 2U) << "the fault did not hit: no reconnect";
      }
      for (std::size_t i = 0; i < calls.size(); ++i) {
        EXPECT_EQ(calls[i].first, 1) << "call " << i;
        const auto ec = calls[i].second;
        EXPECT_TRUE(!ec || ec == proto::server_error::no_node || ec == client_error::connection_loss)
            << "call " << i << ": " << ec.message();
      }
    }
  }
}

// A transport that counts the writes the client starts, whatever the transport underneath does with them.
class counting_transport final : public transport {
 public:
  counting_transport(std::unique_ptr<transport> inner, std::size_t& writes)
      : inner_(std::move(inner)), writes_(&writes) {}
  void async_connect(const host_port& host) override { inner_->async_connect(host); }
  void async_read_some(std::span<char> buffer) override { inner_->async_read_some(buffer); }
  void async_write(std::span<const char> bytes) override {
    ++*writes_;
    inner_->async_write(bytes);
  }
  void close() noexcept override { inner_->close(); }

 private:
  std::unique_ptr<transport> inner_;
  std::size_t* writes_;
};

// client_options::start_requests_inline: the call that starts a request writes it, without a turn of the loop;
// without the option the loop does. Either way the request's completion comes from the loop, never from the call,
// also when the engine completes it at once (a timeout already past).
TEST_F(sim_client_test, StartRequestsInlineWritesFromTheCallAndCompletesFromTheLoop) {
  for (const bool inline_start : {false, true}) {
    SCOPED_TRACE(inline_start ? "start_requests_inline" : "default");
    scripted_server script(clock);
    const std::string address = inline_start ? "10.0.0.2:2181" : "10.0.0.3:2181";
    serve(address, script);
    std::size_t writes = 0;
    auto o = options(address);
    o.start_requests_inline = inline_start;
    o.transport = [&writes, inner = o.transport](const asio::any_io_executor& executor, transport_events& events) {
      return std::make_unique<counting_transport>(inner(executor, events), writes);
    };
    client c(io.get_executor(), std::move(o));
    c.async_connect([](std::error_code) {});
    virtual_clock::settle(io);
    ASSERT_EQ(c.state(), session_state::connected);

    const std::size_t before = writes;
    std::optional<std::error_code> got;
    c.async_get("/a", [&](std::error_code ec, const get_result&) { got = ec; });
    EXPECT_EQ(writes - before, inline_start ? 1U : 0U) << "written by the call";
    EXPECT_FALSE(got.has_value()) << "completed inside the call";
    virtual_clock::settle(io);
    EXPECT_EQ(writes - before, 1U);
    EXPECT_EQ(got, std::error_code{});

    // From a handler of the loop, where a completion dispatched to the client's executor would run at once.
    std::optional<std::error_code> timed_out;
    bool completed_inside = true;
    asio::post(io, [&] {
      c.async_get("/a", with_timeout(std::chrono::nanoseconds(0),
                                     [&](std::error_code ec, const get_result&) { timed_out = ec; }));
      completed_inside = timed_out.has_value();
    });
    virtual_clock::settle(io);
    EXPECT_FALSE(completed_inside) << "completed inside the call";
    EXPECT_TRUE(timed_out.has_value() && *timed_out);
  }
}

}  // namespace
}  // namespace zkwire
