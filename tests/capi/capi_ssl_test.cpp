// zookeeper_init_ssl (declared by zkwire's zookeeper.h, absent from Debian's build) against a server's
// secureClientPort that requires client certificates: a session and a round trip over TLS with the C API's
// "ca,cert,key" string, and the refusals: a malformed string, an encrypted key (a password field), no string.

#include <gtest/gtest.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <string>

#include "support/eventually.hpp"
#include "support/temp_dir.hpp"
#include "support/test_pki.hpp"
#include "support/zk_test.hpp"
#include "zookeeper.h"

namespace zkwire {
namespace {

using namespace std::chrono_literals;

test::test_pki& pki() {
  static test::temp_dir dir("zkwire-capi-pki-");
  static test::test_pki instance(dir.path());
  return instance;
}

std::atomic<int> last_state{0};

extern "C" void record_state(zhandle_t* /*zh*/, int type, int state, const char* /*path*/, void* /*context*/) {
  if (type == ZOO_SESSION_EVENT) last_state = state;
}

class capi_ssl_test : public test::cluster_test {
 public:
  static void SetUpTestSuite() {
    test::cluster_options options;
    options.secure_port = test::cluster_options::secure_port_options{
        pki().server_store, pki().trust_store, test::test_pki::store_password, "need", "TLSv1.3,TLSv1.2"};
    start_suite_cluster(std::move(options));
  }

 protected:
  static std::string cert(const std::filesystem::path& ca) {
    return ca.string() + "," + pki().client_cert.string() + "," + pki().client_key.string();
  }
};

TEST_F(capi_ssl_test, ASessionOverTls) {
  last_state = 0;
  zhandle_t* zh = zookeeper_init_ssl(cluster().secure_connect_string().c_str(), cert(pki().ca).c_str(), record_state,
                                     10000, nullptr, nullptr, 0);
  ASSERT_NE(zh, nullptr);
  EXPECT_TRUE(test::eventually([&] { return zoo_state(zh) == ZOO_CONNECTED_STATE; }, 30s, "connected over TLS"));
  EXPECT_EQ(last_state.load(), ZOO_CONNECTED_STATE);
  ASSERT_EQ(zoo_create(zh, root().c_str(), "tls", 3, &ZOO_OPEN_ACL_UNSAFE, ZOO_EPHEMERAL, nullptr, 0), ZOK);
  char buffer[8];
  int len = sizeof buffer;
  ASSERT_EQ(zoo_get(zh, root().c_str(), 0, buffer, &len, nullptr), ZOK);
  EXPECT_EQ(std::string(buffer, static_cast<std::size_t>(len)), "tls");
  EXPECT_EQ(zookeeper_close(zh), ZOK);
}

TEST_F(capi_ssl_test, RefusesWhatItCannotUse) {
  const std::string hosts = cluster().secure_connect_string();
  for (const std::string& bad : {std::string("only-a-ca.pem"), std::string(",") + pki().client_cert.string(),
                                 cert(pki().ca) + ",key-password"}) {
    errno = 0;
    EXPECT_EQ(zookeeper_init_ssl(hosts.c_str(), bad.c_str(), nullptr, 10000, nullptr, nullptr, 0), nullptr) << bad;
    EXPECT_EQ(errno, EINVAL) << bad;
  }
  EXPECT_EQ(zookeeper_init_ssl(hosts.c_str(), nullptr, nullptr, 10000, nullptr, nullptr, 0), nullptr);
}

}  // namespace
}  // namespace zkwire
