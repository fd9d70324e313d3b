// DIGEST-MD5 client steps (RFC 2831 sections 2.1.1 to 2.1.3), qop=auth only.

#include "sasl_digest.hpp"

#include <cstddef>
#include <utility>

#include "md5.hpp"
#include "zkwire/proto/error.hpp"

namespace zkwire::proto::session_detail {
namespace {

constexpr std::string_view nonce_count = "00000001";  // one authentication per nonce

bool is_space(char c) noexcept { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

bool iequals(std::string_view a, std::string_view b) noexcept {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; };
    if (lower(a[i]) != lower(b[i])) return false;
  }
  return true;
}

// One `name=value` directive of a digest-challenge; value may be a quoted-string with backslash escapes.
struct directive_parser {
  explicit directive_parser(std::string_view t) : text(t) {}

  std::string_view text;
  std::size_t at = 0;
  std::string error;

  void skip_separators() {
    while (at < text.size() && (is_space(text[at]) || text[at] == ',')) ++at;
  }

  // Returns false at the end of the text or on a syntax error (then `error` is set).
  bool next(std::string& name, std::string& value) {
    skip_separators();
    if (at >= text.size()) return false;
    const std::size_t eq = text.find('=', at);
    if (eq == std::string_view::npos) {
      error = "a directive without '='";
      return false;
    }
    std::string_view raw_name = text.substr(at, eq - at);
    while (!raw_name.empty() && is_space(raw_name.back())) raw_name.remove_suffix(1);
    if (raw_name.empty()) {
      error = "a directive without a name";
      return false;
    }
    name.assign(raw_name);
    at = eq + 1;
    while (at < text.size() && is_space(text[at])) ++at;
    value.clear();
    if (at < text.size() && text[at] == '"') {
      ++at;
      for (;;) {
        if (at >= text.size()) {
          error = "an unterminated quoted value";
          return false;
        }
        char c = text[at++];
        if (c == '"') break;
        if (c == '\\') {
          if (at >= text.size()) {
            error = "an unterminated quoted value";
            return false;
          }
          c = text[at++];
        }
        value += c;
      }
    } else {
      while (at < text.size() && text[at] != ',') value += text[at++];
      while (!value.empty() && is_space(value.back())) value.pop_back();
    }
    while (at < text.size() && is_space(text[at])) ++at;
    if (at < text.size() && text[at] != ',') {
      error = "garbage after the value of '" + name + "'";
      return false;
    }
    return true;
  }
};

// RFC 2831 2.1.2.1: with charset=utf-8, a string whose characters all fit ISO 8859-1 is hashed as ISO 8859-1,
// otherwise as UTF-8. Input is UTF-8; invalid UTF-8 is hashed as given.
std::string hash_form(std::string_view utf8) {
  std::string latin1;
  latin1.reserve(utf8.size());
  for (std::size_t i = 0; i < utf8.size(); ++i) {
    const auto c = static_cast<unsigned char>(utf8[i]);
    if (c < 0x80U) {
      latin1 += static_cast<char>(c);
    } else if ((c == 0xc2U || c == 0xc3U) && i + 1 < utf8.size() &&
               (static_cast<unsigned char>(utf8[i + 1]) & 0xc0U) == 0x80U) {
      const auto low = static_cast<unsigned char>(utf8[i + 1]) & 0x3fU;
      latin1 += static_cast<char>(((c & 0x03U) << 6U) | low);
      ++i;
    } else {
      return std::string(utf8);
    }
  }
  return latin1;
}

// A quoted-string for the response, escaping '"' and '\'.
void append_quoted(std::string& out, std::string_view value) {
  out += '"';
  for (const char c : value) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  out += '"';
}

std::error_code fail(std::string& detail, std::string why) {
  detail = std::move(why);
  return client_error::sasl_exchange_failed;
}

}  // namespace

