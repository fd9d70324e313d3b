// client_options::tls: the shared context (files read once, checked before anything is sent), host-name
// verification per connection, and OpenSSL's errors translated into the causes a user can act on.

#include "tls_context.hpp"

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

#include <algorithm>
#include <asio/error.hpp>
#include <asio/ip/address.hpp>
#include <asio/ssl/error.hpp>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <memory>

namespace zkwire {
namespace {

class tls_category_impl final : public std::error_category {
 public:
  [[nodiscard]] const char* name() const noexcept override { return "zkwire.tls"; }
  [[nodiscard]] std::string message(int value) const override {
    switch (static_cast<tls_errc>(value)) {
      case tls_errc::bad_ca_file:
        return "TLS CA file missing, unreadable or without a PEM certificate";
      case tls_errc::bad_certificate_file:
        return "TLS client certificate file missing, unreadable or not a PEM certificate";
      case tls_errc::bad_key_file:
        return "TLS client key file missing, unreadable, not a PEM key, encrypted without the right password, or not "
               "the certificate's key";
      case tls_errc::certificate_without_key:
        return "TLS client certificate and key must be given together";
      case tls_errc::bad_versions:
        return "TLS minimum version above the maximum version";
      case tls_errc::untrusted_certificate:
        return "TLS: the server's certificate is not trusted (it does not verify against the CA file, or is expired "
               "or invalid)";
      case tls_errc::host_name_mismatch:
        return "TLS: the server's certificate is not issued for the host connected to (host name or IP address "
               "mismatch)";
      case tls_errc::client_certificate_required:
        return "TLS: the server requires a client certificate and none is configured";
      case tls_errc::client_certificate_rejected:
        return "TLS: the server rejected the client certificate";
      case tls_errc::not_tls:
        return "TLS: the server does not speak TLS (a plaintext port?) or closed the connection during the handshake";
      case tls_errc::no_common_version:
        return "TLS: no protocol version accepted by both the client and the server";
      case tls_errc::handshake_failed:
        return "TLS handshake failed";
    }
    return "unknown zkwire.tls error " + std::to_string(value);
  }
};

// OpenSSL's oldest queued error as text, then clears the queue (it is per thread and must not leak into the
// next check).
std::string openssl_reason() {
  const unsigned long code = ERR_peek_error();  // NOLINT(google-runtime-int): OpenSSL's type
  const char* reason = code == 0 ? nullptr : ERR_reason_error_string(code);
  std::string text = code == 0 ? "not in PEM format" : reason != nullptr ? reason : "unknown OpenSSL error";
  ERR_clear_error();
  return text;
}

// Whether `path` can be opened for reading; otherwise the system's reason.
bool readable(const std::string& path, std::string& reason) {
  const std::ifstream in(path);
  if (in) return true;
  reason = std::strerror(errno);  // NOLINT(concurrency-mt-unsafe): glibc's strerror is thread-safe for valid codes
  return false;
}

int openssl_version(tls_version v) { return v == tls_version::v1_2 ? TLS1_2_VERSION : TLS1_3_VERSION; }

// What OpenSSL asked of the password callback while the key was read: asked at all means the key is encrypted.
struct key_password_request {
  const std::string* password = nullptr;
  bool asked = false;
  bool too_long = false;
};

// OpenSSL's password callback: gives tls_options::key_password (userdata) to the key's reading, and refuses when
// there is none (an encrypted key then fails at once) or no request (userdata null: the context's default callback,
// so that nothing read through the context ever prompts on the terminal).
int give_key_password(char* buffer, int size, int /*rwflag*/, void* userdata) {
  auto* request = static_cast<key_password_request*>(userdata);
  if (request == nullptr) return -1;
  request->asked = true;
  const std::string& password = *request->password;
  if (password.empty()) return -1;
  if (size < 0 || password.size() > static_cast<std::size_t>(size)) {
    request->too_long = true;  // a cut password would fail as a wrong one: say why instead
    return -1;
  }
  std::copy(password.begin(), password.end(), buffer);  // OpenSSL takes the length, not a terminating NUL
  return static_cast<int>(password.size());
}

// Why an encrypted key could not be read; never the password itself.
std::string key_password_failure(const key_password_request& request) {
  if (request.password->empty()) return "the key is encrypted and no password was given (key_password)";
  if (request.too_long) {
    return "the key is encrypted and the password given (key_password) is longer than OpenSSL accepts";
  }
  return "the key is encrypted and the password given (key_password) did not decrypt it";
}

}  // namespace

const std::error_category& tls_category() noexcept {
  static const tls_category_impl category;
  return category;
}

namespace detail {

std::shared_ptr<asio::ssl::context> make_tls_context(const tls_options& options, std::error_code& error,
                                                     std::string& detail) {
  auto fail = [&](tls_errc code, const std::string& what) {
    error = code;
    detail = what;
    return std::shared_ptr<asio::ssl::context>();
  };
  if (options.cert_file.empty() != options.key_file.empty()) {
    return fail(tls_errc::certificate_without_key, options.cert_file.empty()
                                                       ? "TLS client key file given without a certificate file"
                                                       : "TLS client certificate file given without a key file");
  }
  if (options.min_version == tls_version::v1_3 && options.max_version == tls_version::v1_2) {
    return fail(tls_errc::bad_versions, "TLS minimum version 1.3 is above the maximum version 1.2");
  }
  ERR_clear_error();
  auto context = std::make_shared<asio::ssl::context>(asio::ssl::context::tls_client);
  SSL_CTX* ctx = context->native_handle();
  SSL_CTX_set_default_passwd_cb(ctx, give_key_password);
  SSL_CTX_set_min_proto_version(ctx, openssl_version(options.min_version));
  SSL_CTX_set_max_proto_version(ctx, openssl_version(options.max_version));
  // Renegotiation is not used by ZooKeeper; resumption across connections is not attempted.
  SSL_CTX_set_options(ctx, SSL_OP_NO_RENEGOTIATION | SSL_OP_NO_TICKET);
  SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_OFF);
  // Record buffers stay allocated while a connection is idle: no allocation per record in steady state.
  SSL_CTX_clear_mode(ctx, SSL_MODE_RELEASE_BUFFERS);

