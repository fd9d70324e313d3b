// zookeeper_init_ssl (declared by zkwire's zookeeper.h, absent from Debian's build) against a server's
// secureClientPort that requires client certificates: a session and a round trip over TLS with the C API's
// "ca,cert,key" string, and with "ca,cert,key,password" for an encrypted key; the refusals: a malformed string, an
// encrypted key without its password or with a wrong one (the cause logged, the password never), no string.

#include <gtest/gtest.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <memory>
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
  // The string for the encrypted copy of the client key, with `password` as its fourth field.
  static std::string encrypted_cert(const std::string& password) {
    return pki().ca.string() + "," + pki().client_cert.string() + "," + pki().client_key_encrypted.string() + "," +
           password;
  }
};

// The library's log lines while it lives: the log stream goes to a temporary file.
class captured_log {
 public:
  captured_log() { zoo_set_log_stream(file_.get()); }
  ~captured_log() { zoo_set_log_stream(nullptr); }
  captured_log(const captured_log&) = delete;
  captured_log& operator=(const captured_log&) = delete;
  captured_log(captured_log&&) = delete;
  captured_log& operator=(captured_log&&) = delete;

  [[nodiscard]] std::string text() const {
    std::string all;
    if (!file_) return all;
    std::fflush(file_.get());
    std::rewind(file_.get());
    char buffer[4096];
    std::size_t n = 0;
    while ((n = std::fread(buffer, 1, sizeof buffer, file_.get())) > 0) all.append(buffer, n);
    return all;
  }

 private:
  struct closer {
    void operator()(std::FILE* file) const { std::fclose(file); }  // NOLINT(cppcoreguidelines-owning-memory)
  };
  std::unique_ptr<std::FILE, closer> file_{std::tmpfile()};
};

constexpr const char* wrong_key_password = "zkwire-wrong-key-secret";

TEST_F(capi_ssl_test, ASessionOverTls) {
  last_state = 0;
  zhandle_t* zh = zookeeper_init_ssl(cluster().secure_connect_string().c_str(), cert(pki().ca).c_str(), record_state,
                                     10000, nullptr, nullptr, 0);
  ASSERT_NE(zh, nullptr);
  EXPECT_TRUE(test::eventually([&] { return zoo_state(zh) == ZOO_CONNECTED_STATE; }, 30s, "connected over TLS"));
  // The handle's state changes on the I/O thread, the watcher runs on the completion thread (as in the C client):
  // the watcher hears of the connection soon after, not necessarily before zoo_state says so.
  EXPECT_TRUE(test::eventually([&] { return last_state.load() == ZOO_CONNECTED_STATE; }, 30s,
                               "the watcher told of the connection"));
  ASSERT_EQ(zoo_create(zh, root().c_str(), "tls", 3, &ZOO_OPEN_ACL_UNSAFE, ZOO_EPHEMERAL, nullptr, 0), ZOK);
  char buffer[8];
  int len = sizeof buffer;
  ASSERT_EQ(zoo_get(zh, root().c_str(), 0, buffer, &len, nullptr), ZOK);
  EXPECT_EQ(std::string(buffer, static_cast<std::size_t>(len)), "tls");
  EXPECT_EQ(zookeeper_close(zh), ZOK);
}

TEST_F(capi_ssl_test, ASessionOverTlsWithAnEncryptedKey) {
  const captured_log log;
  last_state = 0;
  zhandle_t* zh = zookeeper_init_ssl(cluster().secure_connect_string().c_str(),
                                     encrypted_cert(test::test_pki::key_password).c_str(), record_state, 10000, nullptr,
                                     nullptr, 0);
  ASSERT_NE(zh, nullptr) << log.text();
  EXPECT_TRUE(test::eventually([&] { return zoo_state(zh) == ZOO_CONNECTED_STATE; }, 30s, "connected over TLS"));
  ASSERT_EQ(zoo_create(zh, root().c_str(), "key", 3, &ZOO_OPEN_ACL_UNSAFE, ZOO_EPHEMERAL, nullptr, 0), ZOK);
  EXPECT_EQ(zoo_exists(zh, root().c_str(), 0, nullptr), ZOK);
  EXPECT_EQ(zookeeper_close(zh), ZOK);
  EXPECT_EQ(log.text().find(test::test_pki::key_password), std::string::npos) << log.text();
}

// Without the key's password, or with a wrong one, the handle is not made; the log says why and never shows the
// password given.
TEST_F(capi_ssl_test, EncryptedKeyWithoutItsPasswordIsRefused) {
  const std::string hosts = cluster().secure_connect_string();
  const std::string without =
      pki().ca.string() + "," + pki().client_cert.string() + "," + pki().client_key_encrypted.string();
  const struct {
    std::string cert;
    const char* cause;
  } cases[] = {{without, "no password was given"},
               {encrypted_cert(""), "no password was given"},
               {encrypted_cert(wrong_key_password), "the password given (key_password) did not decrypt it"}};
  for (const auto& c : cases) {
    const captured_log log;
    errno = 0;
    EXPECT_EQ(zookeeper_init_ssl(hosts.c_str(), c.cert.c_str(), nullptr, 10000, nullptr, nullptr, 0), nullptr)
        << c.cert;
    EXPECT_EQ(errno, EINVAL) << c.cert;
    const std::string text = log.text();
    EXPECT_NE(text.find(c.cause), std::string::npos) << text;
    EXPECT_NE(text.find(pki().client_key_encrypted.filename().string()), std::string::npos) << text;
    EXPECT_EQ(text.find(wrong_key_password), std::string::npos) << text;
  }
}

TEST_F(capi_ssl_test, RefusesWhatItCannotUse) {
  const std::string hosts = cluster().secure_connect_string();
  // A fifth field (a password with a comma) is refused rather than cut.
  for (const std::string& bad : {std::string("only-a-ca.pem"), std::string(",") + pki().client_cert.string(),
                                 encrypted_cert(test::test_pki::key_password) + ",more"}) {
    errno = 0;
    EXPECT_EQ(zookeeper_init_ssl(hosts.c_str(), bad.c_str(), nullptr, 10000, nullptr, nullptr, 0), nullptr) << bad;
    EXPECT_EQ(errno, EINVAL) << bad;
  }
  EXPECT_EQ(zookeeper_init_ssl(hosts.c_str(), nullptr, nullptr, 10000, nullptr, nullptr, 0), nullptr);
}

}  // namespace
}  // namespace zkwire
