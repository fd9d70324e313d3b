#include "global_options.hpp"

#include <charconv>
#include <cstdint>
#include <string_view>

#include "cli11_support.hpp"
#include "errors.hpp"

namespace zkwire::cli {
namespace {

// A positive number of milliseconds that fits the protocol's 32-bit timeouts.
std::chrono::milliseconds parse_ms(std::string_view text, std::string_view what) {
  std::int64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || value <= 0 || value > INT32_MAX) {
    throw usage_error(std::string(what) + ": '" + std::string(text) + "' is not a positive number of milliseconds");
  }
  return std::chrono::milliseconds(value);
}

// A positive number of bytes for --max-frame-size: digits with an optional K, M or G suffix (powers of 1024),
// at most what a frame's 32-bit length can announce.
std::size_t parse_bytes(std::string_view text, std::string_view what) {
  std::uint64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  std::string_view suffix(end, static_cast<std::size_t>(text.data() + text.size() - end));
  int shift = 0;
  if (suffix == "K" || suffix == "k") shift = 10;
  if (suffix == "M" || suffix == "m") shift = 20;
  if (suffix == "G" || suffix == "g") shift = 30;
  const bool suffix_ok = suffix.empty() || shift > 0;
  if (ec != std::errc() || !suffix_ok || value == 0 || value > (std::uint64_t{INT32_MAX} >> shift)) {
    throw usage_error(std::string(what) + ": '" + std::string(text) +
                      "' is not a positive number of bytes (a K, M or G suffix allowed) up to 2G-1");
  }
  return static_cast<std::size_t>(value << shift);
}

// --- TLS ---
// The TLS settings of --tls-ca/--tls-cert/--tls-key, their files read and checked now: a bad file is a usage
// error, before anything is sent.
std::optional<tls_options> parse_tls(const std::string& ca, const std::string& cert, const std::string& key) {
  if (ca.empty()) {
    if (!cert.empty() || !key.empty()) throw usage_error("--tls-cert and --tls-key need --tls-ca");
    return std::nullopt;
  }
  if (cert.empty() != key.empty()) throw usage_error("--tls-cert and --tls-key must be given together");
  tls_options tls;
  tls.ca_file = ca;
  tls.cert_file = cert;
  tls.key_file = key;
  std::string detail;
  if (check_tls_options(tls, detail)) throw usage_error(detail);
  return tls;
}
// --- end TLS ---

}  // namespace

parse_result parse_global_options(std::span<const char* const> args, const char* servers_env) {
  parse_result result;
  global_options& o = result.options;
  o.servers = servers_env != nullptr && *servers_env != '\0' ? servers_env : "127.0.0.1:2181";

  // The same rules as a command's options: the first word that is not an option (the command) ends them.
  command_parser parser;
  parser.flag("--version", o.version);
  parser.flag("-v,--verbose", o.verbose);
  parser.flag("--json", o.json);
  parser.option("-s,--servers", o.servers);
  parser.value("-t,--session-timeout",
               [&o](const std::string& text) { o.session_timeout = parse_ms(text, "--session-timeout"); });
  parser.value("--connect-timeout",
               [&o](const std::string& text) { o.connect_timeout = parse_ms(text, "--connect-timeout"); });
  parser.repeatable("--auth", o.auth);
  // --- SASL ---
  parser.value("--sasl", [&o](const std::string& text) {
    const std::size_t colon = text.find(':');
    if (colon == std::string::npos || colon == 0) {
      throw usage_error("--sasl: expected USER:PASSWORD with a non-empty user (got " +
                        std::string(colon == 0 ? "an empty user" : "no ':'") + ")");
    }
    o.sasl_user = text.substr(0, colon);
    o.sasl_password = text.substr(colon + 1);
  });
  // --- end SASL ---
  // --- request deadlines and read-only mode ---
  parser.value("--request-timeout",
               [&o](const std::string& text) { o.request_timeout = parse_ms(text, "--request-timeout"); });
  parser.flag("--read-only", o.read_only);
  parser.value("--max-frame-size",
               [&o](const std::string& text) { o.max_frame_size = parse_bytes(text, "--max-frame-size"); });
  // --- TLS ---
  std::string tls_ca;
  std::string tls_cert;
  std::string tls_key;
  parser.option("--tls-ca", tls_ca);
  parser.option("--tls-cert", tls_cert);
  parser.option("--tls-key", tls_key);
  // --- end TLS ---
  parser.positionals("COMMAND", o.command);
  try {
    parser.parse(std::vector<std::string>(args.begin(), args.end()));
    for (const auto& auth : o.auth) {
      if (auth.find(':') == std::string::npos || auth.front() == ':') {
        throw usage_error("--auth: '" + auth + "' is not SCHEME:CREDENTIALS");
      }
    }
    o.tls = parse_tls(tls_ca, tls_cert, tls_key);
  } catch (const help_requested&) {
    o.help = true;
  } catch (const usage_error& e) {
    result.error = e.what();
  }
  return result;
}

}  // namespace zkwire::cli