  std::string reason;
  if (options.ca_file.empty()) {
    if (SSL_CTX_set_default_verify_paths(ctx) != 1) return fail(tls_errc::bad_ca_file, "TLS: no default CA store");
  } else {
    if (!readable(options.ca_file, reason)) {
      return fail(tls_errc::bad_ca_file, "TLS CA file '" + options.ca_file + "': " + reason);
    }
    if (SSL_CTX_load_verify_locations(ctx, options.ca_file.c_str(), nullptr) != 1) {
      return fail(tls_errc::bad_ca_file, "TLS CA file '" + options.ca_file + "': " + openssl_reason());
    }
  }
  if (!options.cert_file.empty()) {
    if (!readable(options.cert_file, reason)) {
      return fail(tls_errc::bad_certificate_file, "TLS certificate file '" + options.cert_file + "': " + reason);
    }
    if (SSL_CTX_use_certificate_chain_file(ctx, options.cert_file.c_str()) != 1) {
      return fail(tls_errc::bad_certificate_file,
                  "TLS certificate file '" + options.cert_file + "': " + openssl_reason());
    }
    if (!readable(options.key_file, reason)) {
      return fail(tls_errc::bad_key_file, "TLS key file '" + options.key_file + "': " + reason);
    }
    // The key is read here rather than by SSL_CTX_use_PrivateKey_file, which also compares it with the certificate:
    // a failed decryption and a key of another certificate must be told apart.
    key_password_request request;
    request.password = &options.key_password;
    const std::unique_ptr<BIO, decltype(&BIO_free)> file(BIO_new_file(options.key_file.c_str(), "r"), &BIO_free);
    const std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)> key(
        file ? PEM_read_bio_PrivateKey(file.get(), nullptr, give_key_password, &request) : nullptr, &EVP_PKEY_free);
    if (!key) {
      if (!request.asked) {
        return fail(tls_errc::bad_key_file, "TLS key file '" + options.key_file + "': " + openssl_reason());
      }
      ERR_clear_error();
      return fail(tls_errc::bad_key_file, "TLS key file '" + options.key_file + "': " + key_password_failure(request));
    }
    if (SSL_CTX_use_PrivateKey(ctx, key.get()) != 1 || SSL_CTX_check_private_key(ctx) != 1) {
      ERR_clear_error();
      return fail(tls_errc::bad_key_file, "TLS key file '" + options.key_file +
                                              "': not the private key of the certificate in '" + options.cert_file +
                                              "'");
    }
  }
  SSL_CTX_set_verify(ctx, options.verify_server_certificate ? SSL_VERIFY_PEER : SSL_VERIFY_NONE, nullptr);
  error.clear();
  return context;
}

