// tls_options::key_password, read by check_tls_options (the check the client's constructor makes) without a server:
// an encrypted key (PKCS#8 or traditional PEM encryption) is read with its password, and refused with bad_key_file
// and a message saying why when the password is missing, wrong or too long, the password in no message. The keys
// are made by `openssl` in a temporary directory (a P-256 key: milliseconds).

#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <system_error>
#include <vector>

#include "support/child_process.hpp"
#include "support/temp_dir.hpp"
#include "zkwire/client/tls_options.hpp"

namespace zkwire {
namespace {

constexpr const char* password = "tls-key-password-under-test";
constexpr const char* wrong_password = "not-the-tls-key-password";

void openssl(std::vector<std::string> args) {
  args.insert(args.begin(), test::find_on_path("openssl"));
  const test::outcome result = test::run_process(args, {}, std::chrono::seconds(60));
  ASSERT_EQ(result.status, 0) << result.out << result.err;
}

// The keys' directory, made once: a self-signed certificate and its key, plain and encrypted both ways, and another
// certificate's key encrypted with the same password.
const std::filesystem::path& keys() {
  static const test::temp_dir dir("zkwire-tls-key-");
  static const bool made = [] {
    const auto path = [](const std::string& file) { return (dir.path() / file).string(); };
    for (const std::string name : {"client", "other"}) {
      openssl({"req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-days", "2", "-subj",
               "/CN=zkwire key password test", "-keyout", path(name + ".key"), "-out", path(name + ".pem")});
      openssl({"pkcs8", "-topk8", "-v2", "aes-256-cbc", "-in", path(name + ".key"), "-out", path(name + "-pkcs8.key"),
               "-passout", std::string("pass:") + password});
    }
    openssl({"pkey", "-in", path("client.key"), "-aes256", "-traditional", "-out", path("client-traditional.key"),
             "-passout", std::string("pass:") + password});
    return true;
  }();
  (void)made;
  return dir.path();
}

class tls_key_password_test : public testing::Test {
 protected:
  static std::string path(const std::string& file) { return (keys() / file).string(); }

  static tls_options options(const std::string& key_file, const std::string& key_password) {
    tls_options tls;
    tls.ca_file = path("client.pem");
    tls.cert_file = path("client.pem");
    tls.key_file = path(key_file);
    tls.key_password = key_password;
    return tls;
  }

  // check_tls_options' error, its sentence in `detail`; checks that neither the sentence nor the error's message
  // carries a password.
  static std::error_code check(const tls_options& tls, std::string& detail) {
    const std::error_code error = check_tls_options(tls, detail);
    for (const std::string& secret : {std::string(password), std::string(wrong_password)}) {
      EXPECT_EQ(detail.find(secret), std::string::npos) << detail;
      EXPECT_EQ(error.message().find(secret), std::string::npos) << error.message();
    }
    return error;
  }
};

TEST_F(tls_key_password_test, EncryptedKeysAreReadWithTheirPassword) {
  std::string detail;
  EXPECT_EQ(check(options("client-pkcs8.key", password), detail), std::error_code()) << detail;
  EXPECT_EQ(check(options("client-traditional.key", password), detail), std::error_code()) << detail;
  // A password given for an unencrypted key is not needed and not an error.
  EXPECT_EQ(check(options("client.key", password), detail), std::error_code()) << detail;
}

TEST_F(tls_key_password_test, EncryptedKeyWithoutAPasswordSaysOneIsNeeded) {
  for (const char* key : {"client-pkcs8.key", "client-traditional.key"}) {
    std::string detail;
    EXPECT_EQ(check(options(key, ""), detail), tls_errc::bad_key_file) << key;
    EXPECT_NE(detail.find(path(key)), std::string::npos) << detail;
    EXPECT_NE(detail.find("the key is encrypted and no password was given (key_password)"), std::string::npos)
        << detail;
  }
}

TEST_F(tls_key_password_test, WrongPasswordSaysItDidNotDecryptTheKey) {
  for (const char* key : {"client-pkcs8.key", "client-traditional.key"}) {
    std::string detail;
    EXPECT_EQ(check(options(key, wrong_password), detail), tls_errc::bad_key_file) << key;
    EXPECT_NE(detail.find(path(key)), std::string::npos) << detail;
    EXPECT_NE(detail.find("the key is encrypted and the password given (key_password) did not decrypt it"),
              std::string::npos)
        << detail;
  }
}

// OpenSSL reads at most 1024 bytes of a password: a longer one is refused as such, not cut and tried.
TEST_F(tls_key_password_test, PasswordLongerThanOpenSslTakesIsNamed) {
  std::string detail;
  EXPECT_EQ(check(options("client-pkcs8.key", std::string(4096, 'p')), detail), tls_errc::bad_key_file);
  EXPECT_NE(detail.find("longer than OpenSSL accepts"), std::string::npos) << detail;
}

// Decrypted, the key must still be the certificate's.
TEST_F(tls_key_password_test, DecryptedKeyOfAnotherCertificateIsRefused) {
  std::string detail;
  EXPECT_EQ(check(options("other-pkcs8.key", password), detail), tls_errc::bad_key_file);
  EXPECT_NE(detail.find("not the private key of the certificate"), std::string::npos) << detail;
}

}  // namespace
}  // namespace zkwire
