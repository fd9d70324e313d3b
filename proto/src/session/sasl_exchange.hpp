#pragma once
// The SASL exchange of one connection (docs/protocol.md#sasl): after the handshake, when a session_config has
// SASL credentials, the engine writes nothing else until the server accepted them. Two round trips of DIGEST-MD5:
//   started:             the engine sends an empty token (DIGEST-MD5 has no initial response)
//   awaiting_challenge:  the server's challenge in, the client's response to send out
//   awaiting_rspauth:    the server's rspauth in, which proves it knows the password too; then done.
// The engine owns the xids and the frames; this keeps the state and the tokens. Errors: whatever
// digest_md5_client reports (client_error::sasl_exchange_failed).

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>

#include "sasl_digest.hpp"
#include "zkwire/proto/session/session.hpp"

namespace zkwire::proto::session_detail {

class sasl_exchange {
 public:
  // Starts the exchange on a new connection with `creds` (their cnonce source, or 128 random bits).
  void start(const sasl_credentials& creds);

  // The request with `xid` carries the exchange's latest token: its reply is the exchange's, not the FIFO's.
  void sent(std::int32_t xid) noexcept { xid_ = xid; }

  // Whether a reply with `xid` answers the exchange's token.
  [[nodiscard]] bool awaits(std::int32_t xid) const noexcept {
    return (step_ == step::awaiting_challenge || step_ == step::awaiting_rspauth) && xid == xid_;
  }

  // The server's token in. Sets `response` to the next token to send (true), or ends the exchange, verified
  // (false); an error if the token was wrong.
  std::error_code answer(std::string_view token, std::optional<std::string>& response);

  [[nodiscard]] bool done() const noexcept { return step_ == step::done; }

  // The connection is gone: a new one starts over.
  void reset() noexcept;

 private:
  enum class step { none, awaiting_challenge, awaiting_rspauth, done };
  step step_ = step::none;
  std::int32_t xid_ = 0;
  std::optional<digest_md5_client> client_;
};

}  // namespace zkwire::proto::session_detail
