// A watch-registering request abandoned after it was written (its deadline passed, or cancel()) may still register
// its watch on the server. No local watcher stands behind it, so the engine removes it with a removeWatches of its
// own, unless that server-side watch also serves a local registration or a request still in flight.

#include <gtest/gtest.h>

#include "harness.hpp"

namespace zkwire::proto::test::abandoned_watch {
namespace {

session_config config(std::string chroot = {}) {
  session_config c;
  c.host_count = 1;
  c.shuffle_hosts = false;
  c.seed = 7;
  c.session_timeout = 6000ms;  // ping after 2 s: far from the deadlines below
  c.chroot = std::move(chroot);
  return c;
}

constexpr watcher_id watcher = 9;

get_data_request watched_get(std::string path) { return get_data_request{std::move(path), true}; }

std::string removal(std::int32_t xid, std::string path, watcher_type type) {
  return request_frame(xid, op_code::remove_watches, remove_watches_request{std::move(path), type});
}

// Submits `body` with a watcher and a deadline 100 ms away, lets the deadline pass, and checks the timeout.
void submit_and_abandon(harness& h, op_code op, request_body body) {
  h.submit(op, std::move(body), watcher, h.now + 100ms);
  h.take_wire();
  h.advance(100ms);
  const auto done = h.completions();
  ASSERT_EQ(done.size(), 1U);
  EXPECT_EQ(done[0].error, client_error::operation_timeout);
}

TEST(SessionAbandonedWatch, TimedOutWatchedReadIsRemovedFromTheServer) {
  harness h(config());
  h.establish();
  submit_and_abandon(h, op_code::get_data, watched_get("/a"));
  h.feed(reply_frame(1, 5, 0, get_data_response{"x", {}}));
  EXPECT_EQ(h.take_wire(), removal(2, "/a", watcher_type::data));
  // The watch fires before the removal reached the server: nobody is told; then the removal's NOWATCHER is
  // consumed without a completion, and the session goes on.
  h.feed(notification_frame(event_type::node_data_changed, "/a") + error_reply(2, 6, server_error::no_watcher));
  EXPECT_TRUE(h.watch_deliveries().empty());
  EXPECT_TRUE(h.completions().empty());
  EXPECT_EQ(h.s.state(), session_state::connected);
  EXPECT_EQ(h.s.pending_requests(), 0U);
}

TEST(SessionAbandonedWatch, EachWatchKindIsRemovedFromItsTable) {
  struct kind_case {
    op_code op;
    request_body body;
    std::string reply;  // the server's answer to xid 1
    watcher_type removed;
  };
  const std::vector<kind_case> cases = {
      {op_code::exists, exists_request{"/a", true}, reply_frame(1, 5, 0, exists_response{}), watcher_type::data},
      // On a missing node the server registers an exist watch, in its data table.
      {op_code::exists, exists_request{"/a", true}, error_reply(1, 5, server_error::no_node), watcher_type::data},
      {op_code::get_children, get_children_request{"/a", true}, reply_frame(1, 5, 0, get_children_response{}),
       watcher_type::children},
      {op_code::get_children2, get_children2_request{"/a", true}, reply_frame(1, 5, 0, get_children2_response{}),
       watcher_type::children},
      {op_code::add_watch, add_watch_request{"/a", add_watch_mode::persistent}, reply_frame(1, 5, 0, error_response{0}),
       watcher_type::any},
      {op_code::add_watch, add_watch_request{"/a", add_watch_mode::persistent_recursive},
       reply_frame(1, 5, 0, error_response{0}), watcher_type::any},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(static_cast<int>(c.op));
    harness h(config());
    h.establish();
    submit_and_abandon(h, c.op, c.body);
    h.feed(c.reply);
    EXPECT_EQ(h.take_wire(), removal(2, "/a", c.removed));
  }
}

TEST(SessionAbandonedWatch, NothingToRemoveWhenTheServerRegisteredNothing) {
  harness h(config());
  h.establish();
  submit_and_abandon(h, op_code::get_data, watched_get("/a"));
  h.feed(error_reply(1, 5, server_error::no_node));  // getData on a missing node leaves no watch
  EXPECT_EQ(h.take_wire(), "");
  // Nor does an abandoned request without a watch.
  submit_and_abandon(h, op_code::get_data, get_data_request{"/b", false});
  h.feed(reply_frame(2, 6, 0, get_data_response{"x", {}}));
  EXPECT_EQ(h.take_wire(), "");
}

TEST(SessionAbandonedWatch, CancelledWatchedReadIsRemovedToo) {
  harness h(config());
  h.establish();
  const auto id = h.submit(op_code::get_data, watched_get("/a"), watcher);
  h.take_wire();
  EXPECT_TRUE(h.s.cancel(id));
  h.pump();
  ASSERT_EQ(h.completions().size(), 1U);
  h.feed(reply_frame(1, 5, 0, get_data_response{"x", {}}));
  EXPECT_EQ(h.take_wire(), removal(2, "/a", watcher_type::data));
}

TEST(SessionAbandonedWatch, SharedServerWatchOfALocalRegistrationStays) {
  harness h(config());
  h.establish();
  constexpr watcher_id other = 3;
  h.submit(op_code::get_data, watched_get("/a"), other);
  h.take_wire();
  h.feed(reply_frame(1, 5, 0, get_data_response{"x", {}}));
  ASSERT_EQ(h.completions().size(), 1U);
  // The server keeps one data watch per path for the connection: removing it would take `other`'s away.
  submit_and_abandon(h, op_code::exists, exists_request{"/a", true});
  h.feed(reply_frame(2, 6, 0, exists_response{}));
  EXPECT_EQ(h.take_wire(), "");
  h.feed(notification_frame(event_type::node_data_changed, "/a"));
  const auto fired = h.watch_deliveries();
  ASSERT_EQ(fired.size(), 1U);
  EXPECT_EQ(fired[0].watcher, other);
  // A child watch shares nothing with the data table: it is removed.
  submit_and_abandon(h, op_code::get_children, get_children_request{"/a", true});
  h.feed(reply_frame(3, 7, 0, get_children_response{}));
  EXPECT_EQ(h.take_wire(), removal(4, "/a", watcher_type::children));
}

TEST(SessionAbandonedWatch, WatchOfARequestStillInFlightStays) {
  harness h(config());
  h.establish();
  h.submit(op_code::get_data, watched_get("/a"), watcher, h.now + 100ms);
  constexpr watcher_id later = 4;
  h.submit(op_code::get_data, watched_get("/a"), later);  // written right after, no deadline
  h.take_wire();
  h.advance(100ms);
  ASSERT_EQ(h.completions().size(), 1U);
  // The server applied both before answering the first: a removal now would remove `later`'s watch.
  h.feed(reply_frame(1, 5, 0, get_data_response{"x", {}}));
  EXPECT_EQ(h.take_wire(), "");
  h.feed(reply_frame(2, 5, 0, get_data_response{"x", {}}));
  ASSERT_EQ(h.completions().size(), 1U);
  h.feed(notification_frame(event_type::node_deleted, "/a"));
  const auto fired = h.watch_deliveries();
  ASSERT_EQ(fired.size(), 1U);
  EXPECT_EQ(fired[0].watcher, later);
}

TEST(SessionAbandonedWatch, RemovalCarriesTheChroot) {
  harness h(config("/app"));
  h.establish();
  submit_and_abandon(h, op_code::get_data, watched_get("/a"));
  h.feed(reply_frame(1, 5, 0, get_data_response{"x", {}}));
  EXPECT_EQ(h.take_wire(), removal(2, "/app/a", watcher_type::data));
}

TEST(SessionAbandonedWatch, ReconnectReArmsNothingOfIt) {
  harness h(config());
  h.establish();
  submit_and_abandon(h, op_code::add_watch, add_watch_request{"/a", add_watch_mode::persistent});
  h.drop();  // the reply never came: the server forgets the connection's watches with it
  h.connect_ok();
  h.take_wire();
  h.feed(connect_response_frame(6000));
  EXPECT_EQ(h.take_wire(), "");  // no SetWatches for a watch nobody holds
  EXPECT_EQ(h.s.state(), session_state::connected);
}

}  // namespace
}  // namespace zkwire::proto::test::abandoned_watch
