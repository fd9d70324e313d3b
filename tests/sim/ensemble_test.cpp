// The ensemble mode of the simulated server, through the wire bytes: each test names one rule of a ZooKeeper
// ensemble that the model must keep (ensemble.hpp).

#include <gtest/gtest.h>

#include "ensemble.hpp"
#include "wire_peer.hpp"

namespace zkwire::sim {
namespace {

using proto::op_code;
using proto::server_error;
using testing::create;
using testing::wire_peer;

constexpr sim_time lag{500};

// A connection to one member; when the member has nothing to send yet, virtual time moves to the ensemble's next
// deadline (a follower applying the log, the leader ordering) until it has, the way the network drives it.
class ensemble_link final : public testing::byte_link {
 public:
  ensemble_link(ensemble& e, std::size_t member, sim_time& now)
      : ensemble_(e), now_(now), id_(e.open_connection(member)) {}
  ensemble_link(const ensemble_link&) = delete;
  ensemble_link& operator=(const ensemble_link&) = delete;
  ensemble_link(ensemble_link&&) = delete;
  ensemble_link& operator=(ensemble_link&&) = delete;
  ~ensemble_link() override { ensemble_.close_connection(id_, now_); }
  void send(std::string_view bytes) override { ensemble_.receive(id_, bytes, now_); }
  std::string receive() override {
    std::string out = ensemble_.take_output(id_);
    for (int i = 0; out.empty() && !ensemble_.is_closed(id_) && i < 100; ++i) {
      const sim_time next = ensemble_.next_deadline();
      if (next > now_ + sim_time{2000}) break;  // nothing is on its way to this connection
      now_ = std::max(now_, next);
      ensemble_.tick(now_);
      out = ensemble_.take_output(id_);
    }
    return out;
  }
  [[nodiscard]] bool closed() const override { return ensemble_.is_closed(id_); }

 private:
  ensemble& ensemble_;
  sim_time& now_;
  connection_id id_;
};

class sim_ensemble_test : public ::testing::Test {
 protected:
  struct client {
    std::unique_ptr<ensemble_link> link;
    std::unique_ptr<wire_peer> peer;
    proto::connect_response session;
    wire_peer* operator->() const { return peer.get(); }
  };

  client connect(std::size_t member, std::int64_t session = 0, std::string passwd = std::string(16, '\0'),
                 std::int64_t last_zxid = 0) {
    client c;
    c.link = std::make_unique<ensemble_link>(ensemble_, member, now_);
    c.peer = std::make_unique<wire_peer>(*c.link);
    if (auto response = c.peer->connect(4000, session, std::move(passwd), last_zxid)) c.session = *response;
    return c;
  }

  static ensemble_config config() {
    ensemble_config c;
    c.members = 3;
    c.min_lag = lag;
    c.max_lag = lag;
    return c;
  }

