// frame_tracker: the handshake, request headers and paths, and replies matched to their requests by xid.

#include <gtest/gtest.h>

#include <string>

#include "zkwire/faults/frame_info.hpp"
#include "zkwire/proto/connect.hpp"
#include "zkwire/proto/message.hpp"

namespace zkwire::faults {
namespace {

std::string payload_of(const std::string& frame) { return frame.substr(4); }

template <class Body>
std::string request(std::int32_t xid, proto::op_code op, const Body& body) {
  std::string out;
  EXPECT_FALSE(proto::encode_request_frame(out, xid, op, body));
  return payload_of(out);
}

template <class Body>
std::string reply(std::int32_t xid, std::int64_t zxid, std::int32_t err, const Body& body) {
  std::string out;
  EXPECT_FALSE(proto::encode_reply_frame(out, proto::reply_header{xid, zxid, err}, body));
  return payload_of(out);
}

class tracker_test : public ::testing::Test {
 protected:
  void handshake() {
    proto::connect_request req;
    req.timeout = 3000;
    std::string out;
    ASSERT_FALSE(proto::encode_connect_frame(out, req));
    const auto info = tracker.on_request(payload_of(out));
    EXPECT_TRUE(info.handshake);
    EXPECT_EQ(info.op, "connect");
    EXPECT_EQ(info.timeout, 3000);
    proto::connect_response rsp;
    rsp.timeout = 2000;
    rsp.session_id = 0x1234;
    rsp.passwd = std::string(16, 'p');
    out.clear();
    ASSERT_FALSE(proto::encode_frame(out, rsp));
    const auto answer = tracker.on_reply(payload_of(out));
    EXPECT_TRUE(answer.handshake);
    EXPECT_EQ(answer.session_id, 0x1234);
    EXPECT_EQ(answer.timeout, 2000);
  }

  frame_tracker tracker{7};
};

TEST_F(tracker_test, MatchesRepliesToRequestsByXid) {
  handshake();
  proto::create_request create;
  create.path = "/locks/a-lock-";
  create.acl = {proto::acl{31, {"world", "anyone"}}};
  auto info = tracker.on_request(request(1, proto::op_code::create2, create));
  EXPECT_EQ(info.op, "create2");
  EXPECT_EQ(info.xid, 1);
  EXPECT_EQ(info.path, "/locks/a-lock-");
  EXPECT_EQ(info.connection, 7U);
  info = tracker.on_request(request(2, proto::op_code::get_data, proto::get_data_request{"/x", false}));
  EXPECT_EQ(tracker.outstanding(), 2U);

  info = tracker.on_reply(reply(1, 10, 0, proto::create2_response{"/locks/a-lock-0000000001", {}}));
  EXPECT_EQ(info.op, "create2");
  EXPECT_EQ(info.path, "/locks/a-lock-");
  EXPECT_EQ(info.zxid, 10);
  EXPECT_EQ(info.err, 0);
  info = tracker.on_reply(reply(2, 10, -101, proto::no_body{}));
  EXPECT_EQ(info.op, "getData");
  EXPECT_EQ(info.path, "/x");
  EXPECT_EQ(info.err, -101);
  EXPECT_EQ(tracker.outstanding(), 0U);
  EXPECT_EQ(tracker.on_reply(reply(3, 10, 0, proto::no_body{})).op, "unknown");
}

TEST_F(tracker_test, SpecialXidsAndNotifications) {
  handshake();
  EXPECT_EQ(tracker.on_request(request(-2, proto::op_code::ping, proto::no_body{})).op, "ping");
  EXPECT_EQ(tracker.outstanding(), 0U);
  EXPECT_EQ(tracker.on_reply(reply(-2, 10, 0, proto::no_body{})).op, "ping");
  proto::watcher_event event;
  event.type = proto::event_type::node_deleted;
  event.path = "/w";
  const auto info = tracker.on_reply(reply(-1, -1, 0, event));
  EXPECT_EQ(info.op, "notification");
  EXPECT_EQ(info.path, "/w");
}

TEST_F(tracker_test, MultiUsesTheFirstOpsPathAndShortFramesAreUnknown) {
  handshake();
  proto::multi_request multi;
  multi.ops.push_back({proto::op_code::delete_, proto::delete_request{"/m/1", -1}});
  EXPECT_EQ(tracker.on_request(request(5, proto::op_code::multi, multi)).path, "/m/1");
  EXPECT_EQ(tracker.on_request("abc").op, "unknown");
  EXPECT_EQ(tracker.on_reply("abc").op, "unknown");
}

TEST(frame_log, OneJsonObjectPerFrame) {
  frame_info f;
  f.direction = rule_direction::reply;
  f.connection = 3;
  f.op = "create2";
  f.xid = 4;
  f.err = 0;
  f.path = "/a\"b";
  f.length = 90;
  EXPECT_EQ(frame_log_line(12, f, 2, "drop-then-rst"),
            R"({"t_us":12,"conn":3,"dir":"reply","op":"create2","xid":4,"err":0,"path":"/a\"b","len":90,)"
            R"("rule":2,"action":"drop-then-rst"})");
  EXPECT_EQ(json_quote(std::string("\x01\xff", 2)), R"("\u0001\u00ff")");
}

}  // namespace
}  // namespace zkwire::faults
