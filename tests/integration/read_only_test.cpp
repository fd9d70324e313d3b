// Read-only mode against a real 3-member ensemble (readonlymode.enabled, local sessions): with the quorum lost, a
// client that accepts read-only servers connects to the member left (connected_read_only), reads work and writes
// get NOTREADONLY; `zkwire --read-only watch` reports ConnectedReadOnly. When the quorum returns without the
// read-only member (kept frozen, so it can neither rejoin nor drop its connections), the client's background
// isro probe finds a read-write member and moves the session there by itself (SyncConnected, writes work). What
// happens to a session created read-write before the partition is measured and documented in
// docs/protocol.md#read-only.

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <system_error>

#include "support/child_process.hpp"
#include "support/eventually.hpp"
#include "support/state_recorder.hpp"
#include "support/temp_dir.hpp"
#include "support/zk_cluster.hpp"
#include "zkwire/client/blocking_client.hpp"
#include "zkwire/client/errors.hpp"

namespace zkwire {
namespace {

using namespace std::chrono_literals;

test::cluster_options read_only_ensemble() {
  test::cluster_options o;
  o.members = 3;
  o.jvm_flags = {"-Dreadonlymode.enabled=true"};
  // Without local sessions the read-only member closes every new connection (it cannot create global sessions).
  // Upgrading: a local session that creates an ephemeral node becomes global (else EPHEMERALONLOCALSESSION).
  o.extra_config = {"localSessionsEnabled=true", "localSessionsUpgradingEnabled=true"};
  return o;
}

TEST(read_only, QuorumLossGivesReadOnlyReadsThenReadWriteWhenTheQuorumReturns) {
  test::zk_cluster zk(read_only_ensemble());
  constexpr std::size_t survivor = 2;

  // A session created read-write before the partition, on the member that will be left alone (listed first, no
  // shuffle). The others are listed too: when the quorum returns without the survivor (frozen below), the new
  // quorum's session timers start afresh and this session expires unless it reaches one of them within its
  // timeout (measured: with the survivor alone in its list it expired).
  client_options before_options;
  before_options.connect_string = zk.address(survivor) + "," + zk.address(0) + "," + zk.address(1);
  before_options.shuffle_hosts = false;
  before_options.session_timeout = 10000ms;
  before_options.can_be_read_only = true;
  blocking_client before(before_options);
  const auto before_states = test::state_recorder::make();
  before.set_state_listener(before_states->listener());
  before.create("/ro", "data");
  before.create("/ro/e", "", create_mode::ephemeral);
  const std::int64_t before_session = before.session_id();

  zk.stop(0);
  zk.stop(1);
  // Until the survivor has noticed and serves read-only (before that it may still take read-write sessions).
  ASSERT_TRUE(
      test::eventually([&] { return zk.four_letter(survivor, "srvr").find("Mode: read-only") != std::string::npos; },
                       60s, "the survivor in read-only mode", [&] { return zk.four_letter(survivor, "srvr"); }));

  // A new client that accepts read-only servers, with every member in its list (only the survivor answers now).
  // Its read timeout (2/3 of the session timeout, 20 s) is far beyond the probe's pace (1 s at most between
  // rounds), so only the probe can move it while the survivor is frozen below.
  client_options ro_options;
  ro_options.connect_string = zk.connect_string();
  ro_options.session_timeout = 30000ms;
  ro_options.read_write_probe_max_interval = 1000ms;
  ro_options.connect_timeout = 60000ms;
  ro_options.can_be_read_only = true;
  blocking_client ro(ro_options);
  const auto ro_states = test::state_recorder::make();
  ro.set_state_listener(ro_states->listener());
  ro.connect();  // waits (connect_timeout) until the member is up in read-only mode
  EXPECT_EQ(ro.state(), session_state::connected_read_only);
  EXPECT_EQ(ro.get("/ro").data, "data");
  try {
    ro.create("/ro/new", "");
    ADD_FAILURE() << "a write on a read-only server succeeded";
  } catch (const std::system_error& e) {
    EXPECT_EQ(e.code(), server_error::not_read_only) << e.what();
  }
  // The CLI, started while only the read-only member is left. Its session timeout keeps it from declaring the
  // session lost while the member rejoins the quorum (it refuses connections for a few seconds then).
  test::temp_dir files("zkwire-ro-");
  auto watcher =
      test::child_process::spawn({ZKWIRE_CLI_PATH, "--read-only", "-s", zk.address(survivor), "--session-timeout",
                                  "30000", "--connect-timeout", "60000", "watch", "-n", "1", "--timeout", "300", "/ro"},
                                 test::child_stdio{files.path() / "watch.out", files.path() / "watch.err", {}});
  EXPECT_TRUE(
      test::eventually([&] { return watcher.out().find(R"({"state":"ConnectedReadOnly"})") != std::string::npos; }, 30s,
                       "the watch command reporting ConnectedReadOnly", [&] { return watcher.out() + watcher.err(); }));

  // The session created read-write before the partition is not served by the read-only member: measured, see
  // docs/protocol.md#read-only.
  EXPECT_TRUE(before_states->reaches(session_state::lost, 60s)) << before_states->text();
  EXPECT_FALSE(before_states->contains(session_state::connected_read_only)) << before_states->text();
  EXPECT_NE(before_session, 0);

  // The quorum returns without the survivor: frozen (SIGSTOP) it keeps its sockets open but cannot rejoin (which
  // would drop its connections) nor answer. The read-only client must find a read-write member by its probe.
  zk.pause(survivor);
  const auto back = test::state_recorder::clock::now();
  zk.start(0);
  zk.start(1);
  ASSERT_TRUE(ro_states->reaches(session_state::connected, 120s, back)) << ro_states->text();
  // It left the read-only member on purpose (the probe), not because the connection broke or timed out.
  bool moved_by_probe = false;
  for (const auto& e : ro_states->entries()) {
    if (e.at >= back && e.to == session_state::suspended) {
      moved_by_probe = e.reason == client_errc::read_write_server_found;
      break;
    }
  }
  EXPECT_TRUE(moved_by_probe) << ro_states->text();
  ASSERT_TRUE(ro.connected_host().has_value());
  EXPECT_NE(ro.connected_host()->port, zk.client_port(survivor));
  ro.create("/ro/after", "");
  EXPECT_TRUE(ro.exists("/ro/after").has_value());

  // The survivor thaws, sees the quorum, leaves read-only mode and rejoins.
  zk.resume(survivor);
  // The session created before the partition resumed (on a member of the new quorum, whose session timers
  // started afresh; it was never served while read-only).
  EXPECT_TRUE(before_states->reaches(session_state::connected, 120s, back)) << before_states->text();
  EXPECT_EQ(before.session_id(), before_session);
  EXPECT_TRUE(before.exists("/ro/e").has_value());
  EXPECT_TRUE(test::eventually([&] { return watcher.out().find(R"({"state":"SyncConnected"})") != std::string::npos; },
                               60s, "the watch command reporting SyncConnected",
                               [&] { return watcher.out() + watcher.err(); }));
  const std::string out = watcher.out();
  EXPECT_LT(out.find(R"({"state":"ConnectedReadOnly"})"), out.find(R"({"state":"SyncConnected"})")) << out;
  watcher.kill();
}

}  // namespace
}  // namespace zkwire