  ensemble ensemble_{config()};
  sim_time now_{0};
};

TEST_F(sim_ensemble_test, AFollowerServesItsStaleViewUntilSync) {
  auto leader = connect(0);
  auto follower = connect(1);
  ASSERT_NE(follower.session.session_id, 0);
  const auto created = leader->call(op_code::create, create("/x"));
  ASSERT_TRUE(created);
  const std::int64_t zxid = created->reply.header.zxid;

  const auto stale = follower->call(op_code::exists, proto::exists_request{"/x", false});
  ASSERT_TRUE(stale);
  EXPECT_EQ(stale->reply.header.err, static_cast<int>(server_error::no_node)) << "the follower has not applied it";
  EXPECT_LT(stale->reply.header.zxid, zxid);

  const sim_time before = now_;
  const auto synced = follower->call(op_code::sync, proto::sync_request{"/"});
  ASSERT_TRUE(synced);
  EXPECT_GE(now_ - before, sim_time{1}) << "sync answers only once the follower caught up";
  EXPECT_GE(synced->reply.header.zxid, zxid);
  const auto fresh = follower->call(op_code::exists, proto::exists_request{"/x", false});
  ASSERT_TRUE(fresh);
  EXPECT_EQ(fresh->reply.header.err, 0);
}

TEST_F(sim_ensemble_test, AWriteAtAFollowerIsAnsweredWhenTheFollowerAppliedIt) {
  auto follower = connect(2);
  const sim_time sent = now_;
  const auto created = follower->call(op_code::create, create("/y"));
  ASSERT_TRUE(created);
  EXPECT_EQ(created->reply.header.err, 0);
  EXPECT_GE(now_ - sent, lag);
  EXPECT_NE(ensemble_.tree().find("/y"), nullptr);
  EXPECT_NE(ensemble_.member(2).tree().find("/y"), nullptr);
  EXPECT_EQ(ensemble_.member(2).last_zxid(), created->reply.header.zxid);
}

TEST_F(sim_ensemble_test, AMemberBehindTheClientRefusesItAndTheSessionMovesToAnother) {
  auto a = connect(0);
  const auto created = a->call(op_code::create, create("/e", "", proto::create_mode::ephemeral));
  ASSERT_TRUE(created);
  const std::int64_t seen = created->reply.header.zxid;

  // Member 1 has not applied the create: it closes the connection without a reply.
  auto refused = connect(1, a.session.session_id, a.session.passwd, seen);
  EXPECT_EQ(refused.session.session_id, 0);
  EXPECT_TRUE(refused.link->closed());

  // Once it has, the session moves there; its connection at the leader is closed.
  now_ += lag;
  ensemble_.tick(now_);
  auto moved = connect(1, a.session.session_id, a.session.passwd, seen);
  EXPECT_EQ(moved.session.session_id, a.session.session_id);
  EXPECT_TRUE(a.link->closed());
  const auto read = moved->call(op_code::exists, proto::exists_request{"/e", false});
  ASSERT_TRUE(read);
  EXPECT_EQ(read->reply.header.err, 0);
}

TEST_F(sim_ensemble_test, ExpiryIsATransactionAndWatchesFireWhereTheClientIs) {
  auto owner = connect(2);
  ASSERT_TRUE(owner->call(op_code::create, create("/eph", "", proto::create_mode::ephemeral)));
  auto watcher = connect(1);
  ASSERT_TRUE(watcher->call(op_code::sync, proto::sync_request{"/"}));
  const auto armed = watcher->call(op_code::exists, proto::exists_request{"/eph", true});
  ASSERT_TRUE(armed);
  ASSERT_EQ(armed->reply.header.err, 0);

  ensemble_.expire_session(owner.session.session_id, now_);
  ensemble_.tick(now_);
  EXPECT_EQ(ensemble_.tree().find("/eph"), nullptr) << "the leader applies the expiry at once";
  EXPECT_NE(ensemble_.member(1).tree().find("/eph"), nullptr) << "the follower still lags";

  // The owner's follower has not applied the expiry yet, so it still takes a request of the session; the leader,
  // which ordered the expiry first, makes it an error: no ephemeral of a dead session. The follower closes the
  // connection when it applies the expiry, before the error would be answered.
  EXPECT_FALSE(owner.link->closed());
  const auto late = owner->call(op_code::create, create("/late", "", proto::create_mode::ephemeral));
  EXPECT_FALSE(late.has_value());
  EXPECT_TRUE(owner.link->closed());
  EXPECT_EQ(ensemble_.tree().find("/late"), nullptr);
  EXPECT_EQ(ensemble_.member(2).tree().find("/late"), nullptr);

  now_ += lag;
  ensemble_.tick(now_);
  const auto events = watcher->events();
  ASSERT_EQ(events.size(), 1U);
  EXPECT_EQ(events[0].type, proto::event_type::node_deleted);
  EXPECT_EQ(ensemble_.member(1).tree().find("/late"), nullptr);
}

}  // namespace
}  // namespace zkwire::sim
