// The model against a real ZooKeeper 3.8 server where time matters: sessions expiring after their negotiated
// timeout on the server's tick, their ephemeral nodes deleted at expiry, containers reaped, a connection cut in
// the middle of a request, pipelined requests, and auth packets. The real server runs on the real clock; the model
// follows the real side's timeline (differential_target.hpp), and what each client observed must be equal.
// Times are checked against windows derived from the protocol, each side on its own clock:
//
// - Expiry. The server keeps each session in a bucket of its expiry queue: a frame heard at L moves it to the first
//   tick boundary strictly after L + timeout, and a thread expires a bucket when its boundary comes. The boundaries
//   are multiples of tickTime on the server's own monotonic clock, whose phase the client cannot know, so a client
//   can only be sure of the window (L + timeout, L + timeout + tickTime]. The server heard the last frame between
//   its send and its reply: the real expiry must come after send + timeout and, but for delivery, by
//   reply + timeout + tickTime. The model (virtual time, phase 0) must expire within the same window exactly, and
//   the deadline it tells the lock oracle (session_expiry: the safety-margin check trusts it) must never be later
//   than the real server's expiry.
// - Containers. The server checks for empty containers that once had a child every checkIntervalMs (500 in
//   tests/support) on a timer of its own phase: one whose last child was deleted at D goes by D + 500 ms.
//
// `delivery` is the only allowance not derived from the protocol: the real server's expiry or reaper thread waking,
// the closeSession or delete going through its pipeline, the event crossing loopback and this process waking. It
// applies to the real side's upper bounds only; lower bounds and the model's windows have none.

#include <gtest/gtest.h>

#include <cstdio>

#include "differential_fixture.hpp"
#include "text.hpp"

