// Requests while no connection can carry them (docs/protocol.md#without-a-connection): they wait for the round of
// attempts under way or the next one (connection_wait::one_round, the default), for the attempt under way
// (one_attempt, at once while the engine pauses between rounds) or not at all (none), and complete with
// connection_loss, unsent, when those attempts fail. Nothing waits longer than a pause and one round of attempts.

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "harness.hpp"

namespace zkwire::proto::test::without_connection {
namespace {

session_config config(std::size_t hosts, connection_wait wait = connection_wait::one_round,
                      milliseconds timeout = 6000ms) {
  session_config c;
  c.host_count = hosts;
  c.shuffle_hosts = false;
  c.seed = 5;
  c.session_timeout = timeout;
  c.wait_for_connection = wait;
  return c;
}

exists_request exists_at(std::string path) { return exists_request{std::move(path), false}; }

// The one completion delivered since the last look, which must be `id`'s, unsent, with connection_loss.
void expect_lost_unsent(harness& h, request_id id) {
  auto done = h.completions();
  ASSERT_EQ(done.size(), 1U);
  EXPECT_EQ(done[0].id, id);
  EXPECT_EQ(done[0].error, client_error::connection_loss);
  EXPECT_EQ(done[0].error, condition::connection_loss);
  EXPECT_EQ(h.s.pending_requests(), 0U);
}

TEST(SessionWithoutConnection, WaitsForTheRoundAndGoesOutOnItsLastHost) {
  harness h(config(3));
  h.start();
  h.submit(op_code::exists, exists_at("/a"));
  h.connect_fail();  // host 0
  h.connect_fail();  // host 1
  EXPECT_TRUE(h.completions().empty()) << "host 2 is still to be tried in this round";
  h.connect_ok();  // host 2
  EXPECT_EQ(h.take_wire(), connect_frame(0, 6000));
  h.feed(connect_response_frame(6000));
  EXPECT_EQ(h.take_wire(), request_frame(1, op_code::exists, exists_at("/a")));
  h.feed(reply_frame(1, 5, 0, exists_response{}));
  auto done = h.completions();
  ASSERT_EQ(done.size(), 1U);
  EXPECT_FALSE(done[0].error);
}

TEST(SessionWithoutConnection, FailsUnsentWhenTheRoundFailsAndWaitsForTheNextOneWhilePaused) {
  harness h(config(2));
  h.start();
  const auto first = h.submit(op_code::create, create_request{"/n", "x", open_acl_unsafe(), create_mode::persistent});
  h.connect_fail();  // host 0
  EXPECT_TRUE(h.completions().empty());
  h.connect_fail();  // host 1: the round failed
  expect_lost_unsent(h, first);
  ASSERT_EQ(h.connects.size(), 2U) << "pausing before the next round";
  // Made during the pause: it waits for the next round, which fails too.
  const auto second = h.submit(op_code::exists, exists_at("/a"));
  EXPECT_TRUE(h.completions().empty());
  while (h.connects.size() < 3) h.advance(100ms);
  h.connect_fail();
  EXPECT_TRUE(h.completions().empty()) << "host 1 is still to be tried in this round";
  h.connect_fail();
  expect_lost_unsent(h, second);
  // Made during the next pause: the round after it connects and the request goes out; the failed ones never did.
  h.submit(op_code::exists, exists_at("/b"));
  while (h.connects.size() < 5) h.advance(100ms);
  h.connect_ok();
  EXPECT_EQ(h.take_wire(), connect_frame(0, 6000));
  h.feed(connect_response_frame(6000));
  EXPECT_EQ(h.take_wire(), request_frame(1, op_code::exists, exists_at("/b")));
  EXPECT_EQ(h.s.state(), session_state::connected);
}

TEST(SessionWithoutConnection, UnansweredAttemptsBoundTheWaitByTheirTimeouts) {
  harness h(config(3));  // 6 s / 3 hosts: 2 s per attempt
  h.start();
  const auto id = h.submit(op_code::exists, exists_at("/a"));
  h.advance(2000ms);  // host 0 never answers the connect
  h.connect_ok();     // host 1 accepts and never answers the handshake
  h.advance(2000ms);
  EXPECT_TRUE(h.completions().empty());
  h.advance(1999ms);  // host 2 neither
  EXPECT_TRUE(h.completions().empty());
  h.advance(1ms);
  expect_lost_unsent(h, id);
  EXPECT_EQ(h.now, t0 + 6000ms) << "one round: hosts x connect timeout";
}

TEST(SessionWithoutConnection, ReconnectingAfterALossFailsWithTheRoundAndTheSessionGoesOn) {
  harness h(config(1));
  h.establish();
  h.drop();
  EXPECT_EQ(h.s.state(), session_state::suspended);
  ASSERT_EQ(h.connects.size(), 2U) << "the reconnect starts at once";
  const auto id = h.submit(op_code::get_data, get_data_request{"/a", false});
  EXPECT_TRUE(h.completions().empty());
  h.connect_fail();  // refused: the one-host round failed
  expect_lost_unsent(h, id);
  EXPECT_EQ(h.s.state(), session_state::suspended) << "a failed request does not end the session";
  while (h.connects.size() < 3) h.advance(100ms);
  h.connect_ok();
  EXPECT_EQ(h.take_wire(), connect_frame(0, 6000, session_a, password_a));
  h.feed(connect_response_frame(6000));
  EXPECT_EQ(h.s.state(), session_state::connected);
  EXPECT_EQ(h.take_wire(), "");
}

TEST(SessionWithoutConnection, OneAttemptFailsWithTheAttemptUnderWayAndAtOnceWhilePaused) {
  harness h(config(2, connection_wait::one_attempt));
  h.start();
  const auto id = h.submit(op_code::exists, exists_at("/a"));
  h.connect_fail();  // host 0
  expect_lost_unsent(h, id);
  ASSERT_EQ(h.connects.size(), 2U) << "host 1 is tried at once";
  h.connect_fail();  // host 1: pausing, no attempt under way
  const auto paused = h.submit(op_code::exists, exists_at("/b"));
  expect_lost_unsent(h, paused);
  // A request made during the next attempt goes out when it succeeds.
  while (h.connects.size() < 3) h.advance(100ms);
  h.submit(op_code::exists, exists_at("/c"));
  h.connect_ok();
  h.take_wire();
  h.feed(connect_response_frame(6000));
  EXPECT_EQ(h.take_wire(), request_frame(1, op_code::exists, exists_at("/c")));
}

TEST(SessionWithoutConnection, OneAttemptKeepsWaitingWhenTheDriverMovesTheSession) {
  harness h(config(3, connection_wait::one_attempt));
  h.start();
  h.submit(op_code::exists, exists_at("/a"));
  h.s.switch_host(h.now, 2, std::make_error_code(std::errc::operation_canceled));  // a move, not a failure
  h.pump();
  EXPECT_TRUE(h.completions().empty());
  EXPECT_EQ(h.connects, (std::vector<std::size_t>{0, 2}));
  h.connect_ok();
  h.take_wire();
  h.feed(connect_response_frame(6000));
  EXPECT_EQ(h.take_wire(), request_frame(1, op_code::exists, exists_at("/a")));
}

TEST(SessionWithoutConnection, AMoveIsNotAFailedRoundEvenWhenItPauses) {
  harness h(config(1));
  h.start();
  h.submit(op_code::exists, exists_at("/a"));
  h.s.switch_host(h.now, 0, std::make_error_code(std::errc::operation_canceled));  // the only host: a pause follows
  h.pump();
  EXPECT_TRUE(h.completions().empty());
  while (h.connects.size() < 2) h.advance(100ms);
  h.connect_ok();
  h.take_wire();
  h.feed(connect_response_frame(6000));
  EXPECT_EQ(h.take_wire(), request_frame(1, op_code::exists, exists_at("/a")));
}

TEST(SessionWithoutConnection, NoneFailsAtOnceUntilConnected) {
  harness h(config(1, connection_wait::none));
  h.start();
  const auto early = h.submit(op_code::exists, exists_at("/a"));
  expect_lost_unsent(h, early);
  h.connect_ok();
  h.take_wire();
  const auto handshaking = h.submit(op_code::exists, exists_at("/b"));
  expect_lost_unsent(h, handshaking);
  h.feed(connect_response_frame(6000));
  h.submit(op_code::exists, exists_at("/c"));
  EXPECT_EQ(h.take_wire(), request_frame(1, op_code::exists, exists_at("/c")));
}

TEST(SessionWithoutConnection, AnEarlierDeadlineEndsTheWaitFirst) {
  harness h(config(1));  // one attempt of 6 s
  h.start();
  const auto id = h.submit(op_code::exists, exists_at("/a"), 0, h.now + 500ms);
  h.advance(500ms);
  auto done = h.completions();
  ASSERT_EQ(done.size(), 1U);
  EXPECT_EQ(done[0].id, id);
  EXPECT_EQ(done[0].error, client_error::operation_timeout);
}

TEST(SessionWithoutConnection, AddAuthCompletionFailsWithTheRoundAndTheCredentialIsSentLater) {
  harness h(config(1));
  h.start();
  const auto waiting = h.s.add_auth(h.now, "digest", "bob:secret");
  h.pump();
  h.connect_fail();
  expect_lost_unsent(h, waiting);
  h.s.add_auth(h.now, "digest", "carol:secret");  // during the pause: waits for the next round, which connects
  h.pump();
  while (h.connects.size() < 2) h.advance(100ms);
  h.connect_ok();
  h.take_wire();
  h.feed(connect_response_frame(6000));
  EXPECT_EQ(h.take_wire(), auth_frame("digest", "bob:secret") + auth_frame("digest", "carol:secret"))
      << "both credentials are kept for the connection";
  h.feed(reply_frame(special_xid::auth, 0) + reply_frame(special_xid::auth, 0));
  auto done = h.completions();
  ASSERT_EQ(done.size(), 1U) << "the failed wait completed once, the later one now";
  EXPECT_FALSE(done[0].error);
}

// The property the default exists for: with no server reachable, however the attempts fail, every request
// completes within a pause and one round of attempts (hosts x connect timeout) of being submitted. With requests
// queued until a connection comes back, none would.
TEST(SessionWithoutConnection, NoRequestWaitsForeverByDefault) {
  for (const std::size_t hosts : {1U, 3U}) {
    for (const bool refused : {true, false}) {
      SCOPED_TRACE(testing::Message() << hosts << " host(s), " << (refused ? "refused" : "unanswered"));
      harness h(config(hosts));  // connect timeout max(6 s / hosts, 250 ms)
      const milliseconds round = 6000ms / static_cast<int>(hosts) * static_cast<int>(hosts);
      h.establish();
      h.drop();
      std::vector<request_id> ids;
      std::vector<time_point> submitted;
      // Requests at many moments of the attempts and pauses during 30 s of a server away, then another round and
      // pause for the last of them.
      for (int step = 0; step < 380; ++step) {
        if (h.connection_pending && refused) h.connect_fail();
        if (step < 300 && step % 3 == 0) {
          ids.push_back(h.submit(op_code::exists, exists_at("/a")));
          submitted.push_back(h.now);
        }
        h.advance(100ms);
        for (const auto& c : h.completions()) {
          const auto at = static_cast<std::size_t>(std::find(ids.begin(), ids.end(), c.id) - ids.begin());
          ASSERT_LT(at, ids.size());
          ASSERT_NE(submitted[at], time_point::max()) << "request " << at << " completed twice";
          EXPECT_EQ(c.error, client_error::connection_loss);
          EXPECT_LE(h.now - submitted[at], 1000ms + round + 100ms) << "request " << at;
          submitted[at] = time_point::max();  // completed
        }
      }
      for (std::size_t i = 0; i < submitted.size(); ++i) {
        EXPECT_EQ(submitted[i], time_point::max()) << "request " << i << " is still waiting";
      }
      EXPECT_EQ(h.s.pending_requests(), 0U);
    }
  }
}

}  // namespace
}  // namespace zkwire::proto::test::without_connection
