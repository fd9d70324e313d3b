#pragma once
// Errors of the command line and their exit statuses (docs/cli.md#exit-status). Pure functions.
//
// Error lines read `zkwire: <command>: <what happened> (<ZooKeeper error name>)`, e.g.
// `zkwire: get: /a: node does not exist (NONODE)`.

#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>

namespace zkwire::cli {

enum exit_status : int {
  exit_ok = 0,
  exit_false = 1,       // the node does not exist, or the condition tested is false
  exit_usage = 2,       // bad option or argument, invalid path: nothing was sent
  exit_refused = 3,     // the server refused the operation
  exit_no_session = 4,  // no session, session expired, auth failed, connection lost: outcome unknown
};

// A bad option or argument; printed as `zkwire: <command>: <message>`, exit status 2.
class usage_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Thrown while parsing a command's arguments for -h/--help: run_command prints the command's help, exit status 0.
struct help_requested {};

// An operation on `subject` (a path, or the server list for connecting) failed with `code`.
class operation_error : public std::runtime_error {
 public:
  operation_error(std::error_code code, std::string subject)
      : std::runtime_error(subject + ": " + code.message()), code_(code), subject_(std::move(subject)) {}
  [[nodiscard]] const std::error_code& code() const noexcept { return code_; }
  [[nodiscard]] const std::string& subject() const noexcept { return subject_; }

 private:
  std::error_code code_;
  std::string subject_;
};

// The exit status for an operation that failed with `ec`: NONODE 1, invalid path or argument 2, any other
// server refusal 3, no session / connection loss / expiry / auth failure / protocol trouble 4.
int exit_status_for(const std::error_code& ec) noexcept;

// The ZooKeeper name of `ec` as the server's error table spells it ("NONODE", "CONNECTIONLOSS";
// docs/protocol.md#error-codes). Conditions the client detects itself get the code ZooKeeper's own client reports
// for them (a connect timeout is CONNECTIONLOSS).
std::string error_name(const std::error_code& ec);

// What happened, in words, for `command` ("create" says "parent does not exist" for NONODE).
std::string describe(const std::error_code& ec, std::string_view command);

// The whole error line without the trailing newline.
std::string error_line(std::string_view command, std::string_view subject, const std::error_code& ec);

}  // namespace zkwire::cli
