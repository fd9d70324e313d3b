// SASL DIGEST-MD5 against a real ZooKeeper 3.8 configured with a JAAS `Server` section (DigestLoginModule) and
// the SASL authentication provider (docs/protocol.md#sasl): login and operations, `sasl:` ACLs, a wrong
// password failing fast with AUTHFAILED, the exchange replayed after a server restart, and the CLI's --sasl.

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <system_error>
#include <vector>

#include "support/child_process.hpp"
#include "support/eventually.hpp"
#include "support/temp_dir.hpp"
#include "support/zk_cluster.hpp"
#include "zkwire/client/blocking_client.hpp"
#include "zkwire/proto/error.hpp"

namespace zkwire {
namespace {

using namespace std::chrono_literals;

class sasl_test : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto jaas = files_.path() / "jaas.conf";
    std::ofstream(jaas) << "Server {\n"
                           "  org.apache.zookeeper.server.auth.DigestLoginModule required\n"
                           "  user_alice=\"s3cret\"\n"
                           "  user_bob=\"bobs-pw\";\n"
                           "};\n";
    test::cluster_options options;
    options.jvm_flags.push_back("-Djava.security.auth.login.config=" + jaas.string());
    options.extra_config.emplace_back("authProvider.1=org.apache.zookeeper.server.auth.SASLAuthenticationProvider");
    cluster_ = std::make_unique<test::zk_cluster>(options);
  }

  [[nodiscard]] client_options options_for(const std::string& user, const std::string& password) const {
    client_options o;
    o.connect_string = cluster_->connect_string();
    o.session_timeout = 30s;
    o.connect_timeout = 30s;
    o.seed = 42;
    if (!user.empty()) o.sasl = sasl_credentials{user, password};
    return o;
  }

  static std::vector<zkwire::acl> only(const std::string& user) {
    return {zkwire::acl{proto::perms::all, proto::acl_id{"sasl", user}}};
  }

  static create_options with_acl(std::vector<zkwire::acl> acl) {
    create_options o;
    o.acl = std::move(acl);
    return o;
  }

  static std::error_code error_of(const std::function<void()>& call) {
    try {
      call();
    } catch (const std::system_error& e) {
      return e.code();
    }
    return {};
  }

  test::temp_dir files_{"zkwire-sasl-"};
  std::unique_ptr<test::zk_cluster> cluster_;
};

TEST_F(sasl_test, AuthenticatedUserOwnsItsSaslAclOthersGetNoAuth) {
  blocking_client alice(options_for("alice", "s3cret"));
  alice.connect();
  EXPECT_EQ(alice.state(), session_state::connected);
  alice.create("/alice-only", "payload", with_acl(only("alice")));
  EXPECT_EQ(alice.get("/alice-only").data, "payload");
  alice.set("/alice-only", "changed");

  blocking_client bob(options_for("bob", "bobs-pw"));
  bob.connect();
  EXPECT_EQ(error_of([&] { (void)bob.get("/alice-only"); }), proto::server_error::no_auth);
  EXPECT_EQ(error_of([&] { bob.set("/alice-only", "x"); }), proto::server_error::no_auth);
  blocking_client anonymous(options_for("", ""));
  anonymous.connect();
  EXPECT_EQ(error_of([&] { (void)anonymous.get("/alice-only"); }), proto::server_error::no_auth);
  // The positive check after the negative ones: the node is there and alice still reads it.
  EXPECT_EQ(alice.get("/alice-only").data, "changed");
  alice.close();
  bob.close();
  anonymous.close();
}