std::error_code parse_digest_challenge(std::string_view token, digest_challenge& out, std::string& detail) {
  out = {};
  directive_parser p(token);
  std::string name;
  std::string value;
  bool have_nonce = false;
  bool have_realm = false;
  bool auth_offered = false;
  bool have_qop = false;
  bool md5_sess = false;
  while (p.next(name, value)) {
    if (iequals(name, "realm")) {
      if (!have_realm) out.realm = value;
      have_realm = true;
    } else if (iequals(name, "nonce")) {
      if (have_nonce) return fail(detail, "the server's challenge has two nonces");
      out.nonce = value;
      have_nonce = true;
    } else if (iequals(name, "qop")) {
      have_qop = true;
      std::size_t start = 0;
      while (start <= value.size()) {
        std::size_t end = value.find(',', start);
        if (end == std::string::npos) end = value.size();
        std::string_view option = std::string_view(value).substr(start, end - start);
        while (!option.empty() && is_space(option.front())) option.remove_prefix(1);
        while (!option.empty() && is_space(option.back())) option.remove_suffix(1);
        if (iequals(option, "auth")) auth_offered = true;
        start = end + 1;
      }
    } else if (iequals(name, "charset")) {
      out.utf8 = iequals(value, "utf-8");
    } else if (iequals(name, "algorithm")) {
      md5_sess = iequals(value, "md5-sess");
    }
    // stale, maxbuf, cipher and unknown directives do not matter for qop=auth.
  }
  if (!p.error.empty()) return fail(detail, "malformed DIGEST-MD5 challenge from the server: " + p.error);
  if (!have_nonce || out.nonce.empty()) return fail(detail, "the server's DIGEST-MD5 challenge has no nonce");
  if (!md5_sess) return fail(detail, "the server's DIGEST-MD5 challenge does not say algorithm=md5-sess");
  if (have_qop && !auth_offered) {
    return fail(detail, "the server does not offer qop=auth (authentication only), the only one zkwire supports");
  }
  return {};
}

std::string digest_response_value(std::string_view user, std::string_view realm, std::string_view password,
                                  std::string_view nonce, std::string_view cnonce, bool initial, std::string_view uri) {
  std::string secret = hash_form(user);
  secret += ':';
  secret += hash_form(realm);
  secret += ':';
  secret += hash_form(password);
  const md5_hash inner = md5_digest(secret);
  md5 a1;
  a1.update(std::string_view(reinterpret_cast<const char*>(inner.data()), inner.size()));  // NOLINT: bytes
  a1.update(":");
  a1.update(nonce);
  a1.update(":");
  a1.update(cnonce);
  std::string a2 = initial ? "AUTHENTICATE:" : ":";
  a2 += uri;
  std::string kd = md5_hex(a1.finish());
  kd += ':';
  kd += nonce;
  kd += ':';
  kd += nonce_count;
  kd += ':';
  kd += cnonce;
  kd += ":auth:";
  kd += md5_hex(md5_digest(a2));
  return md5_hex(md5_digest(kd));
}

digest_md5_client::digest_md5_client(std::string user, std::string password, std::string cnonce)
    : user_(std::move(user)), password_(std::move(password)), cnonce_(std::move(cnonce)) {}

std::error_code digest_md5_client::respond(std::string_view challenge, std::string& response) {
  if (auto ec = parse_digest_challenge(challenge, challenge_, detail_)) return ec;
  response.clear();
  if (challenge_.utf8) response += "charset=utf-8,";
  response += "username=";
  append_quoted(response, user_);
  response += ",realm=";
  append_quoted(response, challenge_.realm);
  response += ",nonce=";
  append_quoted(response, challenge_.nonce);
  response += ",nc=";
  response += nonce_count;
  response += ",cnonce=";
  append_quoted(response, cnonce_);
  response += ",digest-uri=";
  append_quoted(response, digest_uri);
  response += ",maxbuf=65536,response=";
  response += digest_response_value(user_, challenge_.realm, password_, challenge_.nonce, cnonce_, true);
  response += ",qop=auth";
  responded_ = true;
  return {};
}

std::error_code digest_md5_client::verify(std::string_view final_token) {
  if (!responded_) return fail(detail_, "a DIGEST-MD5 final token before any challenge");
  directive_parser p(final_token);
  std::string name;
  std::string value;
  std::string rspauth;
  while (p.next(name, value)) {
    if (iequals(name, "rspauth")) rspauth = value;
  }
  if (!p.error.empty()) return fail(detail_, "malformed DIGEST-MD5 final token from the server: " + p.error);
  if (rspauth.empty()) return fail(detail_, "the server's final DIGEST-MD5 token has no rspauth");
  const std::string expected =
      digest_response_value(user_, challenge_.realm, password_, challenge_.nonce, cnonce_, false);
  if (!iequals(rspauth, expected)) {
    return fail(detail_, "the server's rspauth does not match: it does not know this user's password");
  }
  return {};
}

}  // namespace zkwire::proto::session_detail
