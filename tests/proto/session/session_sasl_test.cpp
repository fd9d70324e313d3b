// SASL DIGEST-MD5 in the engine: a scripted server exchange (challenge -> response -> rspauth), requests held
// until it succeeds, rejection ending the session for good, and the replay on every new connection.

#include <gtest/gtest.h>

#include "harness.hpp"
#include "sasl_digest.hpp"

namespace zkwire::proto::test {
namespace {

using session_detail::digest_response_value;

constexpr std::string_view challenge =
    R"(realm="zk-sasl-md5",nonce="N0nce",qop="auth",charset=utf-8,algorithm=md5-sess)";

session_config sasl_config(std::string password = "secret") {
  session_config c;
  c.shuffle_hosts = false;
  c.seed = 42;
  c.session_timeout = 6000ms;
  c.sasl = sasl_credentials{"alice", std::move(password), [] { return std::string("CNONCE"); }};
  return c;
}

std::string sasl_request(std::int32_t xid, std::string token) {
  return request_frame(xid, op_code::sasl, get_sasl_request{std::move(token)});
}

std::string sasl_reply(std::int32_t xid, std::string token) {
  return reply_frame(xid, 0, 0, set_sasl_response{std::move(token)});
}

// What a server knowing alice's password "secret" expects, and what it proves itself with.
std::string expected_response() {
  return R"(charset=utf-8,username="alice",realm="zk-sasl-md5",nonce="N0nce",nc=00000001,cnonce="CNONCE",)"
         R"(digest-uri="zookeeper/zk-sasl-md5",maxbuf=65536,response=)" +
         digest_response_value("alice", "zk-sasl-md5", "secret", "N0nce", "CNONCE", true) + ",qop=auth";
}
std::string rspauth() {
  return "rspauth=" + digest_response_value("alice", "zk-sasl-md5", "secret", "N0nce", "CNONCE", false);
}

std::string get_data(std::int32_t xid, std::string path) {
  return request_frame(xid, op_code::get_data, get_data_request{std::move(path), false});
}

// Start, connect and answer the handshake; the engine has just sent its empty first token with xid `xid`.
void handshake(harness& h, std::int32_t xid = 1) {
  h.start();
  h.connect_ok();
  h.take_wire();
  h.feed(connect_response_frame(6000));
  ASSERT_EQ(h.take_wire(), sasl_request(xid, "")) << "the first DIGEST-MD5 token is empty, before anything else";
}

TEST(SessionSasl, ExchangeRunsBeforeAnyRequestThenTheHeldRequestsGoOut) {
  harness h(sasl_config());
  h.submit(op_code::get_data, get_data_request{"/queued", false});
  handshake(h);
  EXPECT_EQ(h.s.state(), session_state::connecting) << "connected only once SASL succeeded";
  h.submit(op_code::get_data, get_data_request{"/meanwhile", false});
  EXPECT_TRUE(h.wire.empty()) << "a request issued during the exchange must wait";
  h.feed(sasl_reply(1, std::string(challenge)));
  EXPECT_EQ(h.take_wire(), sasl_request(2, expected_response()));
  EXPECT_EQ(h.s.state(), session_state::connecting);
  h.feed(sasl_reply(2, rspauth()));
  EXPECT_EQ(h.s.state(), session_state::connected);
  EXPECT_EQ(h.take_wire(), get_data(3, "/queued") + get_data(4, "/meanwhile"));
  EXPECT_TRUE(h.completions().empty());
  // Later requests go straight out.
  h.submit(op_code::get_data, get_data_request{"/later", false});
  EXPECT_EQ(h.take_wire(), get_data(5, "/later"));
}

TEST(SessionSasl, WrongPasswordEndsTheSessionWithSaslFailedAndNoReconnect) {
  harness h(sasl_config("wrong"));
  h.submit(op_code::get_data, get_data_request{"/queued", false});
  handshake(h);
  h.feed(sasl_reply(1, std::string(challenge)));
  const std::string response = h.take_wire();
  EXPECT_NE(response, sasl_request(2, expected_response())) << "the response depends on the password";
  // ZooKeeper answers AUTHFAILED to the sasl request, then closes the connection.
  h.feed(error_reply(2, 0, server_error::auth_failed));
  EXPECT_EQ(h.s.state(), session_state::auth_failed);
  EXPECT_EQ(h.closes, 1);
  auto changes = h.state_changes();
  ASSERT_FALSE(changes.empty());
  EXPECT_EQ(changes.back().to, session_state::auth_failed);
  EXPECT_EQ(changes.back().reason, client_error::sasl_failed);
  EXPECT_TRUE(changes.back().reason == condition::session_ended);
  auto done = h.completions();
  ASSERT_EQ(done.size(), 1U);
  EXPECT_EQ(done[0].error, client_error::sasl_failed);
  EXPECT_NE(done[0].error.message().find("SASL authentication failed"), std::string::npos);
  // Every later operation gets the same error, and the engine never tries again.
  h.submit(op_code::get_data, get_data_request{"/later", false});
  done = h.completions();
  ASSERT_EQ(done.size(), 1U);
  EXPECT_EQ(done[0].error, client_error::sasl_failed);
  h.drop();
  h.advance(60s);
  EXPECT_EQ(h.connects.size(), 1U);
  EXPECT_TRUE(h.wire.empty());
  EXPECT_EQ(h.s.next_wakeup(), time_point::max());
}

TEST(SessionSasl, ServerThatCannotProveThePasswordIsRejected) {
  harness h(sasl_config());
  handshake(h);
  h.feed(sasl_reply(1, std::string(challenge)));
  h.take_wire();
  h.feed(sasl_reply(2, "rspauth=0123456789abcdef0123456789abcdef"));
  EXPECT_EQ(h.s.state(), session_state::auth_failed);
  EXPECT_EQ(h.closes, 1);
  auto changes = h.state_changes();
  EXPECT_EQ(changes.back().reason, client_error::sasl_exchange_failed);
}

TEST(SessionSasl, MalformedChallengeIsRejectedNotAnswered) {
  harness h(sasl_config());
  handshake(h);
  h.feed(sasl_reply(1, R"(realm="zk-sasl-md5",qop="auth",algorithm=md5-sess)"));  // no nonce
  EXPECT_TRUE(h.wire.empty());
  EXPECT_EQ(h.s.state(), session_state::auth_failed);
  EXPECT_EQ(h.state_changes().back().reason, client_error::sasl_exchange_failed);
}

TEST(SessionSasl, ReplayedOnReconnectBeforeAuthWatchesAndQueuedRequests) {
  harness h(sasl_config());
  handshake(h);
  h.feed(sasl_reply(1, std::string(challenge)));
  h.take_wire();
  h.feed(sasl_reply(2, rspauth()));
  ASSERT_EQ(h.s.state(), session_state::connected);
  h.s.add_auth(h.now, "digest", "bob:pw");
  h.pump();
  EXPECT_EQ(h.take_wire(), auth_frame("digest", "bob:pw"));
  h.feed(reply_frame(special_xid::auth, 0));
  h.drop();
  EXPECT_EQ(h.s.state(), session_state::suspended);
  h.submit(op_code::get_data, get_data_request{"/waiting", false});
  ASSERT_EQ(h.connects.size(), 2U);
  h.connect_ok();
  EXPECT_EQ(h.take_wire(), connect_frame(0, 6000, session_a, password_a));
  h.feed(connect_response_frame(6000));
  EXPECT_EQ(h.take_wire(), sasl_request(3, "")) << "SASL first, alone";
  EXPECT_EQ(h.s.state(), session_state::suspended);
  h.feed(sasl_reply(3, std::string(challenge)));
  EXPECT_EQ(h.take_wire(), sasl_request(4, expected_response()));
  h.feed(sasl_reply(4, rspauth()));
  EXPECT_EQ(h.s.state(), session_state::connected);
  EXPECT_EQ(h.take_wire(), auth_frame("digest", "bob:pw") + get_data(5, "/waiting"));
}

TEST(SessionSasl, ConnectionLostDuringTheExchangeIsOneFailedAttemptAndTheExchangeStartsOver) {
  auto c = sasl_config();
  c.host_count = 2;
  harness h(c);
  h.submit(op_code::get_data, get_data_request{"/queued", false});
  handshake(h);
  h.feed(sasl_reply(1, std::string(challenge)));
  h.take_wire();
  h.drop();
  EXPECT_EQ(h.s.state(), session_state::connecting) << "never connected: requests were never allowed out";
  auto done = h.completions();
  EXPECT_TRUE(done.empty()) << "the held request stays queued";
  ASSERT_EQ(h.connects, (std::vector<std::size_t>{0, 1}));
  h.connect_ok();
  h.take_wire();
  h.feed(connect_response_frame(6000));
  EXPECT_EQ(h.take_wire(), sasl_request(3, ""));
  h.feed(sasl_reply(3, std::string(challenge)));
  EXPECT_EQ(h.take_wire(), sasl_request(4, expected_response()));
  h.feed(sasl_reply(4, rspauth()));
  EXPECT_EQ(h.take_wire(), get_data(5, "/queued"));
}

TEST(SessionSasl, PingsKeepTheSessionAliveDuringASlowExchange) {
  harness h(sasl_config());
  handshake(h);
  h.advance(2001ms);  // T/3 of 6000 ms without sending
  EXPECT_EQ(h.take_wire(), ping_frame());
  EXPECT_EQ(h.s.state(), session_state::connecting);
}

}  // namespace
}  // namespace zkwire::proto::test