TEST_F(sasl_test, WrongPasswordEndsTheSessionWithAuthFailedQuickly) {
  blocking_client mallory(options_for("alice", "not-the-password"));
  const auto started = std::chrono::steady_clock::now();
  const auto ec = error_of([&] { mallory.connect(); });
  const auto took = std::chrono::steady_clock::now() - started;
  EXPECT_EQ(ec, proto::client_error::sasl_failed) << ec.message();
  EXPECT_TRUE(ec == proto::condition::session_ended);
  EXPECT_NE(ec.message().find("SASL authentication failed"), std::string::npos);
  // Well before the 30 s connect timeout: the server's AUTHFAILED ends it, nothing waits for a timer.
  EXPECT_LT(took, 20s);
  EXPECT_EQ(mallory.state(), session_state::auth_failed);
  // Every later operation gets the same error at once, without another attempt.
  EXPECT_EQ(error_of([&] { (void)mallory.exists("/"); }), proto::client_error::sasl_failed);
  EXPECT_EQ(mallory.state(), session_state::auth_failed);
  // An unknown user is rejected the same way.
  blocking_client nobody(options_for("nobody", "x"));
  EXPECT_EQ(error_of([&] { nobody.connect(); }), proto::client_error::sasl_failed);
}

TEST_F(sasl_test, ExchangeIsReplayedAfterReconnectAndTheAclStillPasses) {
  blocking_client alice(options_for("alice", "s3cret"));
  std::mutex mutex;
  std::vector<session_state> seen;
  alice.set_state_listener([&](const state_event& e) {
    const std::lock_guard lock(mutex);
    seen.push_back(e.to);
  });
  alice.connect();
  const auto id = alice.session_id();
  alice.create("/kept", "v1", with_acl(only("alice")));
  // The server restarts with its data: the session survives it, the connection (and its SASL identity) does not.
  cluster_->restart(0);
  ASSERT_TRUE(cluster_->wait_ready(0));
  ASSERT_TRUE(test::eventually(
      [&] {
        const std::lock_guard lock(mutex);
        return !seen.empty() && seen.back() == session_state::connected &&
               std::find(seen.begin(), seen.end(), session_state::suspended) != seen.end();
      },
      60s, "alice reconnected after the restart"));
  EXPECT_EQ(alice.session_id(), id);
  EXPECT_EQ(alice.get("/kept").data, "v1") << "the new connection must be SASL-authenticated again";
  alice.set("/kept", "v2");
  alice.close();
}

#ifdef ZKWIRE_CLI_PATH
TEST_F(sasl_test, CliSaslLogsInAndMalformedValuesAreUsageErrors) {
  blocking_client alice(options_for("alice", "s3cret"));
  alice.create("/cli-node", "hello", with_acl(only("alice")));
  alice.close();
  const auto cli = [&](std::vector<std::string> args) {
    std::vector<std::string> argv = {ZKWIRE_CLI_PATH, "-s", cluster_->connect_string(), "--connect-timeout", "20000"};
    argv.insert(argv.end(), args.begin(), args.end());
    return test::run_process(argv);
  };
  auto r = cli({"--sasl", "alice:s3cret", "get", "/cli-node"});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "hello");
  r = cli({"--sasl", "bob:bobs-pw", "get", "/cli-node"});
  EXPECT_EQ(r.status, 3) << r.err;
  EXPECT_NE(r.err.find("NOAUTH"), std::string::npos) << r.err;
  r = cli({"--sasl", "alice:wrong", "get", "/cli-node"});
  EXPECT_EQ(r.status, 4) << r.err;
  EXPECT_NE(r.err.find("SASL authentication failed"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("AUTHFAILED"), std::string::npos) << r.err;
  // A password may contain ':' (split at the first one); the user may not be empty, and a colon is required.
  for (const std::string bad : {"alice", ":s3cret", ""}) {
    // An unreachable server: had anything been attempted, this would be exit 4 after the connect timeout.
    r = test::run_process(
        {ZKWIRE_CLI_PATH, "-s", "127.0.0.1:1", "--connect-timeout", "60000", "--sasl", bad, "get", "/cli-node"}, {},
        20s);
    EXPECT_EQ(r.status, 2) << bad << ": " << r.err;
    EXPECT_NE(r.err.find("--sasl"), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find("s3cret"), std::string::npos) << "the password must not be echoed: " << r.err;
  }
}
#endif

}  // namespace
}  // namespace zkwire
