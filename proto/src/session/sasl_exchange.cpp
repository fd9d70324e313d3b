#include "sasl_exchange.hpp"

#include <random>
#include <utility>

namespace zkwire::proto::session_detail {

namespace {

// 128 bits of client nonce for DIGEST-MD5, as hex (RFC 2831 asks for at least 64 bits of entropy).
std::string random_cnonce() {
  static constexpr std::string_view digits = "0123456789abcdef";
  std::random_device source;
  std::string out;
  for (int word = 0; word < 4; ++word) {
    auto v = static_cast<std::uint32_t>(source());
    for (int i = 0; i < 8; ++i, v >>= 4U) out += digits[v & 0xfU];
  }
  return out;
}

}  // namespace

void sasl_exchange::start(const sasl_credentials& creds) {
  client_.emplace(creds.user, creds.password, creds.cnonce ? creds.cnonce() : random_cnonce());
  step_ = step::awaiting_challenge;
}

std::error_code sasl_exchange::answer(std::string_view token, std::optional<std::string>& response) {
  response.reset();
  if (step_ == step::awaiting_challenge) {
    std::string out;
    if (auto ec = client_->respond(token, out)) return ec;
    response = std::move(out);
    step_ = step::awaiting_rspauth;
    return {};
  }
  if (auto ec = client_->verify(token)) return ec;
  step_ = step::done;
  client_.reset();
  return {};
}

void sasl_exchange::reset() noexcept {
  step_ = step::none;
  xid_ = 0;
  client_.reset();
}

}  // namespace zkwire::proto::session_detail
