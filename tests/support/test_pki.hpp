#pragma once
// Certificates for TLS tests, generated at test time with `openssl` (keys, CAs, certificates) and `keytool` (the
// servers' PKCS12 key and trust stores) in a directory of the caller:
//
//   ca.pem                        the test CA (trusted by the servers and given to clients as their CA file)
//   server.p12                    key store: a server certificate from the CA for IP 127.0.0.1 and DNS localhost
//   trust.p12                     trust store with the CA (the servers trust clients certified by it)
//   client.pem / client.key       a client certificate from the CA (mutual TLS)
//   client-encrypted.key          client.key encrypted with key_password (PKCS#8, AES-256)
//   other-ca.pem                  a different CA, trusted by nobody
//   other-server.p12              key store: a server certificate for 127.0.0.1/localhost from the other CA
//   other-client.pem / .key       a client certificate from the other CA
//   wrong-name.p12                key store: a server certificate from the CA for wrong.example / 10.9.9.9 only
//
// All stores use store_password; the encrypted key key_password (another one, so that a test using the wrong one
// fails). Thread safety: none; generate once per suite (about a second).

#include <filesystem>
#include <string>

namespace zkwire::test {

struct test_pki {
  static constexpr const char* store_password = "zkwire-test";
  static constexpr const char* key_password = "zkwire-key-secret";

  // Generates everything in `directory` (created if missing; kept as `dir`). Throws std::runtime_error with the tool's
  // output when a command fails (openssl or keytool missing or failing).
  explicit test_pki(std::filesystem::path directory);

  std::filesystem::path dir;
  std::filesystem::path ca;  // PEM
  std::filesystem::path server_store;
  std::filesystem::path trust_store;
  std::filesystem::path client_cert;
  std::filesystem::path client_key;
  std::filesystem::path client_key_encrypted;
  std::filesystem::path other_ca;
  std::filesystem::path other_server_store;
  std::filesystem::path other_client_cert;
  std::filesystem::path other_client_key;
  std::filesystem::path wrong_name_store;
};

}  // namespace zkwire::test
