#pragma once
// TLS to the servers (ZooKeeper's secureClientPort), selected with client_options::tls: the same client and
// session engine over a TLS byte stream instead of plain TCP (make_tls_transport_factory, OpenSSL through
// asio::ssl). The session survives reconnects through the ensemble exactly as over TCP; the per-host connect
// timeout (client_options::host_connect_timeout) covers the TCP connect and the TLS handshake.
//
// Verification (both on by default): the server's certificate chain against ca_file, and the certificate's
// subjectAltName against the host of the connect string being connected to: an IP address (IPv4 or IPv6) must
// match an IP entry, a DNS name a DNS entry (or the CN when the certificate has no DNS entry; a wildcard covers
// one label). Connect to the name or address the certificate was issued for.
//
// Thread safety: plain values; the files are read once, when the client is constructed (or when
// make_tls_transport_factory / check_tls_options is called), never again: replacing a file later needs a new
// client.
//
// Errors: unreadable or invalid files throw std::system_error (a tls_errc *_file code; what() names the file and
// the cause) from the client's constructor, before anything is sent. Handshake and verification failures are
// connection failures: the client logs them, tries the next host, and async_connect fails with the tls_errc of
// the last TLS failure (instead of client_errc::connect_timeout) when no session was established in time.

#include <string>
#include <system_error>

#include "zkwire/client/transport.hpp"

namespace zkwire {

enum class tls_version { v1_2, v1_3 };

// Not an aggregate (types.hpp, create_options, says why): set the fields by name on a variable.
struct tls_options {
  tls_options();
  // Trusting the authorities in `ca_file`, optionally presenting a client certificate (mutual TLS).
  explicit tls_options(std::string ca, std::string certificate = {}, std::string key = {});

  // PEM file of the certificate authorities trusted for the servers' certificates. Empty: OpenSSL's default
  // trust store (the system's CA certificates).
  std::string ca_file;
  // Mutual TLS: PEM certificate (chain) and private key presented to servers that ask for one (ssl.clientAuth).
  // Both or neither; the key must belong to the certificate.
  std::string cert_file;
  std::string key_file;
  // The password of an encrypted key_file (PKCS#8 "ENCRYPTED PRIVATE KEY" or a traditional encrypted PEM key),
  // used when the files are read; ignored for an unencrypted key. Empty: the key must not be encrypted (an
  // encrypted one is refused with bad_key_file; OpenSSL never prompts on the terminal). No log line or error
  // message contains it; it stays in memory with the options the client keeps, as sasl's password does.
  std::string key_password;
  // Lowest and highest protocol version offered (ZooKeeper 3.8 accepts TLS 1.2 by default, 1.3 if configured).
  tls_version min_version = tls_version::v1_2;
  tls_version max_version = tls_version::v1_3;
  // Turning either off accepts servers an attacker can impersonate; only for tests and diagnosis.
  bool verify_server_certificate = true;
  bool verify_host_name = true;

  bool operator==(const tls_options&) const = default;
};

enum class tls_errc : int {
  // Options and files (before anything is sent).
  bad_ca_file = 1,          // missing, unreadable or no PEM certificate in it
  bad_certificate_file,     // missing, unreadable or not a PEM certificate
  bad_key_file,             // missing, unreadable, not a PEM key, encrypted without the right key_password, or not
                            // the certificate's key
  certificate_without_key,  // cert_file without key_file or the other way round
  bad_versions,             // min_version above max_version
  // The handshake.
  untrusted_certificate,        // the server's certificate does not verify against ca_file (or is expired, ...)
  host_name_mismatch,           // the server's certificate is not issued for the host connected to
  client_certificate_required,  // the server requires a client certificate and none is configured
  client_certificate_rejected,  // the server did not accept the configured client certificate
  not_tls,                      // the peer does not speak TLS (a plaintext port) or closed during the handshake
  no_common_version,            // no TLS version both sides accept
  handshake_failed,             // any other handshake failure
};

const std::error_category& tls_category() noexcept;  // name "zkwire.tls"

inline std::error_code make_error_code(tls_errc e) noexcept { return {static_cast<int>(e), tls_category()}; }

// Reads and checks the files of `options` (the CA file, the certificate and the key, and that they match).
// Returns the error and sets `detail` to a sentence naming the file and the cause; {} when all is well.
std::error_code check_tls_options(const tls_options& options, std::string& detail);

// The transport factory for client_options::transport (client_options::tls uses it). Reads the files now and
// throws std::system_error (see check_tls_options) when they are bad. Every transport it makes shares the loaded
// credentials; TLS sessions are not resumed across connections.
transport_factory make_tls_transport_factory(const tls_options& options);

}  // namespace zkwire

template <>
struct std::is_error_code_enum<zkwire::tls_errc> : std::true_type {};
