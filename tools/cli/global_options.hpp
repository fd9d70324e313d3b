#pragma once
// The global options of the zkwire command line (docs/cli.md#global-options), parsed before the subcommand.

#include <chrono>
#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "zkwire/client/tls_options.hpp"

namespace zkwire::cli {

struct global_options {
  std::string servers;  // -s/--servers, else $ZKWIRE_SERVERS, else 127.0.0.1:2181
  std::chrono::milliseconds session_timeout{10000};
  std::optional<std::chrono::milliseconds> connect_timeout;  // defaults to the session timeout
  std::vector<std::string> auth;                             // SCHEME:CREDENTIALS, in order
  // --- SASL: --sasl USER:PASSWORD (split at the first ':'; the password may contain ':') ---
  std::optional<std::string> sasl_user;
  std::string sasl_password;
  // --- end SASL ---
  // --- request deadlines and read-only mode ---
  std::optional<std::chrono::milliseconds> request_timeout;  // --request-timeout: every request's deadline
  bool read_only = false;                                    // --read-only: accept read-only servers
  std::optional<std::size_t> max_frame_size;                 // --max-frame-size: largest reply accepted
  // --- TLS ---
  // --tls-ca FILE turns TLS on; --tls-cert/--tls-key FILE (together) for mutual TLS. The files are checked by
  // parse_global_options (a usage error before anything is sent).
  std::optional<tls_options> tls;
  // --- end TLS ---
  bool verbose = false;
  bool json = false;
  bool help = false;
  bool version = false;
  // The subcommand and its arguments (everything after the global options).
  std::vector<std::string> command;
};

struct parse_result {
  global_options options;
  std::string error;  // non-empty: a usage error, printed as "zkwire: <error>" with exit status 2
};

// `args` excludes the program name. Options stop at the first non-option word (the subcommand).
parse_result parse_global_options(std::span<const char* const> args, const char* servers_env);

}  // namespace zkwire::cli
