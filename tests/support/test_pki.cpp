#include "support/test_pki.hpp"

#include <fstream>
#include <stdexcept>
#include <utility>
#include <vector>

#include "support/child_process.hpp"

namespace zkwire::test {
namespace {

void run(const std::vector<std::string>& argv) {
  const outcome result = run_process(argv, {}, std::chrono::seconds(60));
  if (result.status != 0) {
    std::string line;
    for (const auto& arg : argv) line += arg + " ";
    throw std::runtime_error("test_pki: '" + line + "' failed (" + std::to_string(result.status) + "): " + result.out +
                             result.err);
  }
}

// A self-signed CA: <name>.pem and <name>.key.
void make_ca(const std::filesystem::path& dir, const std::string& name, const std::string& subject) {
  run({find_on_path("openssl"), "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", subject,
       "-keyout", (dir / (name + ".key")).string(), "-out", (dir / (name + ".pem")).string()});
}

// <name>.pem / <name>.key, issued by CA <ca> for `san` (e.g. "IP:127.0.0.1,DNS:localhost").
void make_cert(const std::filesystem::path& dir, const std::string& name, const std::string& ca,
               const std::string& common_name, const std::string& san) {
  const auto path = [&dir](const std::string& file) { return (dir / file).string(); };
  run({find_on_path("openssl"), "req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=" + common_name, "-keyout",
       path(name + ".key"), "-out", path(name + ".csr")});
  {
    std::ofstream ext(path(name + ".ext"));
    ext << "subjectAltName=" << san << "\nbasicConstraints=CA:FALSE\nkeyUsage=digitalSignature,keyEncipherment\n"
        << "extendedKeyUsage=serverAuth,clientAuth\n";
  }
  run({find_on_path("openssl"), "x509", "-req", "-days", "2", "-in", path(name + ".csr"), "-CA", path(ca + ".pem"),
       "-CAkey", path(ca + ".key"), "-CAcreateserial", "-extfile", path(name + ".ext"), "-out", path(name + ".pem")});
}

// A PKCS12 key store <name>.p12 with the certificate and key of <name>, for a server.
void make_key_store(const std::filesystem::path& dir, const std::string& name) {
  const auto path = [&dir](const std::string& file) { return (dir / file).string(); };
  run({find_on_path("openssl"), "pkcs12", "-export", "-in", path(name + ".pem"), "-inkey", path(name + ".key"), "-name",
       name, "-out", path(name + ".p12"), "-passout", std::string("pass:") + test_pki::store_password});
}

}  // namespace

test_pki::test_pki(std::filesystem::path directory)
    : dir(std::move(directory)),
      ca(dir / "ca.pem"),
      server_store(dir / "server.p12"),
      trust_store(dir / "trust.p12"),
      client_cert(dir / "client.pem"),
      client_key(dir / "client.key"),
      client_key_encrypted(dir / "client-encrypted.key"),
      other_ca(dir / "other-ca.pem"),
      other_server_store(dir / "other-server.p12"),
      other_client_cert(dir / "other-client.pem"),
      other_client_key(dir / "other-client.key"),
      wrong_name_store(dir / "wrong-name.p12") {
  std::filesystem::create_directories(dir);
  make_ca(dir, "ca", "/CN=zkwire test CA");
  make_ca(dir, "other-ca", "/CN=zkwire other CA");
  make_cert(dir, "server", "ca", "localhost", "IP:127.0.0.1,DNS:localhost");
  make_cert(dir, "client", "ca", "zkwire test client", "DNS:client.invalid");
  make_cert(dir, "other-server", "other-ca", "localhost", "IP:127.0.0.1,DNS:localhost");
  make_cert(dir, "other-client", "other-ca", "zkwire other client", "DNS:client.invalid");
  make_cert(dir, "wrong-name", "ca", "wrong.example", "DNS:wrong.example,IP:10.9.9.9");
  for (const char* name : {"server", "other-server", "wrong-name"}) make_key_store(dir, name);
  run({find_on_path("openssl"), "pkcs8", "-topk8", "-v2", "aes-256-cbc", "-in", client_key.string(), "-out",
       client_key_encrypted.string(), "-passout", std::string("pass:") + key_password});
  run({find_on_path("keytool"), "-importcert", "-noprompt", "-alias", "ca", "-file", ca.string(), "-keystore",
       trust_store.string(), "-storetype", "PKCS12", "-storepass", store_password});
}

}  // namespace zkwire::test
