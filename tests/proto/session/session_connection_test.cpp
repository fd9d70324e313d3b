// Handshake, session resume and expiry, timers (ping, read timeout, connect timeout, pacing, lost).

#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "harness.hpp"

namespace zkwire::proto::test::connection {
namespace {

session_config config(std::size_t hosts = 1, milliseconds timeout = 6000ms) {
  session_config c;
  c.host_count = hosts;
  c.shuffle_hosts = false;
  c.seed = 42;
  c.session_timeout = timeout;
  return c;
}

TEST(SessionHandshake, SendsRequestedTimeoutAndReadOnlyByteThenAdoptsNegotiated) {
  auto c = config(1, 30000ms);
  c.can_be_read_only = true;
  harness h(c);
  h.start();
  ASSERT_EQ(h.connects, std::vector<std::size_t>{0});
  EXPECT_EQ(h.s.state(), session_state::connecting);
  EXPECT_TRUE(h.wire.empty()) << "nothing may be written before the connection is up";
  h.connect_ok();
  const std::string hello = h.take_wire();
  EXPECT_EQ(hello, connect_frame(0, 30000, 0, zero_password, true));
  EXPECT_EQ(hello.size(), 4 + connect_request_size);
  EXPECT_EQ(hello.back(), '\x01');
  EXPECT_EQ(h.s.negotiated_timeout(), 30000ms);
  h.feed(connect_response_frame(4000));
  EXPECT_EQ(h.s.state(), session_state::connected);
  EXPECT_EQ(h.s.negotiated_timeout(), 4000ms);
  EXPECT_EQ(h.s.session_id(), session_a);
  EXPECT_EQ(h.s.session_password(), password_a);
  EXPECT_EQ(h.s.current_host(), std::optional<std::size_t>{0});
  const auto changes = h.state_changes();
  ASSERT_EQ(changes.size(), 2U);
  EXPECT_EQ(changes[0].to, session_state::connecting);
  EXPECT_EQ(changes[1].from, session_state::connecting);
  EXPECT_EQ(changes[1].to, session_state::connected);
}

TEST(SessionHandshake, ReadOnlyByteIsZeroByDefault) {
  harness h(config());
  h.start();
  h.connect_ok();
  const std::string hello = h.take_wire();
  EXPECT_EQ(hello, connect_frame(0, 6000));
  EXPECT_EQ(hello.back(), '\x00');
}

TEST(SessionHandshake, ReadOnlyServerGivesConnectedReadOnlyAndIsNotResumed) {
  auto c = config(2);
  c.can_be_read_only = true;
  harness h(c);
  h.start();
  h.connect_ok();
  h.take_wire();
  h.feed(connect_response_frame(6000, session_a, password_a, true));
  EXPECT_EQ(h.s.state(), session_state::connected_read_only);
  h.drop();
  h.connect_ok();
  // A session handed out by a read-only server is not resumed (Java and C do the same).
  EXPECT_EQ(h.take_wire(), connect_frame(0, 6000, 0, zero_password, true));
}

TEST(SessionHandshake, ResumesSameSessionOnNextHostAfterDrop) {
  harness h(config(3));
  h.establish();
  h.submit(op_code::exists, exists_request{"/a", false});
  h.feed(reply_frame(1, 77, 0, exists_response{}));
  ASSERT_EQ(h.completions().size(), 1U);
  h.take_wire();
  EXPECT_EQ(h.s.last_zxid_seen(), 77);
  h.drop();
  EXPECT_EQ(h.s.state(), session_state::suspended);
  ASSERT_EQ(h.connects, (std::vector<std::size_t>{0, 1}));
  EXPECT_FALSE(h.s.current_host() == std::optional<std::size_t>{0});
  h.connect_ok();
  EXPECT_EQ(h.take_wire(), connect_frame(77, 6000, session_a, password_a));
  h.feed(connect_response_frame(6000));
  EXPECT_EQ(h.s.state(), session_state::connected);
  const auto changes = h.state_changes();
  ASSERT_EQ(changes.size(), 4U);
  EXPECT_EQ(changes[2].to, session_state::suspended);
  EXPECT_EQ(changes[2].reason, std::make_error_code(std::errc::connection_reset));
  EXPECT_EQ(changes[3].to, session_state::connected);
}

// Expiry on the resume handshake, by timeout 0 or by another session id.
void expect_expiry(const std::string& response) {
  harness h(config(2));
  h.establish();
  h.submit(op_code::get_data, get_data_request{"/w", true}, 7);
  h.submit(op_code::get_children, get_children_request{"/w", true}, 8);
  h.feed(reply_frame(1, 10, 0, get_data_response{}) + reply_frame(2, 10, 0, get_children_response{}));
  h.completions();
  h.drop();
  const auto queued = h.submit(op_code::exists, exists_request{"/q", false});
  EXPECT_EQ(h.s.pending_requests(), 1U);
  h.connect_ok();
  h.take_wire();
  h.feed(response);
  EXPECT_EQ(h.s.state(), session_state::expired);
  EXPECT_EQ(h.closes, 1);
  const auto done = h.completions();
  ASSERT_EQ(done.size(), 1U);
  EXPECT_EQ(done[0].id, queued);
  EXPECT_EQ(done[0].error, client_error::session_expired);
  const auto final_deliveries = h.watch_deliveries();
  ASSERT_EQ(final_deliveries.size(), 2U);
  for (const auto& d : final_deliveries) {
    EXPECT_EQ(d.event.type, event_type::none);
    EXPECT_EQ(d.event.state, keeper_state::expired);
    EXPECT_EQ(d.error, client_error::session_expired);
  }
  EXPECT_TRUE(h.wire.empty()) << "nothing is sent after expiry";
  const auto later = h.submit(op_code::exists, exists_request{"/q", false});
  const auto after = h.completions();
  ASSERT_EQ(after.size(), 1U);
  EXPECT_EQ(after[0].id, later);
  EXPECT_EQ(after[0].error, client_error::session_expired);
  EXPECT_EQ(h.s.next_wakeup(), time_point::max());
}

// A session taken over from another process (session_config::resume_session_id): the first handshake already
// carries its id and password (padded to 16 bytes), and a server that knows it keeps it.
TEST(SessionHandshake, ResumesAGivenSessionOnTheFirstHandshake) {
  auto c = config(1);
  c.resume_session_id = session_b;
  c.resume_password = "short";
  harness h(c);
  EXPECT_EQ(h.s.session_id(), session_b);
  h.start();
  h.connect_ok();
  EXPECT_EQ(h.take_wire(), connect_frame(0, 6000, session_b, std::string("short") + std::string(11, '\0')));
  h.feed(connect_response_frame(6000, session_b, password_a));
  EXPECT_EQ(h.s.state(), session_state::connected);
  EXPECT_EQ(h.s.session_id(), session_b);
}

// ... and one the server no longer knows ends as expired at that first handshake.
TEST(SessionHandshake, AResumedSessionTheServerForgotIsExpired) {
  auto c = config(1);
  c.resume_session_id = session_b;
  c.resume_password = std::string(password_a);
  harness h(c);
  h.start();
  h.connect_ok();
  h.take_wire();
  h.feed(connect_response_frame(0, 0, zero_password));
  EXPECT_EQ(h.s.state(), session_state::expired);
}

TEST(SessionExpiry, TimeoutZero) { expect_expiry(connect_response_frame(0, 0, zero_password)); }
TEST(SessionExpiry, AnotherSessionId) { expect_expiry(connect_response_frame(6000, session_b, password_a)); }

TEST(SessionExpiry, NewSessionKeepsLastZxidSeen) {
  harness h(config(1));
  h.establish();
  h.submit(op_code::exists, exists_request{"/a", false});
  h.feed(reply_frame(1, 555, 0, exists_response{}));
  h.drop();
  h.connect_ok();
  h.take_wire();
  h.feed(connect_response_frame(0, 0, zero_password));
  ASSERT_EQ(h.s.state(), session_state::expired);
  h.s.new_session(h.now);
  h.pump();
  EXPECT_EQ(h.s.state(), session_state::connecting);
  h.connect_ok();
  EXPECT_EQ(h.take_wire(), connect_frame(555, 6000, 0, zero_password));
  h.feed(connect_response_frame(6000, session_b));
  EXPECT_EQ(h.s.state(), session_state::connected);
  EXPECT_EQ(h.s.session_id(), session_b);
}

TEST(SessionTimers, NoPingWhileTrafficFlowsPingAtOneThirdWhenIdle) {
  harness h(config(1, 6000ms));
  h.establish(6000);
  // A request every second: never idle for T/3 = 2 s, so no ping.
  for (int i = 1; i <= 6; ++i) {
    h.advance(1000ms);
    h.submit(op_code::exists, exists_request{"/a", false});
    EXPECT_EQ(h.take_wire(), request_frame(i, op_code::exists, exists_request{"/a", false}));
    h.feed(reply_frame(i, 5, 0, exists_response{}));
  }
  h.advance(1999ms);
  EXPECT_TRUE(h.wire.empty());
  h.advance(1ms);
  EXPECT_EQ(h.take_wire(), ping_frame());
  h.feed(ping_reply());
  h.advance(2000ms);
  EXPECT_EQ(h.take_wire(), ping_frame());
  EXPECT_EQ(h.s.state(), session_state::connected);
}

TEST(SessionTimers, NegotiatedTimeoutSetsTheCadence) {
  harness h(config(1, 30000ms));
  h.establish(3000);
  h.advance(999ms);
  EXPECT_TRUE(h.wire.empty());
  h.advance(1ms);
  EXPECT_EQ(h.take_wire(), ping_frame());
}

TEST(SessionTimers, ReadTimeoutAtTwoThirdsGoesToNextHost) {
  harness h(config(2, 6000ms));
  h.establish(6000);
  h.submit(op_code::exists, exists_request{"/a", false});
  h.advance(3999ms);  // pings go out, nothing comes back
  EXPECT_EQ(h.s.state(), session_state::connected);
  EXPECT_EQ(h.closes, 0);
  h.advance(1ms);
  EXPECT_EQ(h.s.state(), session_state::suspended);
  EXPECT_EQ(h.closes, 1);
  EXPECT_EQ(h.connects, (std::vector<std::size_t>{0, 1}));
  const auto done = h.completions();
  ASSERT_EQ(done.size(), 1U);
  EXPECT_EQ(done[0].error, client_error::connection_loss);
  const auto changes = h.state_changes();
  ASSERT_FALSE(changes.empty());
  EXPECT_EQ(changes.back().reason, client_error::operation_timeout);
}

TEST(SessionTimers, ConnectTimeoutPerHost) {
  harness h(config(3, 6000ms));  // T / 3 hosts = 2 s per attempt
  h.start();
  h.advance(1999ms);
  EXPECT_EQ(h.connects, std::vector<std::size_t>{0});
  h.advance(1ms);
  EXPECT_EQ(h.connects, (std::vector<std::size_t>{0, 1}));
  EXPECT_EQ(h.closes, 1);
  h.connect_ok();  // TCP up, but the handshake never answers: the same deadline covers it
  h.advance(2000ms);
  EXPECT_EQ(h.connects, (std::vector<std::size_t>{0, 1, 2}));
  EXPECT_EQ(h.s.state(), session_state::connecting);
}

// A server that accepts the connection and never answers the handshake must not cost the session: with one host,
// waiting T on that attempt would reconnect only after the server expired the session (seen with a restarting
// server). At most T/3 per attempt, whatever the number of hosts.
TEST(SessionTimers, ConnectTimeoutIsAtMostAThirdOfTheSessionTimeout) {
  for (const std::size_t hosts : {std::size_t{1}, std::size_t{2}}) {
    harness h(config(hosts, 6000ms));
    h.start();
    h.connect_ok();  // TCP up, the handshake never answered
    h.advance(1999ms);
    EXPECT_EQ(h.closes, 0) << hosts << " host(s)";
    h.advance(1ms);
    EXPECT_EQ(h.closes, 1) << hosts << " host(s): T/3 = 2 s, not T / hosts";
  }
}

TEST(SessionTimers, ConnectTimeoutHasAFloor) {
  harness h(config(10, 1000ms));  // 100 ms per host would be too short: 250 ms
  h.start();
  h.advance(249ms);
  EXPECT_EQ(h.connects.size(), 1U);
  h.advance(1ms);
  EXPECT_EQ(h.connects.size(), 2U);
}

TEST(SessionTimers, PacingWithSeededJitterAfterAFullRound) {
  const auto run = [](std::uint64_t seed) {
    auto c = config(2);
    c.seed = seed;
    harness h(c);
    h.start();
    h.connect_fail();  // host 0
    EXPECT_EQ(h.connects.size(), 2U) << "the second host is tried at once";
    h.connect_fail();  // host 1: the round failed
    EXPECT_EQ(h.connects.size(), 2U) << "a new round waits";
    const time_point wake = h.s.next_wakeup();
    const auto offset = wake - t0;
    EXPECT_GE(wake, h.now);
    EXPECT_LE(wake, h.now + 1000ms);
    h.advance(std::chrono::duration_cast<milliseconds>(wake - h.now));
    EXPECT_EQ(h.connects, (std::vector<std::size_t>{0, 1, 0}));
    return offset;
  };
  EXPECT_EQ(run(7), run(7)) << "the same seed gives the same jitter";
  std::set<std::int64_t> seen;
  for (std::uint64_t seed = 1; seed <= 8; ++seed) {
    seen.insert(std::chrono::duration_cast<milliseconds>(run(seed)).count());
  }
  EXPECT_GT(seen.size(), 1U) << "the jitter depends on the seed";
}

TEST(SessionTimers, NextWakeupIsTheEarliestDeadlineOfEachPhase) {
  harness h(config(3, 6000ms));  // T / 3 hosts = 2 s per attempt
  EXPECT_EQ(h.s.next_wakeup(), time_point::max()) << "not started: nothing to wait for";
  h.start();
  EXPECT_EQ(h.s.next_wakeup(), t0 + 2000ms) << "connecting: the attempt deadline";
  h.advance(1000ms);
  h.connect_ok();
  EXPECT_EQ(h.s.next_wakeup(), t0 + 2000ms) << "handshaking: still the same attempt";
  h.take_wire();
  h.advance(500ms);
  h.feed(connect_response_frame(6000));
  // The ConnectRequest went out at t0 + 1 s: idle for T/3 = 2 s from then. Nothing received for 2T/3 = 4 s from
  // t0 + 1.5 s is later.
  EXPECT_EQ(h.s.next_wakeup(), t0 + 3000ms) << "established: the ping";
  h.advance(1500ms);  // t0 + 3 s
  EXPECT_EQ(h.take_wire(), ping_frame());
  EXPECT_EQ(h.s.next_wakeup(), t0 + 5000ms) << "the next ping, before the read timeout at t0 + 5.5 s";
  h.s.close(h.now);
  h.pump();
  EXPECT_EQ(h.take_wire(), request_frame(1, op_code::close_session, no_body{}));
  // Closing: no more pings; the read timeout (t0 + 5.5 s) comes before the close deadline (t0 + 7 s).
  EXPECT_EQ(h.s.next_wakeup(), t0 + 5500ms) << "closing: the read timeout";
  h.advance(2499ms);
  EXPECT_TRUE(h.wire.empty()) << "no ping while closing";
  EXPECT_EQ(h.s.state(), session_state::connected);
  h.advance(1ms);
  EXPECT_EQ(h.s.state(), session_state::closed);
  EXPECT_EQ(h.s.next_wakeup(), time_point::max()) << "closed: nothing to wait for";
}

// The deadline of a request answered long ago is not a timer once the session is closed: a driver waiting for it
// would keep its event loop busy for nothing (a 15 s request timeout held io_context::run() 15 s after a close).
TEST(SessionTimers, ClosedSessionKeepsNoRequestDeadline) {
  harness h(config());
  h.establish();
  h.submit(op_code::exists, exists_request{"/a", false}, 0, h.now + 15s);
  h.take_wire();
  h.feed(reply_frame(1, 5, 0, exists_response{}));
  ASSERT_EQ(h.completions().size(), 1U);
  h.s.close(h.now);
  h.pump();
  h.take_wire();
  h.feed(reply_frame(2, 6));
  ASSERT_EQ(h.s.state(), session_state::closed);
  EXPECT_EQ(h.s.next_wakeup(), time_point::max()) << "closed: nothing to wait for, the answered request's deadline "
                                                     "included";
}

TEST(SessionTimers, ShuffledHostOrderIsAPermutationFixedBySeed) {
  const auto order = [](std::uint64_t seed) {
    session_config c;
    c.host_count = 5;
    c.seed = seed;
    harness h(c);
    h.start();
    for (int i = 0; i < 4; ++i) h.connect_fail();
    return h.connects;
  };
  auto a = order(3);
  EXPECT_EQ(a, order(3));
  auto sorted = a;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(sorted, (std::vector<std::size_t>{0, 1, 2, 3, 4}));
}

// The seed in use is the engine's to tell (a driver's own seeded choices draw from it): the one configured, else
// the random one drawn for 0, which a second engine does not share.
TEST(SessionTimers, SeedInUseIsTheConfiguredOneOrTheOneDrawnForZero) {
  const auto seed_of = [](std::uint64_t configured) {
    session_config c;
    c.seed = configured;
    return session(c).seed();
  };
  EXPECT_EQ(seed_of(3), 3U);
  const auto drawn = seed_of(0);
  EXPECT_NE(drawn, 0U);
  EXPECT_NE(drawn, seed_of(0)) << "two engines configured with 0 draw the same seed";
}

TEST(SessionTimers, LostWhenNothingWrittenForTPlusOneSecond) {
  harness h(config(1, 6000ms));
  h.establish(6000);
  h.advance(1000ms);
  h.submit(op_code::exists, exists_request{"/a", false});  // last write at t0 + 1 s
  h.drop();
  h.state_changes();
  h.connect_fail();  // attempts fail; none of them counts as reaching the server
  EXPECT_EQ(h.s.state(), session_state::suspended);
  h.advance(6999ms);  // t0 + 7999 ms
  EXPECT_EQ(h.s.state(), session_state::suspended);
  h.advance(1ms);  // t0 + 1 s + T + 1 s
  EXPECT_EQ(h.s.state(), session_state::lost);
  const auto changes = h.state_changes();
  ASSERT_EQ(changes.size(), 1U);
  EXPECT_EQ(changes[0].from, session_state::suspended);
  // Still reconnecting; a resume that works brings it back.
  while (!h.connection_pending) h.advance(100ms);
  h.connect_ok();
  h.take_wire();
  h.feed(connect_response_frame(6000));
  EXPECT_EQ(h.s.state(), session_state::connected);
}

}  // namespace
}  // namespace zkwire::proto::test::connection
