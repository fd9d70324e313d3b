// Requests: xids, pipelining, protocol violations, cancel, close, auth, argument checks, split reads.

#include <gtest/gtest.h>

#include <limits>

#include "harness.hpp"

namespace zkwire::proto::test::requests {
namespace {

session_config config(std::size_t hosts = 2) {
  session_config c;
  c.host_count = hosts;
  c.shuffle_hosts = false;
  c.seed = 42;
  c.session_timeout = 6000ms;
  return c;
}

exists_request exists_a() { return exists_request{"/a", false}; }

TEST(SessionRequests, XidsStartAtOneAndWrapToOne) {
  auto c = config();
  c.first_xid = std::numeric_limits<std::int32_t>::max() - 1;
  harness h(c);
  h.establish();
  for (int i = 0; i < 3; ++i) h.submit(op_code::exists, exists_a());
  constexpr std::int32_t max = std::numeric_limits<std::int32_t>::max();
  EXPECT_EQ(h.take_wire(), request_frame(max - 1, op_code::exists, exists_a()) +
                               request_frame(max, op_code::exists, exists_a()) +
                               request_frame(1, op_code::exists, exists_a()));
  h.feed(error_reply(max - 1, 3, server_error::no_node) + error_reply(max, 3, server_error::no_node) +
         error_reply(1, 3, server_error::no_node));
  EXPECT_EQ(h.completions().size(), 3U);
  EXPECT_EQ(h.s.state(), session_state::connected);
}

TEST(SessionRequests, XidIsAssignedAtWriteTime) {
  harness h(config());
  h.start();
  const auto first = h.submit(op_code::exists, exists_a());
  const auto second = h.submit(op_code::get_data, get_data_request{"/b", false});
  EXPECT_NE(first, second);
  h.connect_ok();
  h.take_wire();
  h.feed(connect_response_frame(6000));
  EXPECT_EQ(h.take_wire(), request_frame(1, op_code::exists, exists_a()) +
                               request_frame(2, op_code::get_data, get_data_request{"/b", false}));
}

TEST(SessionRequests, PipelinedRequestsCompleteInReplyOrder) {
  harness h(config());
  h.establish();
  const auto a = h.submit(op_code::exists, exists_a());
  const auto b = h.submit(op_code::get_data, get_data_request{"/b", false});
  const auto c = h.submit(op_code::delete_, delete_request{"/c", -1});
  EXPECT_EQ(h.s.pending_requests(), 3U);
  h.feed(reply_frame(1, 11, 0, exists_response{}) + reply_frame(2, 12, 0, get_data_response{std::string("x"), {}}));
  h.feed(error_reply(3, 13, server_error::not_empty));
  const auto done = h.completions();
  ASSERT_EQ(done.size(), 3U);
  EXPECT_EQ(done[0].id, a);
  EXPECT_FALSE(done[0].error);
  EXPECT_EQ(done[1].id, b);
  EXPECT_EQ(std::get<get_data_response>(done[1].result.body).data, std::optional<std::string>("x"));
  EXPECT_EQ(done[2].id, c);
  EXPECT_EQ(done[2].error, server_error::not_empty);
  EXPECT_EQ(done[2].result.header.err, -111);
  EXPECT_EQ(h.s.last_zxid_seen(), 13);
  EXPECT_EQ(h.s.pending_requests(), 0U);
}

TEST(SessionRequests, ErrorReplyWithTrailingBytesIsAccepted) {
  harness h(config());
  h.establish();
  h.submit(op_code::exists, exists_a());
  h.feed(reply_frame(1, 9, -101, exists_response{}));  // 3.8 quirk: a body after an error
  const auto done = h.completions();
  ASSERT_EQ(done.size(), 1U);
  EXPECT_EQ(done[0].error, server_error::no_node);
  EXPECT_EQ(h.s.state(), session_state::connected);
}

TEST(SessionRequests, ZxidOnlyFromNormalRepliesAboveZero) {
  harness h(config());
  h.establish();
  h.submit(op_code::exists, exists_a());
  h.feed(reply_frame(1, 40, 0, exists_response{}));
  h.take_wire();
  h.advance(2000ms);
  ASSERT_EQ(h.take_wire(), ping_frame());
  h.feed(ping_reply(99));
  h.feed(notification_frame(event_type::node_created, "/x"));
  h.submit(op_code::exists, exists_a());
  h.feed(reply_frame(2, 0, 0, exists_response{}));
  EXPECT_EQ(h.s.last_zxid_seen(), 40);
}

// A violation drops the connection, fails what was in flight with connection_loss, says why in the state change
// and reconnects to the next host.
void expect_violation(const std::string& bytes, std::error_code why, session_config c = config()) {
  harness h(std::move(c));
  h.establish();
  const auto a = h.submit(op_code::exists, exists_a());
  const auto b = h.submit(op_code::exists, exists_a());
  h.state_changes();
  h.feed(bytes);
  EXPECT_EQ(h.closes, 1);
  EXPECT_EQ(h.s.state(), session_state::suspended);
  const auto done = h.completions();
  ASSERT_EQ(done.size(), 2U);
  EXPECT_EQ(done[0].id, a);
  EXPECT_EQ(done[1].id, b);
  EXPECT_EQ(done[0].error, client_error::connection_loss);
  EXPECT_EQ(done[1].error, client_error::connection_loss);
  const auto changes = h.state_changes();
  ASSERT_EQ(changes.size(), 1U);
  EXPECT_EQ(changes[0].reason, why);
  EXPECT_TRUE(is_protocol_violation(changes[0].reason) || changes[0].reason == client_error::frame_too_large);
  EXPECT_EQ(h.connects, (std::vector<std::size_t>{0, 1}));
}

TEST(SessionViolation, XidMismatch) {
  expect_violation(reply_frame(2, 5, 0, exists_response{}), client_error::protocol_violation);
}
TEST(SessionViolation, ReplyToNothing) {
  harness h(config());
  h.establish();
  h.submit(op_code::exists, exists_a());
  h.state_changes();
  h.feed(reply_frame(1, 5, 0, exists_response{}) + reply_frame(2, 5, 0, exists_response{}));
  EXPECT_EQ(h.closes, 1);
  const auto done = h.completions();
  ASSERT_EQ(done.size(), 1U);
  EXPECT_FALSE(done[0].error) << "the reply before the bad one still counts";
  const auto changes = h.state_changes();
  ASSERT_EQ(changes.size(), 1U);
  EXPECT_EQ(changes[0].to, session_state::suspended);
  EXPECT_EQ(changes[0].reason, client_error::protocol_violation);
}
TEST(SessionViolation, UnexpectedSpecialXids) {
  expect_violation(reply_frame(special_xid::set_watches, 5), client_error::protocol_violation);
  expect_violation(ping_reply(), client_error::protocol_violation);
  expect_violation(reply_frame(special_xid::auth, 0), client_error::protocol_violation);
}
TEST(SessionViolation, GarbageBody) {
  std::string frame = reply_frame(1, 5, 0, exists_response{});
  frame.resize(frame.size() - 10);
  frame[3] = static_cast<char>(frame.size() - 4);
  expect_violation(frame, client_error::truncated_frame);
}
TEST(SessionViolation, EmptyFrame) { expect_violation(std::string(4, '\0'), client_error::truncated_frame); }
// A reply over max_frame_size fails only the request it answers, with frame_too_large, and the engine takes the
// watch the server set with it back (removeWatches); the connection and the replies behind it go on. Its bytes are
// dropped as they arrive, in pieces of any size.
TEST(SessionRequests, OversizedReplyFailsOnlyItsRequest) {
  auto c = config();
  c.max_frame_size = 1000;
  harness h(std::move(c));
  h.establish();
  constexpr watcher_id children_watcher = 7;
  const auto big = h.submit(op_code::get_children, get_children_request{"/a", true}, children_watcher);
  const auto next = h.submit(op_code::exists, exists_a());
  h.take_wire();
  get_children_response listing;
  listing.children.assign(100, std::string(60, 'n'));
  const std::string big_reply = reply_frame(1, 5, 0, listing);
  const std::string bytes = big_reply + reply_frame(2, 6, 0, exists_response{});
  h.feed(bytes, {2, 9, 20, 500, 1010, bytes.size() - 3});
  const auto done = h.completions();
  ASSERT_EQ(done.size(), 2U);
  EXPECT_EQ(done[0].id, big);
  EXPECT_EQ(done[0].error, client_error::frame_too_large) << done[0].error.message();
  EXPECT_FALSE(done[0].watch_registered);
  EXPECT_EQ(done[0].reply_size, big_reply.size() - 4) << "the reply's length, for the client's report";
  EXPECT_EQ(done[1].id, next);
  EXPECT_FALSE(done[1].error) << done[1].error.message();
  EXPECT_EQ(h.closes, 0);
  EXPECT_EQ(h.s.state(), session_state::connected);
  EXPECT_EQ(h.take_wire(),
            request_frame(3, op_code::remove_watches, remove_watches_request{"/a", watcher_type::children}));
}
// A frame over the limit that answers no request in order (here a notification) leaves the stream in doubt.
TEST(SessionViolation, OversizedFrameOfNoRequest) {
  auto c = config();
  c.max_frame_size = 100;
  expect_violation(notification_frame(event_type::node_data_changed, "/" + std::string(200, 'x')),
                   client_error::frame_too_large, c);
}
TEST(SessionViolation, NegativeLength) {
  expect_violation(std::string("\xff\xff\xff\xfe", 4), client_error::protocol_violation);
}
TEST(SessionViolation, BadConnectResponse) {
  harness h(config());
  h.start();
  h.connect_ok();
  h.feed(std::string("\x00\x00\x00\x03xyz", 7));
  EXPECT_EQ(h.closes, 1);
  EXPECT_EQ(h.connects, (std::vector<std::size_t>{0, 1}));
  EXPECT_EQ(h.s.state(), session_state::connecting);
}

TEST(SessionRequests, SplitReadsAtEveryOffset) {
  std::string bytes = reply_frame(1, 5, 0, get_data_response{std::string("hello"), {}}) +
                      notification_frame(event_type::node_deleted, "/a") + reply_frame(2, 6, 0, exists_response{});
  for (std::size_t cut1 = 1; cut1 < bytes.size(); cut1 += 3) {
    harness h(config());
    h.establish();
    h.submit(op_code::get_data, get_data_request{"/a", true}, 9);
    h.submit(op_code::exists, exists_a());
    h.feed(bytes, {1, 2, 3, cut1, cut1 + 1});
    const auto done = h.completions();
    ASSERT_EQ(done.size(), 2U) << "cut at " << cut1;
    EXPECT_EQ(std::get<get_data_response>(done[0].result.body).data, std::optional<std::string>("hello"));
    EXPECT_EQ(h.watch_deliveries().size(), 1U);
    EXPECT_EQ(h.s.state(), session_state::connected);
  }
}

TEST(SessionRequests, DisconnectFailsEachPendingOnceAndLaterOnesWaitForReconnect) {
  harness h(config());
  h.establish();
  const auto a = h.submit(op_code::exists, exists_a());
  const auto b = h.submit(op_code::exists, exists_a());
  h.feed(reply_frame(1, 5, 0, exists_response{}));
  h.drop();
  auto done = h.completions();
  ASSERT_EQ(done.size(), 2U);
  EXPECT_EQ(done[0].id, a);
  EXPECT_FALSE(done[0].error);
  EXPECT_EQ(done[1].id, b);
  EXPECT_EQ(done[1].error, client_error::connection_loss);
  const auto c = h.submit(op_code::get_data, get_data_request{"/c", false});
  h.connect_fail();  // a failed attempt keeps it queued
  EXPECT_TRUE(h.completions().empty());
  h.connect_ok();
  EXPECT_EQ(h.take_wire(), connect_frame(5, 6000, session_a, password_a));
  h.feed(connect_response_frame(6000));
  EXPECT_EQ(h.take_wire(), request_frame(3, op_code::get_data, get_data_request{"/c", false}));
  h.feed(error_reply(3, 6, server_error::no_node));
  done = h.completions();
  ASSERT_EQ(done.size(), 1U);
  EXPECT_EQ(done[0].id, c);
  h.drop();
  EXPECT_TRUE(h.completions().empty()) << "nothing completes twice";
}

TEST(SessionRequests, CancelBeforeAndAfterWrite) {
  harness h(config());
  h.start();
  const auto queued = h.submit(op_code::exists, exists_a());
  const auto kept = h.submit(op_code::exists, exists_request{"/k", false});
  EXPECT_TRUE(h.s.cancel(queued));
  EXPECT_FALSE(h.s.cancel(queued));
  h.pump();
  auto done = h.completions();
  ASSERT_EQ(done.size(), 1U);
  EXPECT_EQ(done[0].error, client_error::cancelled);
  h.connect_ok();
  h.take_wire();
  h.feed(connect_response_frame(6000));
  EXPECT_EQ(h.take_wire(), request_frame(1, op_code::exists, exists_request{"/k", false}));
  const auto written = h.submit(op_code::exists, exists_a());
  EXPECT_TRUE(h.s.cancel(written));
  h.pump();
  done = h.completions();
  ASSERT_EQ(done.size(), 1U);
  EXPECT_EQ(done[0].id, written);
  EXPECT_EQ(done[0].error, client_error::cancelled);
  // Its late reply is consumed in FIFO order and dropped.
  h.feed(reply_frame(1, 5, 0, exists_response{}) + reply_frame(2, 5, 0, exists_response{}));
  done = h.completions();
  ASSERT_EQ(done.size(), 1U);
  EXPECT_EQ(done[0].id, kept);
  EXPECT_EQ(h.s.state(), session_state::connected);
  EXPECT_FALSE(h.s.cancel(kept));
}

TEST(SessionRequests, CloseSendsCloseSessionThenClosed) {
  harness h(config());
  h.establish();
  h.submit(op_code::get_data, get_data_request{"/w", true}, 3);
  h.feed(reply_frame(1, 5, 0, get_data_response{}));
  const auto inflight = h.submit(op_code::exists, exists_a());
  h.take_wire();
  h.s.close(h.now);
  h.pump();
  EXPECT_EQ(h.take_wire(), request_frame(3, op_code::close_session, no_body{}));
  const auto late = h.submit(op_code::exists, exists_a());
  auto done = h.completions();
  ASSERT_EQ(done.size(), 2U);
  EXPECT_EQ(done[1].id, late);
  EXPECT_EQ(done[1].error, client_error::closed);
  h.feed(reply_frame(2, 6, 0, exists_response{}) + reply_frame(3, 7));
  done = h.completions();
  ASSERT_EQ(done.size(), 1U);
  EXPECT_EQ(done[0].id, inflight);
  EXPECT_FALSE(done[0].error);
  EXPECT_EQ(h.s.state(), session_state::closed);
  EXPECT_EQ(h.closes, 1);
  const auto finals = h.watch_deliveries();
  ASSERT_EQ(finals.size(), 1U);
  EXPECT_EQ(finals[0].event.state, keeper_state::closed);
  EXPECT_EQ(finals[0].error, client_error::closed);
}

TEST(SessionRequests, CloseWhileDisconnectedIsImmediate) {
  harness h(config());
  h.establish();
  h.drop();
  const auto queued = h.submit(op_code::exists, exists_a());
  h.completions();
  h.s.close(h.now);
  h.pump();
  EXPECT_EQ(h.s.state(), session_state::closed);
  const auto done = h.completions();
  ASSERT_EQ(done.size(), 1U);
  EXPECT_EQ(done[0].id, queued);
  EXPECT_EQ(done[0].error, client_error::closed);
  EXPECT_EQ(h.closes, 1) << "the pending connection attempt is closed";
}

TEST(SessionRequests, CloseTimesOutAtTheReadTimeout) {
  harness h(config());
  h.establish(6000);
  h.s.close(h.now);
  h.pump();
  h.advance(3999ms);
  EXPECT_NE(h.s.state(), session_state::closed);
  h.advance(1ms);
  EXPECT_EQ(h.s.state(), session_state::closed);
}

TEST(SessionRequests, LastAnsweredSendTime) {
  harness h(config());
  EXPECT_FALSE(h.s.last_answered_send_time());
  h.start();
  h.connect_ok();  // the ConnectRequest is queued now
  const time_point connect_sent_at = h.now;
  h.take_wire();
  h.advance(200ms);
  h.feed(connect_response_frame(6000, session_a));
  h.take_wire();
  // The server renewed the session when it read the ConnectRequest.
  EXPECT_EQ(h.s.last_answered_send_time(), std::optional<time_point>(connect_sent_at));
  h.advance(500ms);
  h.submit(op_code::exists, exists_a());  // sent at t0 + 500 ms
  const time_point sent_at = h.now;
  h.advance(1000ms);
  h.feed(reply_frame(1, 5, 0, exists_response{}));
  EXPECT_EQ(h.s.last_answered_send_time(), std::optional<time_point>(sent_at));
  h.take_wire();
  h.advance(1000ms);  // idle since t0 + 500 ms: ping at t0 + 2500 ms
  ASSERT_EQ(h.take_wire(), ping_frame());
  const time_point ping_at = h.now;
  h.advance(100ms);
  h.feed(ping_reply());
  EXPECT_EQ(h.s.last_answered_send_time(), std::optional<time_point>(ping_at));
}

TEST(SessionRequests, InvalidPathsAndForbiddenOpsCompleteAtOnce) {
  harness h(config());
  h.establish();
  struct bad {
    op_code op;
    request_body body;
    std::error_code error;
  };
  const std::vector<bad> cases{
      {op_code::get_data, get_data_request{"no-slash", false}, client_error::invalid_path},
      {op_code::create2, create_request{"/a/", std::nullopt, {}, create_mode::persistent}, client_error::invalid_path},
      {op_code::multi, multi_request{{delete_op("/ok"), delete_op("/bad/")}}, client_error::invalid_path},
      {op_code::ping, no_body{}, client_error::invalid_argument},
      {op_code::auth, auth_packet{0, "digest", "a:b"}, client_error::invalid_argument},
      {op_code::set_watches, set_watches{}, client_error::invalid_argument},
      {op_code::set_watches2, set_watches2{}, client_error::invalid_argument},
      {op_code::close_session, no_body{}, client_error::invalid_argument},
      {op_code::notification, no_body{}, client_error::invalid_argument},
      {op_code::create_session, no_body{}, client_error::invalid_argument},
      {op_code::delete_container, no_body{}, client_error::invalid_argument},
      {op_code::check, check_version_request{"/a", 1}, client_error::invalid_argument},
      {op_code::sasl, get_sasl_request{"t"}, client_error::invalid_argument},
      {op_code::exists, get_data_request{"/a", false}, client_error::invalid_argument},
      {op_code::create2, create_request{"/a", std::nullopt, {}, create_mode::container},
       client_error::invalid_argument},
  };
  for (const auto& c : cases) {
    const auto id = h.submit(c.op, c.body);
    const auto done = h.completions();
    ASSERT_EQ(done.size(), 1U) << op_code_name(c.op);
    EXPECT_EQ(done[0].id, id);
    EXPECT_EQ(done[0].error, c.error) << op_code_name(c.op);
  }
  EXPECT_TRUE(h.wire.empty());
  // A sequential create may end in '/'.
  h.submit(op_code::create2,
           create_request{"/q/", std::nullopt, {acl{31, {"world", "anyone"}}}, create_mode::persistent_sequential});
  EXPECT_FALSE(h.wire.empty());
  EXPECT_TRUE(h.completions().empty());
}

TEST(SessionRequests, TooLargeRequestFailsWithoutBreakingTheConnection) {
  auto c = config();
  c.max_request_size = 1000;
  harness h(c);
  h.start();
  const auto queued_big = h.submit(op_code::set_data, set_data_request{"/a", std::string(2000, 'x'), -1});
  h.connect_ok();
  h.take_wire();
  h.feed(connect_response_frame(6000));
  const auto big = h.submit(op_code::set_data, set_data_request{"/a", std::string(2000, 'x'), -1});
  const auto small = h.submit(op_code::set_data, set_data_request{"/a", std::string(10, 'x'), -1});
  EXPECT_EQ(h.take_wire(), request_frame(1, op_code::set_data, set_data_request{"/a", std::string(10, 'x'), -1}));
  h.feed(reply_frame(1, 5, 0, set_data_response{}));
  const auto done = h.completions();
  ASSERT_EQ(done.size(), 3U);
  EXPECT_EQ(done[0].id, queued_big);
  EXPECT_EQ(done[0].error, client_error::request_too_large);
  EXPECT_EQ(done[1].id, big);
  EXPECT_EQ(done[1].error, client_error::request_too_large);
  EXPECT_EQ(done[2].id, small);
  EXPECT_FALSE(done[2].error);
  EXPECT_EQ(h.s.state(), session_state::connected);
}

// A thousand requests submitted at once (lock waiters started together) grow the request queues and the write
// buffer to hold them all; once nothing was sent for a ping interval the engine gives that back, and a busy session
// (a request every second) never shrinks in between.
TEST(SessionRequests, ABurstsMemoryIsGivenBackOnceIdleForAPingInterval) {
  harness h(config());
  h.establish(6000);
  const std::size_t steady = h.s.retained_bytes();
  constexpr int burst = 1000;
  const std::string path = "/locks/" + std::string(100, 'p');
  for (int i = 0; i < burst; ++i) h.s.submit(h.now, op_code::get_data, get_data_request{path, false});
  h.pump();
  h.take_wire();
  const std::size_t peak = h.s.retained_bytes();
  EXPECT_GT(peak, steady + 100 * 1024U) << "the burst did not grow the engine: the test shows nothing";
  for (int i = 1; i <= burst; ++i) h.feed(reply_frame(i, 5, 0, get_data_response{"x", {}}));
  ASSERT_EQ(h.completions().size(), static_cast<std::size_t>(burst));
  h.advance(1999ms);
  EXPECT_TRUE(h.wire.empty());
  EXPECT_GE(h.s.retained_bytes(), peak) << "shrunk before a ping interval of idleness";
  h.advance(1ms);
  EXPECT_EQ(h.take_wire(), ping_frame());
  EXPECT_LE(h.s.retained_bytes(), steady + 4096) << "kept the burst's size while idle";
}

TEST(SessionAuth, ReplayOrderIsAuthThenSetWatchesThenQueued) {
  harness h(config());
  h.start();
  const auto auth_id = h.s.add_auth(h.now, "digest", "bob:secret");
  h.connect_ok();
  h.take_wire();
  h.feed(connect_response_frame(6000));
  EXPECT_EQ(h.take_wire(), auth_frame("digest", "bob:secret"));
  h.submit(op_code::get_data, get_data_request{"/w", true}, 4);
  h.feed(reply_frame(special_xid::auth, 0));
  auto done = h.completions();
  ASSERT_EQ(done.size(), 1U);
  EXPECT_EQ(done[0].id, auth_id);
  EXPECT_EQ(done[0].op, op_code::auth);
  EXPECT_FALSE(done[0].error);
  h.feed(reply_frame(1, 50, 0, get_data_response{}));
  EXPECT_EQ(h.completions().size(), 1U);
  h.drop();
  const auto queued = h.submit(op_code::exists, exists_a());
  h.connect_ok();
  h.take_wire();
  h.feed(connect_response_frame(6000));
  EXPECT_EQ(h.take_wire(), auth_frame("digest", "bob:secret") +
                               request_frame(2, op_code::set_watches, set_watches{50, {"/w"}, {}, {}}) +
                               request_frame(3, op_code::exists, exists_a()));
  // The auth reply may overtake; the SetWatches reply is consumed internally.
  h.feed(reply_frame(2, 51) + reply_frame(special_xid::auth, 0) + reply_frame(3, 52, 0, exists_response{}));
  done = h.completions();
  ASSERT_EQ(done.size(), 1U);
  EXPECT_EQ(done[0].id, queued);
  EXPECT_EQ(h.s.state(), session_state::connected);
}

TEST(SessionAuth, AddAuthWhileConnectedGoesAtOnce) {
  harness h(config());
  h.establish();
  const auto id = h.s.add_auth(h.now, "digest", "a:b");
  h.pump();
  EXPECT_EQ(h.take_wire(), auth_frame("digest", "a:b"));
  EXPECT_EQ(h.s.pending_requests(), 1U);
  h.feed(reply_frame(special_xid::auth, 0));
  const auto done = h.completions();
  ASSERT_EQ(done.size(), 1U);
  EXPECT_EQ(done[0].id, id);
}

TEST(SessionAuth, AuthFailedEndsTheSession) {
  harness h(config());
  h.establish();
  h.submit(op_code::get_data, get_data_request{"/w", true}, 4);
  h.feed(reply_frame(1, 50, 0, get_data_response{}));
  const auto auth_id = h.s.add_auth(h.now, "nope", "x");
  const auto inflight = h.submit(op_code::exists, exists_a());
  h.feed(reply_frame(special_xid::auth, 0, static_cast<std::int32_t>(server_error::auth_failed)));
  EXPECT_EQ(h.s.state(), session_state::auth_failed);
  EXPECT_EQ(h.closes, 1);
  const auto done = h.completions();
  ASSERT_EQ(done.size(), 3U);  // the earlier getData, then the auth, then the in-flight exists
  EXPECT_EQ(done[1].id, auth_id);
  EXPECT_EQ(done[1].error, server_error::auth_failed);
  EXPECT_EQ(done[2].id, inflight);
  EXPECT_EQ(done[2].error, server_error::auth_failed);
  const auto finals = h.watch_deliveries();
  ASSERT_EQ(finals.size(), 1U);
  EXPECT_EQ(finals[0].event.state, keeper_state::auth_failed);
  EXPECT_EQ(h.connects.size(), 1U) << "no reconnect after auth failure";
}

}  // namespace
}  // namespace zkwire::proto::test::requests
