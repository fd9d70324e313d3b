// Request deadlines: a request with no reply by its deadline completes with operation_timeout, whether written
// or still queued; its late reply is consumed in xid order and dropped; the session and connection go on.

#include <gtest/gtest.h>

#include "harness.hpp"

namespace zkwire::proto::test::deadlines {
namespace {

session_config config() {
  session_config c;
  c.host_count = 1;
  c.shuffle_hosts = false;
  c.seed = 7;
  c.session_timeout = 6000ms;  // ping after 2 s, read timeout 4 s: far from the deadlines below
  return c;
}

exists_request exists_at(std::string path) { return exists_request{std::move(path), false}; }

TEST(SessionDeadlines, WrittenRequestTimesOutAndItsLateReplyIsDropped) {
  harness h(config());
  h.establish();
  h.state_changes();
  const auto late = h.submit(op_code::exists, exists_at("/late"), 0, h.now + 500ms);
  const auto plain = h.submit(op_code::exists, exists_at("/plain"));
  EXPECT_EQ(h.take_wire(), request_frame(1, op_code::exists, exists_at("/late")) +
                               request_frame(2, op_code::exists, exists_at("/plain")));
  EXPECT_EQ(h.s.next_wakeup(), t0 + 500ms);  // the deadline, before the ping at 2 s
  h.advance(499ms);
  EXPECT_TRUE(h.completions().empty());
  h.advance(1ms);
  auto done = h.completions();
  ASSERT_EQ(done.size(), 1U);
  EXPECT_EQ(done[0].id, late);
  EXPECT_EQ(done[0].error, client_error::operation_timeout);
  EXPECT_EQ(done[0].error, condition::timeout);
  EXPECT_EQ(done[0].error, condition::connection_loss);  // outcome unknown, as for a lost connection
  EXPECT_TRUE(h.state_changes().empty());
  EXPECT_EQ(h.s.state(), session_state::connected);
  EXPECT_EQ(h.closes, 0);
  EXPECT_EQ(h.s.pending_requests(), 1U);
  // Both replies arrive late, in order: the first is dropped, the second completes its request.
  h.feed(reply_frame(1, 5, 0, exists_response{}) + reply_frame(2, 6, 0, exists_response{}));
  done = h.completions();
  ASSERT_EQ(done.size(), 1U);
  EXPECT_EQ(done[0].id, plain);
  EXPECT_FALSE(done[0].error);
  EXPECT_EQ(h.s.state(), session_state::connected);
  EXPECT_EQ(h.s.last_zxid_seen(), 6);
  // Later requests go on with the next xid.
  h.submit(op_code::exists, exists_at("/next"), 0, h.now + 500ms);
  EXPECT_EQ(h.take_wire(), request_frame(3, op_code::exists, exists_at("/next")));
  h.feed(reply_frame(3, 7, 0, exists_response{}));
  done = h.completions();
  ASSERT_EQ(done.size(), 1U);
  EXPECT_FALSE(done[0].error);
}

TEST(SessionDeadlines, AnsweredRequestNeverTimesOut) {
  harness h(config());
  h.establish();
  h.submit(op_code::exists, exists_at("/a"), 0, h.now + 300ms);
  h.take_wire();
  h.feed(reply_frame(1, 5, 0, exists_response{}));
  ASSERT_EQ(h.completions().size(), 1U);
  h.advance(1000ms);  // past the deadline: the wakeup it left finds nothing due
  EXPECT_TRUE(h.completions().empty());
  EXPECT_EQ(h.s.next_wakeup(), t0 + 2000ms);  // recomputed: only the ping is left
}

TEST(SessionDeadlines, QueuedRequestTimesOutWithoutAConnectionAndIsNeverSent) {
  harness h(config());
  h.start();  // asked to connect; the connection never comes up in time
  const auto id = h.submit(op_code::create, create_request{"/n", "x", open_acl_unsafe(), create_mode::persistent}, 0,
                           h.now + 200ms);
  h.advance(200ms);
  auto done = h.completions();
  ASSERT_EQ(done.size(), 1U);
  EXPECT_EQ(done[0].id, id);
  EXPECT_EQ(done[0].error, client_error::operation_timeout);
  h.connect_ok();
  h.take_wire();
  h.feed(connect_response_frame(6000));
  EXPECT_EQ(h.take_wire(), "");  // the timed-out create was never written
  EXPECT_EQ(h.s.pending_requests(), 0U);
}

TEST(SessionDeadlines, DeadlineAlreadyPastCompletesAtOnceUnsent) {
  harness h(config());
  h.establish();
  const auto id = h.submit(op_code::exists, exists_at("/a"), 0, h.now);
  auto done = h.completions();
  ASSERT_EQ(done.size(), 1U);
  EXPECT_EQ(done[0].id, id);
  EXPECT_EQ(done[0].error, client_error::operation_timeout);
  EXPECT_EQ(h.take_wire(), "");
}

TEST(SessionDeadlines, SeveralDeadlinesExpireEachAtItsOwnTime) {
  harness h(config());
  h.establish();
  const auto third = h.submit(op_code::exists, exists_at("/3"), 0, h.now + 300ms);
  const auto first = h.submit(op_code::exists, exists_at("/1"), 0, h.now + 100ms);
  const auto second = h.submit(op_code::exists, exists_at("/2"), 0, h.now + 200ms);
  for (const auto expected : {first, second, third}) {
    h.advance(100ms);
    auto done = h.completions();
    ASSERT_EQ(done.size(), 1U);
    EXPECT_EQ(done[0].id, expected);
    EXPECT_EQ(done[0].error, client_error::operation_timeout);
  }
  // All three replies arrive: every one is dropped, nothing is out of order.
  h.feed(reply_frame(1, 5, 0, exists_response{}) + reply_frame(2, 5, 0, exists_response{}) +
         reply_frame(3, 5, 0, exists_response{}));
  EXPECT_TRUE(h.completions().empty());
  EXPECT_EQ(h.s.state(), session_state::connected);
  EXPECT_EQ(h.closes, 0);
}

TEST(SessionDeadlines, ConnectionLossBeforeTheDeadlineReportsLossOnce) {
  harness h(config());
  h.establish();
  h.submit(op_code::exists, exists_at("/a"), 0, h.now + 300ms);
  h.drop();
  auto done = h.completions();
  ASSERT_EQ(done.size(), 1U);
  EXPECT_EQ(done[0].error, client_error::connection_loss);
  h.advance(400ms);
  EXPECT_TRUE(h.completions().empty());
}

}  // namespace
}  // namespace zkwire::proto::test::deadlines
