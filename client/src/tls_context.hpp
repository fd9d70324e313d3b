#pragma once
// The OpenSSL side of client_options::tls that is the same for every connection: the asio::ssl::context with the
// trusted CAs, the client certificate and the protocol versions (built once, shared by the transports), and the
// translation of OpenSSL's handshake errors into tls_errc.

#include <asio/ssl/context.hpp>
#include <memory>
#include <string>
#include <system_error>

#include "zkwire/client/tls_options.hpp"

using SSL = struct ssl_st;  // NOLINT(readability-identifier-naming): OpenSSL's name

namespace zkwire::detail {

// Builds the context; on failure returns null, with `error` and `detail` (a sentence naming the file and cause).
std::shared_ptr<asio::ssl::context> make_tls_context(const tls_options& options, std::error_code& error,
                                                     std::string& detail);

// Prepares one connection's SSL object: SNI for DNS names, and the name or IP address its certificate must carry.
// Returns false when OpenSSL refuses the host.
bool set_tls_peer(SSL* ssl, const std::string& host, const tls_options& options);

// The error a failed handshake (or a read right after it: TLS 1.3 reports a refused client certificate there)
// is reported with: a tls_errc naming the cause when one is known, else `error` itself.
std::error_code classify_tls_error(const std::error_code& error, SSL* ssl, bool in_handshake,
                                   bool have_client_certificate);

}  // namespace zkwire::detail