namespace zkwire::sim::differential {
namespace {

using namespace std::chrono_literals;
using proto::op_code;

constexpr micros tick = 200ms;  // tickTime in tests/support and scripts/zk
constexpr micros container_check = 500ms;
constexpr micros delivery = 150ms;

// The time a NodeDeleted for `path` was seen, if it was.
std::optional<micros> deleted_at(const target& t, const std::string& path) {
  for (const auto& e : t.events()) {
    if (e.event.type == proto::event_type::node_deleted && e.event.path == path) return e.at;
  }
  return std::nullopt;
}

std::string ms(micros t) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", static_cast<double>(t.count()) / 1000.0);
  return buf;
}

// Sessions silenced at moments 25 ms apart across a tick (so their deadlines fall at different points between two
// boundaries, and a model deadline later than the server's, whatever its phase, shows in most runs), with timeouts
// of 400 ms (one asked for 100: the server's minimum applies), 500 and 600 ms. A
// session of the script watches their ephemeral nodes; after expiry the nodes are gone for everyone, the silenced
// connections are closed by the server, and resuming a silenced session is refused (expired).
TEST_F(differential_test, SessionsExpireOnTheServersTickAfterTheirTimeout) {
  constexpr std::size_t silenced = 8;
  const std::int32_t asked[silenced] = {400, 100, 500, 600, 400, 400, 500, 600};
  const auto node = [](const std::string& base, std::size_t k) { return cat(base, "/e/s", k); };
  std::string base_seen;
  compare(
      [&](target& t, const std::string& base) {
        base_seen = base;
        t.call(0, op_code::create, create(base + "/e"));
        for (std::size_t k = 1; k <= silenced; ++k) {
          t.connect(k, asked[k - 1]);
          t.call(k, op_code::create, create(node(base, k), proto::create_mode::ephemeral));
          t.call(0, op_code::exists, proto::exists_request{node(base, k), true});
        }
        const micros start = t.answered(0);
        for (std::size_t k = 1; k <= silenced; ++k) {
          t.pass_until(start + (k - 1) * tick / silenced);
          t.call(k, op_code::exists, proto::exists_request{base, false});  // the session's last frame
          t.mark(cat("last c", k), k);
          t.note_deadline(k);
        }
        t.await_events(0, silenced, 3s);
        t.call(0, op_code::get_children, proto::get_children_request{base + "/e", false});
        for (std::size_t k = 1; k <= silenced; ++k) t.await_closed(k, 1s);
        for (std::size_t k = 1; k <= silenced; ++k) t.reconnect(k);
      },
      [&](const target& real, const target& model) {
        for (std::size_t k = 1; k <= silenced; ++k) {
          SCOPED_TRACE(cat("session c", k, " (asked for ", asked[k - 1], " ms)"));
          const micros timeout{std::chrono::milliseconds{real.negotiated(k)}};
          const auto real_expiry = deleted_at(real, node(base_seen, k));
          const auto model_expiry = deleted_at(model, node(base_seen, k));
          const auto deadline = model.deadline(k);
          ASSERT_TRUE(real_expiry && model_expiry && deadline);
          const auto [real_sent, real_answered] = real.marked(cat("last c", k));
          const micros model_sent = model.marked(cat("last c", k)).first;
          std::printf(
              "c%zu timeout %lld ms: real expiry %s ms after send + timeout (reply after %s ms); model %s ms "
              "after its last frame + timeout, its deadline %s ms after\n",
              k, static_cast<long long>(timeout.count() / 1000), ms(*real_expiry - real_sent - timeout).c_str(),
              ms(real_answered - real_sent).c_str(), ms(*model_expiry - model_sent - timeout).c_str(),
              ms(*deadline - model_sent - timeout).c_str());
          // The real server: never before the timeout, by the first tick after it.
          EXPECT_GT(*real_expiry, real_sent + timeout) << "the real server expired the session early";
          EXPECT_LE(*real_expiry, real_answered + timeout + tick + delivery)
              << "the real server expired the session more than a tick after its timeout";
          // The model, on its own clock: the same window, exactly.
          EXPECT_GT(*model_expiry, model_sent + timeout) << "the model expired the session at or before its timeout";
          EXPECT_LE(*model_expiry, model_sent + timeout + tick) << "the model expired it after the next tick";
          // What the oracle trusts: the model's deadline is no later than the real server's expiry.
          EXPECT_LE(*deadline, *real_expiry) << "the model's deadline is later than the real server's expiry";
        }
      });
}

// A container is reaped by the first check after its last child is deleted (one zxid, as every delete), a
// container that never had a child stays, and a watcher hears NodeDeleted.
TEST_F(differential_test, ContainersAreReapedByTheNextCheck) {
  std::string base_seen;
  compare(
      [&](target& t, const std::string& base) {
        base_seen = base;
        t.call(0, op_code::create_container, create(base + "/c"));
        t.call(0, op_code::create_container, create(base + "/never"));
        t.call(0, op_code::create, create(base + "/c/x"));
        t.call(0, op_code::exists, proto::exists_request{base + "/c", true});
        t.call(0, op_code::delete_, proto::delete_request{base + "/c/x", -1});
        t.mark("delete", 0);
        t.await_events(0, 1, 2s);
        t.call(0, op_code::exists, proto::exists_request{base + "/c", false});
        t.call(0, op_code::exists, proto::exists_request{base + "/never", false});
        t.call(0, op_code::create, create(base + "/after"));  // its zxid counts the reaper's delete
      },
      [&](const target& real, const target& model) {
        const auto real_reaped = deleted_at(real, base_seen + "/c");
        const auto model_reaped = deleted_at(model, base_seen + "/c");
        ASSERT_TRUE(real_reaped && model_reaped);
        const auto [real_sent, real_answered] = real.marked("delete");
        const micros model_deleted = model.marked("delete").first;
        std::printf("container reaped %s ms after the child's delete was answered (real), %s ms after it (model)\n",
                    ms(*real_reaped - real_answered).c_str(), ms(*model_reaped - model_deleted).c_str());
        EXPECT_GE(*real_reaped, real_sent);
        EXPECT_LE(*real_reaped, real_answered + container_check + delivery) << "the real server reaped it late";
        EXPECT_GE(*model_reaped, model_deleted);
        EXPECT_LE(*model_reaped, model_deleted + container_check) << "the model reaped it after the next check";
      });
}

// A client that pipelines: every request sent in one write before any reply is read. Replies come in the order
// sent, each write with its own zxid (failed ones included), reads with the last zxid applied, and a watch
// fired by a later request of the same pipeline is delivered before that request's reply.
TEST_F(differential_test, PipelinedRequestsAreAnsweredInOrder) {
  compare([](target& t, const std::string& base) {
    t.connect(1);
    t.call(0, op_code::create, create(base + "/p"));
    proto::multi_request multi;
    multi.ops.push_back(proto::create_op(create(base + "/p/m")));
    multi.ops.push_back(proto::set_data_op(base + "/p/a", "m", -1));
    t.pipeline(1, {
                      {op_code::create2, create(base + "/p/a", proto::create_mode::persistent, "1")},
                      {op_code::create, create(base + "/p/a")},
                      {op_code::get_data, proto::get_data_request{base + "/p/a", true}},
                      {op_code::set_data, proto::set_data_request{base + "/p/a", "2", 0}},
                      {op_code::set_data, proto::set_data_request{base + "/p/a", "3", 0}},
                      {op_code::exists, proto::exists_request{base + "/p/b", true}},
                      {op_code::create, create(base + "/p/b", proto::create_mode::ephemeral)},
                      {op_code::get_children2, proto::get_children2_request{base + "/p", false}},
                      {op_code::sync, proto::sync_request{base + "/p"}},
                      {op_code::multi, multi},
                      {op_code::delete_, proto::delete_request{base + "/p/a", -1}},
                      {op_code::get_data, proto::get_data_request{base + "/p/a", false}},
                  });
    t.call(0, op_code::get_children2, proto::get_children2_request{base + "/p", false});
  });
}

// A connection cut by the client right after a whole request (the request is applied, its reply lost) or in the
// middle of one (nothing is applied). The session lives on: resumed on a new connection it owns the ephemeral node
// the lost reply was about, and the watch its old connection had set is gone with that connection.
TEST_F(differential_test, AConnectionCutMidRequest) {
  compare([](target& t, const std::string& base) {
    t.connect(1);
    t.call(0, op_code::create, create(base + "/k"));
    t.call(0, op_code::exists, proto::exists_request{base + "/k/whole", true});
    t.call(1, op_code::get_data, proto::get_data_request{base + "/k", true});
    t.cut(1, op_code::create, create(base + "/k/whole", proto::create_mode::ephemeral), true);
    // Applied although no reply came: the watcher hears it (and the wait makes the order certain: a resume that
    // overtook the cut request would close its connection before the server read it).
    t.await_events(0, 1, 2s);
    t.reconnect(1);
    t.call(1, op_code::exists, proto::exists_request{base + "/k/whole", false});
    t.call(0, op_code::set_data, proto::set_data_request{base + "/k", "changed", -1});
    t.cut(1, op_code::set_data, proto::set_data_request{base + "/k/whole", "half", -1}, false);
    t.reconnect(1);
    t.call(1, op_code::get_data, proto::get_data_request{base + "/k/whole", false});
    t.call(0, op_code::create, create(base + "/k/next"));
  });
}

// Auth packets: digest credentials (any user:password is accepted; the ACL id is user:base64(sha1(user:password))),
// the auth scheme in an ACL standing for the connection's authenticated ids, NOAUTH for the others, whoAmI, and an
// unknown scheme: AUTHFAILED, the connection closed, the session alive.
TEST_F(differential_test, AuthPacketsAndDigestAcls) {
  compare([](target& t, const std::string& base) {
    const auto by_auth = [](std::int32_t perms) { return std::vector<proto::acl>{{perms, {"auth", ""}}}; };
    t.connect(1);
    t.connect(2);
    t.connect(3);
    t.call(1, op_code::auth, proto::auth_packet{0, "digest", "alice:secret"});
    t.call(1, op_code::who_am_i, proto::no_body{});
    t.call(1, op_code::create, proto::create_request{base + "/a", "x", by_auth(proto::perms::all), {}});
    t.call(1, op_code::get_acl, proto::get_acl_request{base + "/a"});
    t.call(1, op_code::get_data, proto::get_data_request{base + "/a", false});
    t.call(2, op_code::get_data, proto::get_data_request{base + "/a", false});
    t.call(2, op_code::auth, proto::auth_packet{0, "digest", "alice:wrong"});
    t.call(2, op_code::get_data, proto::get_data_request{base + "/a", false});
    t.call(2, op_code::set_data, proto::set_data_request{base + "/a", "y", -1});
    t.call(2, op_code::auth, proto::auth_packet{0, "digest", "alice:secret"});
    t.call(2, op_code::set_data, proto::set_data_request{base + "/a", "y", -1});
    t.call(1, op_code::create,
           proto::create_request{base + "/r", "", by_auth(proto::perms::read | proto::perms::admin), {}});
    t.call(2, op_code::set_data, proto::set_data_request{base + "/r", "no write", -1});
    t.call(2, op_code::create, proto::create_request{base + "/a/child", "", by_auth(proto::perms::all), {}});
    t.call(3, op_code::create, proto::create_request{base + "/b", "", by_auth(proto::perms::all), {}});
    t.call(3, op_code::create,
           proto::create_request{base + "/c", "", {{proto::perms::all, {"digest", "alice:not-her-hash"}}}, {}});
    t.call(1, op_code::get_data, proto::get_data_request{base + "/c", false});
    t.call(3, op_code::set_acl, proto::set_acl_request{base + "/a", proto::read_acl_unsafe(), -1});
    t.call(3, op_code::auth, proto::auth_packet{0, "no-such-scheme", "x"});
    t.call(3, op_code::exists, proto::exists_request{base, false});
    t.reconnect(3);
    t.call(3, op_code::who_am_i, proto::no_body{});
    t.call(1, op_code::set_acl, proto::set_acl_request{base + "/a", proto::read_acl_unsafe(), -1});
    t.call(3, op_code::get_data, proto::get_data_request{base + "/a", false});
  });
}

}  // namespace
}  // namespace zkwire::sim::differential
