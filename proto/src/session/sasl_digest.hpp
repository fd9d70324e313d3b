#pragma once
// The client side of SASL DIGEST-MD5 (RFC 2831) as a ZooKeeper server speaks it (docs/protocol.md#sasl):
// authentication only (qop "auth"), no integrity or confidentiality layer, service "zookeeper" on the fixed host
// name "zk-sasl-md5", so the digest-uri is always "zookeeper/zk-sasl-md5". The exchange is
//   client: empty token  ->  server: challenge (realm, nonce, qop, charset, algorithm)
//   client: response     ->  server: "rspauth=<hex>", which proves the server knows the password too.
// No authzid is sent, so the server authorizes the user name itself (ACL ids `sasl:<user>`).
//
// Errors: client_error::sasl_exchange_failed, with detail() saying what was wrong with the server's token.
// Thread safety: a plain value, one per exchange.

#include <string>
#include <string_view>
#include <system_error>

namespace zkwire::proto::session_detail {

inline constexpr std::string_view digest_uri = "zookeeper/zk-sasl-md5";

// What the client needs from a server challenge.
struct digest_challenge {
  std::string realm;  // the first realm offered; empty when none was
  std::string nonce;
  bool utf8 = false;  // charset=utf-8 was offered
};

// Parses a challenge; on failure `detail` says why.
std::error_code parse_digest_challenge(std::string_view token, digest_challenge& out, std::string& detail);

// RFC 2831's response-value for qop=auth and nc=00000001, 32 hex digits. `initial`: the client's response
// (A2 = "AUTHENTICATE:" digest-uri); otherwise the server's rspauth (A2 = ":" digest-uri).
std::string digest_response_value(std::string_view user, std::string_view realm, std::string_view password,
                                  std::string_view nonce, std::string_view cnonce, bool initial,
                                  std::string_view uri = digest_uri);

class digest_md5_client {
 public:
  // `cnonce`: fresh random text of at least 64 bits of entropy, without '"' or '\'.
  digest_md5_client(std::string user, std::string password, std::string cnonce);

  // The server's challenge in, the client's response out.
  std::error_code respond(std::string_view challenge, std::string& response);
  // The server's final token ("rspauth=..."): success only if it proves the server knows the password.
  std::error_code verify(std::string_view final_token);
  [[nodiscard]] const std::string& detail() const noexcept { return detail_; }

 private:
  std::string user_;
  std::string password_;
  std::string cnonce_;
  digest_challenge challenge_;
  bool responded_ = false;
  std::string detail_;
};

}  // namespace zkwire::proto::session_detail
