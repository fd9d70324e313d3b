// capi_sasl (a C program built against zkwire's zookeeper.h with HAVE_CYRUS_SASL_H, linked to zkwire's library)
// against a ZooKeeper 3.8 server with SASL DIGEST-MD5 (a JAAS `Server` section with DigestLoginModule and the SASL
// authentication provider): the right password connects and owns a `sasl:` ACL'd node, a wrong one and an unknown
// user end the session with ZOO_AUTH_FAILED_STATE, and a mechanism other than DIGEST-MD5 fails the same way.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <string>

#include "support/child_process.hpp"
#include "support/temp_dir.hpp"
#include "support/zk_test.hpp"

namespace zkwire {
namespace {

using ::testing::HasSubstr;

// The JAAS file and the password files, for the whole suite.
const test::temp_dir& files() {
  static const test::temp_dir dir("zkwire-capi-sasl-");
  return dir;
}

class capi_sasl_test : public test::cluster_test {
 public:
  static void SetUpTestSuite() {
    const auto jaas = files().path() / "jaas.conf";
    std::ofstream(jaas) << "Server {\n"
                           "  org.apache.zookeeper.server.auth.DigestLoginModule required\n"
                           "  user_alice=\"s3cret\";\n"
                           "};\n";
    // The first line is the password: what follows it must not count.
    std::ofstream(files().path() / "right") << "s3cret\nnot part of it\n";
    std::ofstream(files().path() / "wrong") << "not-the-password";
    test::cluster_options options;
    options.jvm_flags.push_back("-Djava.security.auth.login.config=" + jaas.string());
    options.extra_config.emplace_back("authProvider.1=org.apache.zookeeper.server.auth.SASLAuthenticationProvider");
    start_suite_cluster(std::move(options));
  }

 protected:
  static test::outcome run(const std::string& user, const std::string& password_file, const std::string& mode) {
    return test::run_process(
        {ZKWIRE_CAPI_SASL, connect_string(), user, (files().path() / password_file).string(), mode}, {},
        std::chrono::seconds(120));
  }
};

TEST_F(capi_sasl_test, RightPasswordConnectsAndOwnsItsSaslAcl) {
  const auto result = run("alice", "right", "login");
  EXPECT_EQ(result.status, 0) << result.out << result.err;
  EXPECT_THAT(result.out, HasSubstr("basic callbacks: connected, sasl:alice node owned\n"));
  EXPECT_THAT(result.out, HasSubstr("own callbacks: connected, sasl:alice node owned\n"));
  EXPECT_THAT(result.out, HasSubstr("\nok\n"));
}

TEST_F(capi_sasl_test, WrongPasswordOrUnknownUserEndsInAuthFailed) {
  // The unknown user gets a password of no user: ZooKeeper 3.8's server was seen to accept an unknown name with the
  // password of the user who logged in before it.
  for (const auto& [user, file] : {std::pair{"alice", "wrong"}, std::pair{"nobody", "wrong"}}) {
    const auto result = run(user, file, "refused");
    EXPECT_EQ(result.status, 0) << user << "\n" << result.out << result.err;
    EXPECT_THAT(result.out, HasSubstr("DIGEST-MD5: ZOO_AUTH_FAILED_STATE, calls ZINVALIDSTATE\nok\n"));
  }
}

TEST_F(capi_sasl_test, OtherMechanismsEndInAuthFailedWithAReason) {
  const auto result = run("alice", "right", "GSSAPI");
  EXPECT_EQ(result.status, 0) << result.out << result.err;
  EXPECT_THAT(result.out, HasSubstr("GSSAPI: ZOO_AUTH_FAILED_STATE, calls ZINVALIDSTATE\nok\n"));
  // The log (stderr, the C client's default stream) names the mechanism and what is implemented.
  EXPECT_THAT(result.err, HasSubstr("no supported mechanism in \"GSSAPI\" (this library implements DIGEST-MD5 only)"));
}

}  // namespace
}  // namespace zkwire