bool set_tls_peer(SSL* ssl, const std::string& host, const tls_options& options) {
  std::error_code not_ip;
  const auto address = asio::ip::make_address(host, not_ip);
  // SNI is for names only. SSL_set_tlsext_host_name without its C cast.
  if (not_ip && SSL_ctrl(ssl, SSL_CTRL_SET_TLSEXT_HOSTNAME, TLSEXT_NAMETYPE_host_name,
                         const_cast<char*>(host.c_str())) != 1) {  // NOLINT(cppcoreguidelines-pro-type-const-cast)
    return false;
  }
  if (!options.verify_server_certificate || !options.verify_host_name) return true;
  X509_VERIFY_PARAM* param = SSL_get0_param(ssl);
  X509_VERIFY_PARAM_set_hostflags(param, X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS);
  if (!not_ip) return X509_VERIFY_PARAM_set1_ip_asc(param, address.to_string().c_str()) == 1;
  return X509_VERIFY_PARAM_set1_host(param, host.c_str(), host.size()) == 1;
}

std::error_code classify_tls_error(const std::error_code& error, SSL* ssl, bool in_handshake,
                                   bool have_client_certificate) {
  if (error == asio::ssl::error::stream_truncated || error == asio::error::eof ||
      error == asio::error::connection_reset) {
    return in_handshake ? make_error_code(tls_errc::not_tls) : error;
  }
  if (error.category() != asio::error::get_ssl_category()) return error;
  const auto client_certificate =
      have_client_certificate ? tls_errc::client_certificate_rejected : tls_errc::client_certificate_required;
  switch (ERR_GET_REASON(static_cast<unsigned long>(error.value()))) {  // NOLINT(google-runtime-int)
    case SSL_R_CERTIFICATE_VERIFY_FAILED: {
      const long result = SSL_get_verify_result(ssl);  // NOLINT(google-runtime-int): OpenSSL's type
      return result == X509_V_ERR_HOSTNAME_MISMATCH || result == X509_V_ERR_IP_ADDRESS_MISMATCH
                 ? tls_errc::host_name_mismatch
                 : tls_errc::untrusted_certificate;
    }
    case SSL_R_TLSV13_ALERT_CERTIFICATE_REQUIRED:
    case SSL_R_SSLV3_ALERT_BAD_CERTIFICATE:
    case SSL_R_SSLV3_ALERT_CERTIFICATE_UNKNOWN:
    case SSL_R_TLSV1_ALERT_UNKNOWN_CA:
      return client_certificate;
    case SSL_R_SSLV3_ALERT_HANDSHAKE_FAILURE:
      return have_client_certificate ? tls_errc::handshake_failed : tls_errc::client_certificate_required;
    case SSL_R_WRONG_VERSION_NUMBER:
    case SSL_R_HTTP_REQUEST:
    case SSL_R_PACKET_LENGTH_TOO_LONG:
    case SSL_R_RECORD_LENGTH_MISMATCH:
    case SSL_R_UNEXPECTED_EOF_WHILE_READING:
      return in_handshake ? make_error_code(tls_errc::not_tls) : error;
    case SSL_R_UNSUPPORTED_PROTOCOL:
    case SSL_R_TLSV1_ALERT_PROTOCOL_VERSION:
    case SSL_R_NO_PROTOCOLS_AVAILABLE:
      return tls_errc::no_common_version;
    default:
      return in_handshake ? make_error_code(tls_errc::handshake_failed) : error;
  }
}

}  // namespace detail

std::error_code check_tls_options(const tls_options& options, std::string& detail) {
  std::error_code error;
  detail.clear();
  (void)detail::make_tls_context(options, error, detail);
  return error;
}

}  // namespace zkwire
