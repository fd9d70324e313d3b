// The protocol records against a real ZooKeeper 3.8 server, over a plain blocking socket: handshake, session
// resumption and expiry, timeout clamping, a few operations, and the frame size limits of docs/protocol.md#limits.

#include <gtest/gtest.h>

#include <string>

#include "blocking_connection.hpp"
#include "support/zk_test.hpp"
#include "zkwire/proto/proto.hpp"

namespace zkwire {
namespace {

using tools::blocking_connection;

class raw_handshake_test : public test::standalone_test {
 protected:
  // Connects to the suite's server and completes a handshake with `request`.
  proto::connect_response open(blocking_connection& conn, const proto::connect_request& request) {
    EXPECT_FALSE(conn.connect("127.0.0.1", cluster().client_port(0)));
    proto::connect_response response;
    const auto ec = conn.handshake(request, response);
    EXPECT_FALSE(ec) << ec.message();
    return response;
  }

  static proto::connect_request new_session(std::int32_t timeout_ms) {
    proto::connect_request request;
    request.timeout = timeout_ms;
    return request;
  }
};

TEST_F(raw_handshake_test, NewSessionGetsIdPasswordAndRequestedTimeout) {
  blocking_connection conn;
  const auto response = open(conn, new_session(10000));
  EXPECT_NE(response.session_id, 0);
  EXPECT_EQ(response.timeout, 10000);
  EXPECT_EQ(response.passwd.size(), proto::password_length);
  EXPECT_NE(response.passwd, std::string(proto::password_length, '\0'));
  EXPECT_FALSE(response.read_only);
}

TEST_F(raw_handshake_test, TimeoutIsClampedToTheServersBounds) {
  blocking_connection low;
  EXPECT_EQ(open(low, new_session(100)).timeout, 400);  // minSessionTimeout of the fixture
  blocking_connection high;
  EXPECT_EQ(open(high, new_session(10'000'000)).timeout, 60000);  // maxSessionTimeout
}

TEST_F(raw_handshake_test, ResumeKeepsTheSessionAndKicksTheOldConnection) {
  blocking_connection first;
  const auto created = open(first, new_session(5000));

  proto::connect_request resume = new_session(5000);
  resume.session_id = created.session_id;
  resume.passwd = created.passwd;
  blocking_connection second;
  const auto resumed = open(second, resume);
  EXPECT_EQ(resumed.session_id, created.session_id);
  EXPECT_EQ(resumed.timeout, 5000);
  EXPECT_FALSE(proto::is_session_expired(resume, resumed));

  // The server closed the first connection when the session moved.
  std::string payload;
  EXPECT_TRUE(first.read_frame(payload));
}

TEST_F(raw_handshake_test, WrongPasswordLooksLikeExpiry) {
  blocking_connection first;
  const auto created = open(first, new_session(5000));

  proto::connect_request resume = new_session(5000);
  resume.session_id = created.session_id;
  resume.passwd = std::string(proto::password_length, 'x');
  blocking_connection second;
  const auto refused = open(second, resume);
  EXPECT_EQ(refused.timeout, 0);
  EXPECT_EQ(refused.session_id, 0);
  EXPECT_TRUE(proto::is_session_expired(resume, refused));
}

TEST_F(raw_handshake_test, ClosedSessionCannotBeResumed) {
  blocking_connection conn;
  const auto created = open(conn, new_session(5000));
  proto::reply reply;
  ASSERT_FALSE(conn.call(proto::op_code::close_session, proto::no_body{}, reply));
  EXPECT_EQ(reply.header.err, 0);

  proto::connect_request resume = new_session(5000);
  resume.session_id = created.session_id;
  resume.passwd = created.passwd;
  blocking_connection again;
  EXPECT_TRUE(proto::is_session_expired(resume, open(again, resume)));
}

TEST_F(raw_handshake_test, OperationsRoundTripThroughTheServer) {
  blocking_connection conn;
  const auto session = open(conn, new_session(5000));
  proto::reply reply;

  const proto::create_request create{root(), "payload", proto::open_acl_unsafe(), proto::create_mode::ephemeral};
  ASSERT_FALSE(conn.call(proto::op_code::create2, create, reply));
  ASSERT_EQ(reply.header.err, 0);
  const auto& created = std::get<proto::create2_response>(reply.body);
  EXPECT_EQ(created.path, root());
  EXPECT_EQ(created.stat.ephemeral_owner, session.session_id);
  EXPECT_EQ(created.stat.data_length, 7);
  EXPECT_GT(reply.header.zxid, 0);
  EXPECT_EQ(conn.last_zxid(), reply.header.zxid);

  ASSERT_FALSE(conn.call(proto::op_code::get_data, proto::get_data_request{root(), false}, reply));
  ASSERT_EQ(reply.header.err, 0);
  EXPECT_EQ(std::get<proto::get_data_response>(reply.body).data, std::optional<std::string>("payload"));

  // NONODE comes without a body.
  ASSERT_FALSE(conn.call(proto::op_code::exists, proto::exists_request{root() + "-missing", false}, reply));
  EXPECT_EQ(proto::error_from_wire(reply.header.err), proto::server_error::no_node);
  EXPECT_TRUE(std::holds_alternative<proto::no_body>(reply.body));

  // A node created with null data reads back null, not empty.
  const proto::create_request null_data{root() + "-null", std::nullopt, proto::open_acl_unsafe(),
                                        proto::create_mode::ephemeral};
  ASSERT_FALSE(conn.call(proto::op_code::create2, null_data, reply));
  ASSERT_EQ(reply.header.err, 0);
  ASSERT_FALSE(conn.call(proto::op_code::get_data, proto::get_data_request{null_data.path, false}, reply));
  EXPECT_EQ(std::get<proto::get_data_response>(reply.body).data, std::nullopt);

  // A failed multi: err 0 in the header, every result an error, first_error names the cause.
  proto::multi_request multi;
  multi.ops.push_back(proto::set_data_op(root(), "x", 0));
  multi.ops.push_back(proto::check_op(root(), 7));
  ASSERT_FALSE(conn.call(proto::op_code::multi, multi, reply));
  ASSERT_EQ(reply.header.err, 0);
  const auto& results = std::get<proto::multi_response>(reply.body);
  ASSERT_EQ(results.results.size(), 2U);
  EXPECT_EQ(results.results[0].type, proto::op_code::error);
  EXPECT_EQ(proto::first_error(results), proto::server_error::bad_version);

  // whoAmI lists the connection's ip identity.
  ASSERT_FALSE(conn.call(proto::op_code::who_am_i, proto::no_body{}, reply));
  const auto& who = std::get<proto::who_am_i_response>(reply.body);
  ASSERT_FALSE(who.client_info.empty());
  EXPECT_EQ(who.client_info.back().auth_scheme, "ip");
}

TEST_F(raw_handshake_test, LargestRequestTheServerAcceptsAndTheLargerReplyIsRead) {
  blocking_connection conn;
  open(conn, new_session(5000));
  proto::reply reply;

  // Size the data so the whole create payload is exactly jute.maxbuffer (1,048,575 bytes).
  proto::create_request create{root(), std::string(), proto::open_acl_unsafe(), proto::create_mode::ephemeral};
  std::string probe;
  ASSERT_FALSE(proto::encode_request_frame(probe, 1, proto::op_code::create2, create));
  const std::size_t overhead = probe.size() - 4;
  create.data = std::string(jute::server_max_buffer - overhead, 'z');

  // One byte more and the encoder refuses before anything is sent (the server would drop the connection).
  proto::create_request too_big = create;
  too_big.data->push_back('z');
  std::string out;
  EXPECT_EQ(proto::encode_request_frame(out, 1, proto::op_code::create2, too_big),
            proto::client_error::request_too_large);

  ASSERT_FALSE(conn.call(proto::op_code::create2, create, reply));
  ASSERT_EQ(reply.header.err, 0) << proto::server_error_name(reply.header.err);

  // The getData reply is larger than jute.maxbuffer (header and Stat on top); the default limits accept it.
  ASSERT_FALSE(conn.call(proto::op_code::get_data, proto::get_data_request{root(), false}, reply));
  ASSERT_EQ(reply.header.err, 0);
  EXPECT_EQ(std::get<proto::get_data_response>(reply.body).data->size(), create.data->size());
}

}  // namespace
}  // namespace zkwire
